// A connection setting changed for a while (PragmaOverride), and the repository writer's use of
// it: the larger page cache a repository's transaction writes through, gone once it commits.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <unistd.h>

#include <filesystem>

#include "corpus/corpus.h"
#include "corpus/pragma_override.h"
#include "corpus/repo_writer.h"
#include "corpus/sqlite_statement.h"

using namespace mine;

namespace {

int64_t pragma(sqlite3* db, const std::string& name) {
  SqliteStatement s(db, "PRAGMA " + name);
  REQUIRE(s.step());
  return s.column_int(0);
}

struct TempDb {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("mine_pragma_override_" + std::to_string(::getpid()));
  TempDb() { std::filesystem::create_directories(dir); }
  ~TempDb() { std::filesystem::remove_all(dir); }
};

}  // namespace

TEST_CASE("a pragma override sets a value and restores the old one", "[corpus]") {
  TempDb tmp;
  auto corpus = Corpus::open((tmp.dir / "c.db").string(), Corpus::Access::ReadWrite);
  sqlite3* db = corpus->handle();
  int64_t before = pragma(db, "cache_size");
  {
    PragmaOverride larger(db, "cache_size", -12345);
    CHECK(pragma(db, "cache_size") == -12345);
    larger.restore();
    CHECK(pragma(db, "cache_size") == before);
    sqlite_exec(db, "PRAGMA cache_size=-777");  // restored once only: a later change stays
  }
  CHECK(pragma(db, "cache_size") == -777);
  {
    PragmaOverride memory(db, "temp_store", 2);
    CHECK(pragma(db, "temp_store") == 2);
  }
  CHECK(pragma(db, "temp_store") == 0);  // by the destructor
}

TEST_CASE("a repository writer writes through a larger page cache, then restores the connection's", "[corpus]") {
  TempDb tmp;
  auto corpus = Corpus::open((tmp.dir / "c.db").string(), Corpus::Access::ReadWrite);
  sqlite3* db = corpus->handle();
  int64_t before = pragma(db, "cache_size");
  RepoSnapshot header;
  header.name = "repo";
  header.source_kind = "folder";
  header.location = "/nowhere";
  {
    RepoWriter writer(*corpus, corpus->begin_scan("scan", nlohmann::json::array()), header);
    writer.add(FileRecord{"a.py", "", 1, false, 0, ""});
    CHECK(pragma(db, "cache_size") == -(16 << 10));
    CHECK(pragma(db, "temp_store") == 2);
    writer.commit();
    CHECK(pragma(db, "cache_size") == before);
    CHECK(pragma(db, "temp_store") == 0);
  }
  {
    RepoWriter rolled_back(*corpus, corpus->begin_scan("scan", nlohmann::json::array()), header);
    rolled_back.add(FileRecord{"b.py", "", 1, false, 0, ""});
  }
  CHECK(pragma(db, "cache_size") == before);
  CHECK(pragma(db, "temp_store") == 0);
  CHECK(corpus->query("SELECT path FROM files").rows.size() == 1);
}
