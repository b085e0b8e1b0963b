// Opening a corpus turns SQLite's allocation statistics off for the process (configure_sqlite_once):
// they cost a global mutex per allocation while a scan stores its rows, and nothing reads them.
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
