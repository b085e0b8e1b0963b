#include "corpus/sqlite_statement.h"

#include <cstdlib>

#include "core/error.h"

namespace mine {
namespace {

std::string db_name(sqlite3* db) {
  const char* f = sqlite3_db_filename(db, "main");
  return f && *f ? f : "corpus";
}

// SQLite says only "database is locked"; say who holds it and what to do.
std::string busy_hint(sqlite3* db) {
  int code = sqlite3_extended_errcode(db) & 0xff;
  if (code != SQLITE_BUSY && code != SQLITE_LOCKED) return "";
  return " (another process is writing this corpus; waited " + std::to_string(corpus_busy_timeout_ms()) +
         " ms for it: run one writer at a time, or raise MINE_BUSY_TIMEOUT_MS)";
}

[[noreturn]] void fail(sqlite3* db, const std::string& what) {
  throw Error::in(db_name(db), what + ": " + sqlite3_errmsg(db) + busy_hint(db));
}

}  // namespace

int corpus_busy_timeout_ms() {
  const char* text = std::getenv("MINE_BUSY_TIMEOUT_MS");
  if (!text || !*text) return 30000;
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  return (end && *end == '\0' && v >= 0 && v <= 86400000) ? static_cast<int>(v) : 30000;
}

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    fail(db, "cannot prepare statement");
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    fail(db_, "cannot bind parameter");
  return *this;
}

SqliteStatement& SqliteStatement::bind_static(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC) != SQLITE_OK)
    fail(db_, "cannot bind parameter");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(db_, "cannot bind parameter");
  return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail(db_, "cannot bind parameter");
  return *this;
}

SqliteStatement& SqliteStatement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(db_, "cannot bind parameter");
  return *this;
}

bool SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, "statement failed");
}

void SqliteStatement::run() {
  while (step()) {
  }
  reset();
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string SqliteStatement::column_text(int i) const {
  const unsigned char* t = sqlite3_column_text(stmt_, i);
  return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, i)))
           : std::string();
}

void sqlite_exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string m = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw Error::in(db_name(db), m + busy_hint(db));
  }
}

SqliteTransaction::SqliteTransaction(sqlite3* db) : db_(db) { sqlite_exec(db, "BEGIN IMMEDIATE"); }

SqliteTransaction::~SqliteTransaction() {
  if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void SqliteTransaction::commit() {
  sqlite_exec(db_, "COMMIT");
  done_ = true;
}

}  // namespace mine
