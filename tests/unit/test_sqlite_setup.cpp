// Connection settings of a corpus: opening one turns SQLite's allocation statistics off for the
// process (configure_sqlite_once), and a connection only one thread uses takes no mutex per call.
#include <catch2/catch.hpp>

#include <sqlite3.h>

#include <unistd.h>

#include <filesystem>

#include "corpus/corpus.h"

using namespace mine;

TEST_CASE("a corpus leaves SQLite's allocation statistics off", "[sqlite_setup]") {
  auto dir = std::filesystem::temp_directory_path() / ("mine_sqlite_setup_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    auto corpus = Corpus::open((dir / "c.db").string(), Corpus::Access::ReadWrite);
    // The schema is written and the connection holds its caches: counted, this is far from zero.
    CHECK(sqlite3_memory_used() == 0);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("a corpus used by one thread takes no connection mutex, a shared one does", "[sqlite_setup]") {
  auto dir = std::filesystem::temp_directory_path() / ("mine_sqlite_threads_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    auto one = Corpus::open((dir / "one.db").string(), Corpus::Access::ReadWrite, Corpus::Threads::One);
    CHECK(sqlite3_db_mutex(one->handle()) == nullptr);
    auto shared = Corpus::open((dir / "shared.db").string(), Corpus::Access::ReadWrite);
    CHECK(sqlite3_db_mutex(shared->handle()) != nullptr);
  }
  std::filesystem::remove_all(dir);
}
