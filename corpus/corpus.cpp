#include "corpus/corpus.h"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <thread>

#include "core/error.h"
#include "corpus/repo_writer.h"
#include "corpus/schema_files.h"
#include "corpus/sqlite_setup.h"
#include "corpus/sqlite_statement.h"
#include "core/utc_time.h"

namespace mine {
namespace {

// Denies everything a read-only query must not do, whatever the SQL says.
int read_only_authorizer(void*, int action, const char* table, const char*, const char*, const char*) {
  switch (action) {
    case SQLITE_UPDATE:
      // json_each/json_tree declare their columns through sqlite_master, which the authorizer
      // sees as an UPDATE of it. A real one is refused anyway: the connection is read-only and
      // query() rejects statements that are not sqlite3_stmt_readonly.
      return table && std::string_view(table) == "sqlite_master" ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_PRAGMA:
      return SQLITE_DENY;  // pragmas can change settings or write (e.g. user_version)
    default:
      return SQLITE_DENY;  // INSERT/UPDATE/DELETE/CREATE/DROP/ATTACH/DETACH/ALTER/...
  }
}

}  // namespace

int known_schema_version() { return static_cast<int>(schema_files().size()); }

std::unique_ptr<Corpus> Corpus::open(const std::string& path, Access access, Threads threads) {
  if (access == Access::ReadOnly && !std::filesystem::exists(path))
    throw Error::in(path, "no corpus here (create one with `mine scan PATH --db " + path + "`)");
  configure_sqlite_once();
  sqlite3* db = nullptr;
  int flags = access == Access::ReadOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  // Serialized: crawl discovery (ETags) and the crawl writer share one connection. A scan's
  // connection is used by one thread: the connection mutex it would take on every bind, step and
  // reset (hundreds of thousands of calls for a large repository) guards nothing there.
  flags |= threads == Threads::Shared ? SQLITE_OPEN_FULLMUTEX : SQLITE_OPEN_NOMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw Error::in(path, "cannot open corpus: " + message);
  }
  std::unique_ptr<Corpus> corpus(new Corpus(path, db, access));
  // A second writer waits for the first instead of failing at once.
  sqlite3_busy_timeout(db, corpus_busy_timeout_ms());
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
  try {
    if (access == Access::ReadWrite) {
      // SQLite skips the busy handler where waiting could deadlock, as when several processes
      // create and migrate the same new corpus at once: those conflicts are retried here until
      // the busy timeout is spent (each migration step re-checks the version in its transaction).
      auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(corpus_busy_timeout_ms());
      for (int attempt = 0;; ++attempt) {
        try {
          // A new corpus gets 16 KB pages (an existing one keeps its own): most of its bytes are
          // standalones of tens of KB, whose overflow chains then take a quarter of the pages,
          // and of the page writes to the WAL and back at each checkpoint.
          sqlite_exec(db, "PRAGMA page_size=16384; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                          "PRAGMA foreign_keys=ON;");
          corpus->migrate();
          break;
        } catch (const Error& e) {
          if (std::string(e.what()).find("database is locked") == std::string::npos ||
              std::chrono::steady_clock::now() >= deadline)
            throw;
          std::this_thread::sleep_for(std::chrono::milliseconds(10 + 10 * std::min(attempt, 9)));
        }
      }
    } else {
      int version = corpus->schema_version();
      if (version == 0) throw Error::in(path, "not a mine corpus (schema version 0)");
      if (version > known_schema_version())
        throw Error::in(path, "written by a newer mine (schema " + std::to_string(version) + ", this mine knows " +
                                  std::to_string(known_schema_version()) + "); upgrade mine to read it");
      sqlite_exec(db, "PRAGMA query_only=ON;");
      sqlite3_set_authorizer(db, read_only_authorizer, nullptr);
    }
  } catch (const Error& e) {
    std::string m = e.what();
    if (m.find("file is not a database") != std::string::npos) throw Error::in(path, "not an SQLite database");
    throw;
  }
  return corpus;
}

Corpus::~Corpus() { sqlite3_close_v2(db_); }

int Corpus::schema_version() const {
  SqliteStatement s(db_, "PRAGMA user_version");
  return s.step() ? static_cast<int>(s.column_int(0)) : 0;
}

void Corpus::migrate() {
  const auto& files = schema_files();
  int version = schema_version();
  if (version > static_cast<int>(files.size()))
    throw Error::in(path_, "written by a newer mine (schema " + std::to_string(version) + ", this mine knows " +
                               std::to_string(files.size()) + "); upgrade mine or use another --db");
  for (size_t i = static_cast<size_t>(version); i < files.size(); ++i) {
    SqliteTransaction tx(db_);
    // Re-check inside the write lock: another process may have migrated meanwhile.
    if (schema_version() > static_cast<int>(i)) continue;
    try {
      sqlite_exec(db_, files[i].sql);
    } catch (const Error& e) {
      throw Error::in(path_, std::string("migration ") + files[i].name + " failed: " + e.what());
    }
    sqlite_exec(db_, "PRAGMA user_version=" + std::to_string(i + 1));
    tx.commit();
  }
}

int64_t Corpus::begin_scan(const std::string& command, const nlohmann::json& inputs) {
  SqliteStatement s(db_, "INSERT INTO scans(started_at, command, inputs) VALUES (?, ?, ?)");
  s.bind(1, utc_now()).bind(2, command).bind(3, inputs.dump());
  s.run();
  return sqlite3_last_insert_rowid(db_);
}

void Corpus::finish_scan(int64_t scan_id, const ScanTotals& t) {
  SqliteStatement s(db_,
                    "UPDATE scans SET finished_at=?, files_seen=?, files_parsed=?, kernels_found=?, errors=? "
                    "WHERE id=?");
  s.bind(1, utc_now()).bind(2, t.files_seen).bind(3, t.files_parsed).bind(4, t.kernels_found).bind(5, t.errors);
  s.bind(6, scan_id);
  s.run();
}

StoreOutcome Corpus::store(int64_t scan_id, const RepoSnapshot& snap) {
  RepoWriter writer(*this, scan_id, snap);
  for (const auto& f : snap.files) writer.add(f);
  for (const auto& k : snap.kernels) writer.add(k);
  for (const auto& p : snap.problems) writer.add(p);
  writer.add(snap.launches);
  return writer.commit();
}

std::optional<std::string> Corpus::mined_commit(const std::string& repo_name) const {
  SqliteStatement s(db_, "SELECT commit_id FROM repos WHERE name=?");
  s.bind(1, repo_name);
  if (!s.step() || s.column_is_null(0)) return std::nullopt;
  return s.column_text(0);
}

QueryResult Corpus::query(const std::string& sql) const {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
  if (rc != SQLITE_OK) {
    std::string m = sqlite3_errmsg(db_);
    sqlite3_finalize(raw);
    if (rc == SQLITE_AUTH || m.find("not authorized") != std::string::npos)
      throw Error("query refused: mine query is read-only (no writes, PRAGMA, ATTACH or extensions)");
    throw Error("query: " + m);
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  if (!stmt) throw Error("query: empty SQL");
  for (const char* p = tail; p && *p; ++p)
    if (!isspace(static_cast<unsigned char>(*p)) && *p != ';')
      throw Error("query: give one SQL statement at a time (found more after the first)");
  if (!sqlite3_stmt_readonly(stmt.get()))
    throw Error("query refused: mine query is read-only (no writes, PRAGMA, ATTACH or extensions)");
  QueryResult result;
  int n = sqlite3_column_count(stmt.get());
  for (int i = 0; i < n; ++i) result.columns.push_back(sqlite3_column_name(stmt.get(), i));
  while (true) {
    rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) throw Error(std::string("query: ") + sqlite3_errmsg(db_));
    std::vector<nlohmann::json> row;
    row.reserve(n);
    for (int i = 0; i < n; ++i) {
      switch (sqlite3_column_type(stmt.get(), i)) {
        case SQLITE_NULL: row.emplace_back(nullptr); break;
        case SQLITE_INTEGER: row.emplace_back(sqlite3_column_int64(stmt.get(), i)); break;
        case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(stmt.get(), i)); break;
        default: {
          const unsigned char* t = sqlite3_column_text(stmt.get(), i);
          row.emplace_back(std::string(reinterpret_cast<const char*>(t),
                                       static_cast<size_t>(sqlite3_column_bytes(stmt.get(), i))));
        }
      }
    }
    result.rows.push_back(std::move(row));
  }
  return result;
}

}  // namespace mine
