#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mine {

// How long a connection waits for another process's write lock before failing:
// $MINE_BUSY_TIMEOUT_MS, else 30000.
int corpus_busy_timeout_ms();

// A prepared statement with positional binding; finalized on destruction. Errors become
// mine::Error naming the database file.
class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, std::string_view sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  SqliteStatement& bind(int index, std::string_view value);
  // Without a copy: `value` must stay as it is until the statement's next run() or reset().
  SqliteStatement& bind_static(int index, std::string_view value);
  SqliteStatement& bind(int index, int64_t value);
  SqliteStatement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  SqliteStatement& bind(int index, double value);
  SqliteStatement& bind_null(int index);
  SqliteStatement& bind_optional(int index, const std::string& value) {
    return value.empty() ? bind_null(index) : bind(index, std::string_view(value));
  }

  bool step();  // true while a row is available
  void run();   // step to completion, then reset for reuse
  void reset();

  int64_t column_int(int i) const { return sqlite3_column_int64(stmt_, i); }
  std::string column_text(int i) const;
  bool column_is_null(int i) const { return sqlite3_column_type(stmt_, i) == SQLITE_NULL; }
  sqlite3_stmt* raw() const { return stmt_; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Executes one or more statements that return nothing; throws mine::Error with the message.
void sqlite_exec(sqlite3* db, const std::string& sql);

// RAII transaction: BEGIN IMMEDIATE on construction, ROLLBACK unless commit() was called.
class SqliteTransaction {
 public:
  explicit SqliteTransaction(sqlite3* db);
  ~SqliteTransaction();
  void commit();

 private:
  sqlite3* db_;
  bool done_ = false;
};

}  // namespace mine
