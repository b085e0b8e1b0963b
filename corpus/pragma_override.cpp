#include "corpus/pragma_override.h"

#include "core/error.h"
#include "corpus/sqlite_statement.h"

namespace mine {

PragmaOverride::PragmaOverride(sqlite3* db, std::string name, int64_t value) : db_(db), name_(std::move(name)) {
  {
    SqliteStatement current(db_, "PRAGMA " + name_);
    saved_ = current.step() ? current.column_int(0) : 0;
  }
  sqlite_exec(db_, "PRAGMA " + name_ + "=" + std::to_string(value));
  active_ = true;
}

PragmaOverride::~PragmaOverride() {
  try {
    restore();
  } catch (const Error&) {
    // The connection is going away with the error that got us here.
  }
}

void PragmaOverride::restore() {
  if (!active_) return;
  active_ = false;
  sqlite_exec(db_, "PRAGMA " + name_ + "=" + std::to_string(saved_));
}

}  // namespace mine
