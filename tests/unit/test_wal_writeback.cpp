// Starting the WAL's writeback early (WalWriteback): asked of a corpus file's WAL, refused where
// there is no file.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <unistd.h>

#include <filesystem>

#include "corpus/corpus.h"
#include "corpus/sqlite_statement.h"
#include "corpus/wal_writeback.h"

using namespace mine;

TEST_CASE("the WAL's writeback is asked of a corpus file's WAL, and of nothing else", "[corpus]") {
  auto dir = std::filesystem::temp_directory_path() / ("mine_wal_writeback_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    auto corpus = Corpus::open((dir / "c.db").string(), Corpus::Access::ReadWrite);
    sqlite_exec(corpus->handle(), "BEGIN; INSERT INTO scans(command, inputs, started_at) VALUES ('scan', '[]', 'now');");
    WalWriteback writeback(corpus->handle());
#ifdef __linux__
    CHECK(std::filesystem::exists(dir / "c.db-wal"));
    CHECK(writeback.start());
    CHECK(writeback.start());  // again, on the same descriptor
#else
    CHECK_FALSE(writeback.start());
#endif
    sqlite_exec(corpus->handle(), "COMMIT;");
    CHECK(corpus->query("SELECT count(*) FROM scans").rows.at(0).at(0) == 1);
  }
  sqlite3* memory = nullptr;
  REQUIRE(sqlite3_open(":memory:", &memory) == SQLITE_OK);
  {
    WalWriteback none(memory);
    CHECK_FALSE(none.start());
  }
  sqlite3_close(memory);
  std::filesystem::remove_all(dir);
}
