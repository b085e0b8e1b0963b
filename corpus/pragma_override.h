#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace mine {

// One of a connection's integer settings (a PRAGMA such as temp_store or cache_size) changed for
// a while: the value it had is read, the new one set, and the old one set again by restore() or
// at destruction (where an error is swallowed: the connection goes away with the error that got
// there). Only for settings whose value reads back as it is written.
class PragmaOverride {
 public:
  PragmaOverride(sqlite3* db, std::string name, int64_t value);
  ~PragmaOverride();
  PragmaOverride(const PragmaOverride&) = delete;
  PragmaOverride& operator=(const PragmaOverride&) = delete;

  void restore();

 private:
  sqlite3* db_;
  std::string name_;
  int64_t saved_ = 0;
  bool active_ = false;
};

}  // namespace mine
