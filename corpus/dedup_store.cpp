#include "corpus/dedup_store.h"

#include <chrono>
#include <ctime>
#include <map>
#include <set>

#include "core/error.h"
#include "corpus/sqlite_statement.h"
#include "core/utc_time.h"

namespace mine {
namespace {

// Column names of `table` (empty when there is no such table). Read from a zero-row SELECT rather
// than PRAGMA table_info, which the read-only connection's authorizer refuses.
std::set<std::string> columns_of(sqlite3* db, const std::string& table) {
  std::set<std::string> out;
  sqlite3_stmt* st = nullptr;
  std::string sql = "SELECT * FROM \"" + table + "\" LIMIT 0";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
    for (int i = 0; i < sqlite3_column_count(st); ++i) out.insert(sqlite3_column_name(st, i));
  sqlite3_finalize(st);
  return out;
}

// The first of `names` that `table` has, as "alias.column", else "NULL".
std::string optional_column(const std::set<std::string>& have, const std::string& alias,
                            std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (have.count(n)) return alias + "." + n;
  return "NULL";
}

std::vector<uint32_t> blob_to_signature(sqlite3_stmt* st, int col) {
  const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(st, col));
  int n = sqlite3_column_bytes(st, col) / 4;
  std::vector<uint32_t> out(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    out[static_cast<size_t>(i)] = static_cast<uint32_t>(p[4 * i]) | static_cast<uint32_t>(p[4 * i + 1]) << 8 |
                                  static_cast<uint32_t>(p[4 * i + 2]) << 16 | static_cast<uint32_t>(p[4 * i + 3]) << 24;
  return out;
}

std::string signature_to_blob(const std::vector<uint32_t>& sig) {
  std::string out(sig.size() * 4, '\0');
  for (size_t i = 0; i < sig.size(); ++i)
    for (int b = 0; b < 4; ++b) out[4 * i + static_cast<size_t>(b)] = static_cast<char>((sig[i] >> (8 * b)) & 0xFF);
  return out;
}

std::optional<int64_t> optional_int(const SqliteStatement& s, int col) {
  if (s.column_is_null(col)) return std::nullopt;
  return s.column_int(col);
}

}  // namespace

DedupStore::DedupStore(const Corpus& corpus) : db_(corpus.handle()) {
  auto repo_cols = columns_of(db_, "repos");
  stars_expr_ = optional_column(repo_cols, "r", {"stars", "stargazers_count"});
  license_expr_ = optional_column(repo_cols, "r", {"license_spdx", "license"});
  commit_time_expr_ = optional_column(repo_cols, "r", {"commit_time", "committed_at"});
}

std::vector<DedupCandidate> DedupStore::candidates(const std::string& params) const {
  std::vector<DedupCandidate> out;
  SqliteStatement s(db_, "SELECT k.id, k.repo, " + stars_expr_ + ", " + commit_time_expr_ +
                             ", d.kernel_id IS NOT NULL AND d.standalone_sha256 = k.standalone_sha256 AND d.params = ?, "
                             "k.standalone_sha256 "
                             "FROM kernels k JOIN repos r ON r.id = k.repo_id "
                             "LEFT JOIN kernel_dedup d ON d.kernel_id = k.id ORDER BY k.id");
  s.bind(1, params);
  while (s.step()) {
    DedupCandidate c;
    c.kernel_id = s.column_int(0);
    c.repo = s.column_text(1);
    c.provenance.kernel_id = c.kernel_id;
    c.provenance.stars = s.column_is_null(2) ? -1 : s.column_int(2);
    c.provenance.commit_time = s.column_is_null(3) ? "" : s.column_text(3);
    c.needs_hashing = s.column_int(4) == 0;
    c.standalone_sha256 = s.column_text(5);
    out.push_back(std::move(c));
  }
  return out;
}

std::string DedupStore::standalone(int64_t kernel_id) const {
  SqliteStatement s(db_, "SELECT standalone FROM kernels WHERE id = ?");
  s.bind(1, kernel_id);
  if (!s.step()) throw Error("dedup: kernel " + std::to_string(kernel_id) + " vanished while deduplicating");
  return s.column_text(0);
}

void DedupStore::put_hashes(const std::vector<DedupHashes>& rows, const std::string& params) const {
  SqliteTransaction tx(db_);
  SqliteStatement put(db_,
                      "INSERT OR REPLACE INTO kernel_dedup(kernel_id, standalone_sha256, params, tokens, exact_hash, "
                      "alpha_hash, minhash) VALUES (?, ?, ?, ?, ?, ?, ?)");
  for (const auto& r : rows) {
    put.bind(1, r.kernel_id).bind(2, r.standalone_sha256).bind(3, params).bind(4, static_cast<int64_t>(r.tokens));
    put.bind(5, r.exact_hash).bind(6, r.alpha_hash);
    std::string blob = signature_to_blob(r.minhash);
    sqlite3_bind_blob(put.raw(), 7, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    put.run();
  }
  tx.commit();
}

std::vector<DedupHashes> DedupStore::load_hashes(const std::string& params) const {
  std::vector<DedupHashes> out;
  SqliteStatement s(db_,
                    "SELECT kernel_id, standalone_sha256, tokens, exact_hash, alpha_hash, minhash FROM kernel_dedup "
                    "WHERE params = ? ORDER BY kernel_id");
  s.bind(1, params);
  while (s.step()) {
    DedupHashes h;
    h.kernel_id = s.column_int(0);
    h.standalone_sha256 = s.column_text(1);
    h.tokens = static_cast<size_t>(s.column_int(2));
    h.exact_hash = s.column_text(3);
    h.alpha_hash = s.column_text(4);
    h.minhash = blob_to_signature(s.raw(), 5);
    out.push_back(std::move(h));
  }
  return out;
}

void DedupStore::write_clusters(const std::vector<int64_t>& ids, const std::vector<std::string>& repos,
                                const dedup::ClusterAssignment& c, const DedupRunSummary& run) const {
  SqliteTransaction tx(db_);
  sqlite_exec(db_, "UPDATE kernel_dedup SET exact_cluster = NULL, alpha_cluster = NULL, near_cluster = NULL, "
                   "is_representative = 1; DELETE FROM dup_clusters;");
  SqliteStatement set(db_,
                      "UPDATE kernel_dedup SET exact_cluster = ?, alpha_cluster = ?, near_cluster = ?, "
                      "is_representative = ? WHERE kernel_id = ?");
  for (size_t i = 0; i < ids.size(); ++i) {
    int64_t near = ids[c.near[i]];
    set.bind(1, ids[c.exact[i]]).bind(2, ids[c.alpha[i]]).bind(3, near).bind(4, near == ids[i] ? 1 : 0).bind(5, ids[i]);
    set.run();
  }
  SqliteStatement add(db_, "INSERT INTO dup_clusters(level, cluster_id, size, repos) VALUES (?, ?, ?, ?)");
  auto add_level = [&](const char* level, const std::vector<size_t>& rep) {
    std::map<size_t, std::pair<int64_t, std::set<std::string>>> groups;
    for (size_t i = 0; i < rep.size(); ++i) {
      auto& g = groups[rep[i]];
      ++g.first;
      g.second.insert(repos[i]);
    }
    for (const auto& [r, g] : groups) {
      if (g.first < 2) continue;
      add.bind(1, level).bind(2, ids[r]).bind(3, g.first).bind(4, static_cast<int64_t>(g.second.size()));
      add.run();
    }
  };
  add_level("exact", c.exact);
  add_level("alpha", c.alpha);
  add_level("near", c.near);
  SqliteStatement rec(db_,
                      "INSERT INTO dedup_runs(ran_at, params, threshold, bands, rows_per_band, kernels, hashed, "
                      "exact_removed, alpha_removed, near_removed) VALUES (?,?,?,?,?,?,?,?,?,?)");
  rec.bind(1, utc_now()).bind(2, run.params);
  sqlite3_bind_double(rec.raw(), 3, run.threshold);
  rec.bind(4, run.bands.bands).bind(5, run.bands.rows).bind(6, run.kernels).bind(7, run.hashed);
  rec.bind(8, run.exact_removed).bind(9, run.alpha_removed).bind(10, run.near_removed);
  rec.run();
  tx.commit();
}

std::optional<DedupRunSummary> DedupStore::last_run() const {
  SqliteStatement s(db_,
                    "SELECT params, threshold, bands, rows_per_band, kernels, hashed, exact_removed, alpha_removed, "
                    "near_removed FROM dedup_runs ORDER BY id DESC LIMIT 1");
  if (!s.step()) return std::nullopt;
  DedupRunSummary run;
  run.params = s.column_text(0);
  run.threshold = sqlite3_column_double(s.raw(), 1);
  run.bands = {static_cast<int>(s.column_int(2)), static_cast<int>(s.column_int(3))};
  run.kernels = s.column_int(4);
  run.hashed = s.column_int(5);
  run.exact_removed = s.column_int(6);
  run.alpha_removed = s.column_int(7);
  run.near_removed = s.column_int(8);
  return run;
}

std::vector<ExportKernel> export_kernels(const Corpus& corpus, const std::string& where) {
  sqlite3* db = corpus.handle();
  auto repo_cols = columns_of(db, "repos");
  std::string stars = optional_column(repo_cols, "r", {"stars", "stargazers_count"});
  std::string license = optional_column(repo_cols, "r", {"license_spdx", "license"});
  // Since schema 007 each kernel carries its own license (its file's SPDX tag, else the
  // repository's from the API or its license file); kernels stored before that keep the API's.
  auto kernel_cols = columns_of(db, "kernels");
  if (kernel_cols.count("license")) {
    std::string file = repo_cols.count("license_file") ? "r.license_file" : "NULL";
    license = "COALESCE(k.license, NULLIF(" + license + ", 'NOASSERTION'), " + file + ")";
  }
  // `mine check` (schema/005_check.sql) keeps every result; the newest one says where the kernel
  // got to: "ok:run", "fail:compile", ... Without that table the status is unknown (null).
  std::string check = "NULL";
  auto check_cols = columns_of(db, "check_results");
  if (check_cols.count("kernel_id") && check_cols.count("status") && check_cols.count("stage_reached"))
    check = "(SELECT c.status || ':' || c.stage_reached FROM check_results c WHERE c.kernel_id = k.id "
            "ORDER BY c.id DESC LIMIT 1)";
  std::string sql =
      "SELECT k.id, k.plugin, k.name, k.qualname, k.repo, k.path, k.commit_id, k.start_line, k.end_line, k.source, "
      "k.standalone, " + stars + ", " + license + ", k.self_contained, k.meta, " + check +
      ", d.exact_cluster, d.alpha_cluster, d.near_cluster, d.exact_hash, d.alpha_hash, d.minhash "
      "FROM kernels k JOIN repos r ON r.id = k.repo_id LEFT JOIN kernel_dedup d ON d.kernel_id = k.id";
  if (!where.empty()) sql += " WHERE (" + where + "\n)";
  sql += " ORDER BY k.id";

  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    std::string m = sqlite3_errmsg(db);
    sqlite3_finalize(raw);
    throw Error("--where: " + m);
  }
  sqlite3_finalize(raw);
  for (const char* p = tail; p && *p; ++p)
    if (!isspace(static_cast<unsigned char>(*p)) && *p != ';') throw Error("--where: give one condition, not statements");

  std::vector<ExportKernel> out;
  std::map<int64_t, size_t> index;
  try {
    SqliteStatement s(db, sql);
    while (s.step()) {
      ExportKernel k;
      k.id = s.column_int(0);
      k.plugin = s.column_text(1);
      k.name = s.column_text(2);
      k.qualname = s.column_text(3);
      k.repo = s.column_text(4);
      k.path = s.column_text(5);
      k.commit_id = s.column_is_null(6) ? "" : s.column_text(6);
      k.start_line = static_cast<int>(s.column_int(7));
      k.end_line = static_cast<int>(s.column_int(8));
      k.source = s.column_text(9);
      k.standalone = s.column_text(10);
      k.stars = optional_int(s, 11);
      k.license = s.column_is_null(12) ? "" : s.column_text(12);
      k.self_contained = s.column_int(13) != 0;
      k.meta = nlohmann::json::parse(s.column_text(14), nullptr, false);
      if (k.meta.is_discarded()) k.meta = nlohmann::json::object();
      if (!s.column_is_null(15)) k.check_status = s.column_text(15);
      k.exact_cluster = optional_int(s, 16);
      k.alpha_cluster = optional_int(s, 17);
      k.near_cluster = optional_int(s, 18);
      if (!s.column_is_null(19)) {
        k.exact_hash = s.column_text(19);
        k.alpha_hash = s.column_text(20);
        k.minhash = blob_to_signature(s.raw(), 21);
      }
      index[k.id] = out.size();
      out.push_back(std::move(k));
    }
  } catch (const Error& e) {
    // Refused while running (e.g. a function the read-only connection denies): the user's condition.
    if (where.empty()) throw;
    throw Error(std::string("--where: ") + e.what());
  }
  SqliteStatement deps(db, "SELECT kernel_id, name, kind, path, start_line FROM kernel_deps ORDER BY kernel_id, rowid");
  while (deps.step()) {
    auto it = index.find(deps.column_int(0));
    if (it == index.end()) continue;
    nlohmann::json d{{"name", deps.column_text(1)}, {"kind", deps.column_text(2)}};
    d["path"] = deps.column_is_null(3) ? nlohmann::json(nullptr) : nlohmann::json(deps.column_text(3));
    d["line"] = deps.column_is_null(4) ? nlohmann::json(nullptr) : nlohmann::json(deps.column_int(4));
    out[it->second].dependencies.push_back(std::move(d));
  }
  return out;
}

}  // namespace mine
