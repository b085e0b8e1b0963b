#pragma once

namespace mine {

// Process-wide SQLite settings, applied once before the library's first connection (sqlite3_config
// refuses them afterwards). Corpus::open calls it; anything else opening a connection first only
// keeps SQLite's defaults.
void configure_sqlite_once();

}  // namespace mine
