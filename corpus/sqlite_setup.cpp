#include "corpus/sqlite_setup.h"

#include <sqlite3.h>

#include <mutex>

namespace mine {

void configure_sqlite_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    // SQLite counts every allocation it makes for sqlite3_memory_used() and friends, under a
    // global mutex: some 1.9 million lock and unlock calls (0.8% of a scan's instructions) while a
    // large repository is stored. mine never asks for those statistics.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  });
}

}  // namespace mine
