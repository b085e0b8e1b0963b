#include "corpus/corpus_merge.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <vector>

#include "core/error.h"
#include "corpus/sqlite_statement.h"

namespace mine {
namespace {

std::string quoted(const std::string& identifier) { return "\"" + identifier + "\""; }

std::vector<std::string> table_columns(sqlite3* db, const std::string& schema, const std::string& table) {
  std::vector<std::string> out;
  SqliteStatement s(db, "PRAGMA " + schema + ".table_info(" + quoted(table) + ")");
  while (s.step()) out.push_back(s.column_text(1));
  return out;
}

// Input and output columns both have, in output order, less `skip`. An older input lacks the
// columns later schemas added; those take their defaults.
std::vector<std::string> shared_columns(sqlite3* db, const std::string& table, const std::set<std::string>& skip) {
  std::vector<std::string> in = table_columns(db, "src", table), out;
  for (const auto& c : table_columns(db, "main", table))
    if (!skip.count(c) && std::find(in.begin(), in.end(), c) != in.end()) out.push_back(c);
  return out;
}

// Builds "INSERT INTO main.T (remapped..., shared...) SELECT exprs..., s.shared... FROM src.T s <rest>"
// where `remapped` maps output columns to the SQL expressions that give their new values.
struct Copy {
  std::string table;
  std::vector<std::pair<std::string, std::string>> remapped;
  std::set<std::string> skip;  // besides the remapped ones
  std::string from_rest;       // joins and WHERE after "FROM src.T s"
  bool or_ignore = false;
  bool unless_identical = false;  // skip rows equal in every copied column to one already there
};

int64_t run_copy(sqlite3* db, const Copy& c) {
  std::set<std::string> skip = c.skip;
  for (const auto& [col, expr] : c.remapped) skip.insert(col);
  std::vector<std::string> shared = shared_columns(db, c.table, skip);
  std::string cols, exprs, same;
  auto add = [&](const std::string& col, const std::string& expr) {
    cols += (cols.empty() ? "" : ", ") + quoted(col);
    exprs += (exprs.empty() ? "" : ", ") + expr;
    same += (same.empty() ? "" : " AND ") + ("m." + quoted(col) + " IS " + expr);
  };
  for (const auto& [col, expr] : c.remapped) add(col, expr);
  for (const auto& col : shared) add(col, "s." + quoted(col));
  std::string sql = std::string("INSERT ") + (c.or_ignore ? "OR IGNORE " : "") + "INTO main." + quoted(c.table) + " (" +
                    cols + ") SELECT " + exprs + " FROM src." + quoted(c.table) + " s " + c.from_rest;
  if (c.unless_identical) {
    sql += (c.from_rest.find("WHERE") == std::string::npos ? " WHERE " : " AND ");
    sql += "NOT EXISTS (SELECT 1 FROM main." + quoted(c.table) + " m WHERE " + same + ")";
  }
  sqlite_exec(db, sql);
  return sqlite3_changes(db);
}

bool input_has_table(sqlite3* db, const std::string& table) {
  SqliteStatement s(db, "SELECT 1 FROM src.sqlite_master WHERE type='table' AND name=?");
  s.bind(1, table);
  return s.step();
}

// Detaches the input however the merge ends, so a failed merge leaves the output usable.
struct Attached {
  sqlite3* db;
  Attached(sqlite3* db, const std::string& path) : db(db) {
    SqliteStatement s(db, "ATTACH DATABASE ? AS src");
    s.bind(1, path);
    s.run();
  }
  ~Attached() {
    sqlite3_exec(db, "DROP TABLE IF EXISTS temp.merge_repo_map; DROP TABLE IF EXISTS temp.merge_kernel_map; "
                     "DROP TABLE IF EXISTS temp.merge_scan_map; DROP TABLE IF EXISTS temp.merge_result_map; "
                     "DROP TABLE IF EXISTS temp.merge_pair_map; DETACH DATABASE src", nullptr, nullptr, nullptr);
  }
};

}  // namespace

MergeOutcome merge_corpus(Corpus& out, const std::string& input_path) {
  std::error_code ec;
  if (std::filesystem::equivalent(input_path, out.path(), ec))
    throw Error::in(input_path, "is the output corpus itself");
  {
    // Refuses what is no corpus or comes from a newer mine, with the usual messages.
    auto check = Corpus::open(input_path, Corpus::Access::ReadOnly);
  }
  sqlite3* db = out.handle();
  Attached attached(db, input_path);
  MergeOutcome outcome;
  SqliteTransaction tx(db);

  sqlite_exec(db,
              "CREATE TEMP TABLE merge_repo_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL, fresh INTEGER NOT NULL);"
              "CREATE TEMP TABLE merge_kernel_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL, fresh INTEGER NOT NULL);"
              "CREATE TEMP TABLE merge_scan_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
              "CREATE TEMP TABLE merge_result_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);");

  // Repositories: by name. Those the output has are kept (fresh = 0) and their content skipped.
  sqlite_exec(db, "INSERT INTO merge_repo_map SELECT s.id, m.id, 0 FROM src.repos s JOIN main.repos m ON m.name = s.name");
  outcome.repos_already_present = sqlite3_changes(db);
  outcome.added["repos"] = run_copy(db, {"repos", {}, {"id"}, "WHERE s.id NOT IN (SELECT old FROM merge_repo_map)"});
  sqlite_exec(db, "INSERT INTO merge_repo_map SELECT s.id, m.id, 1 FROM src.repos s JOIN main.repos m ON m.name = s.name "
                  "WHERE s.id NOT IN (SELECT old FROM merge_repo_map)");
  {
    SqliteStatement s(db, "SELECT count(*) FROM src.repos");
    outcome.repos_in_input = s.step() ? s.column_int(0) : 0;
  }

  // Scans: the provenance of scan_errors; one scan is the same scan when it started at the same
  // moment with the same command and inputs.
  outcome.added["scans"] = run_copy(db, {"scans", {}, {"id"}, "", false, true});
  sqlite_exec(db, "INSERT OR IGNORE INTO merge_scan_map SELECT s.id, min(m.id) FROM src.scans s JOIN main.scans m "
                  "ON m.started_at = s.started_at AND m.command = s.command AND m.inputs = s.inputs GROUP BY s.id");

  const std::string fresh_repo = "JOIN merge_repo_map r ON r.old = s.repo_id AND r.fresh = 1";
  outcome.added["files"] = run_copy(db, {"files", {{"repo_id", "r.new"}}, {"id"}, fresh_repo});

  // Kernels: by identity. Already-present ones are mapped too, for the check tables below.
  const std::string same_kernel =
      "JOIN merge_repo_map r ON r.old = s.repo_id JOIN main.kernels m ON m.repo_id = r.new AND m.path = s.path "
      "AND m.qualname = s.qualname AND m.source_sha256 = s.source_sha256";
  sqlite_exec(db, "INSERT INTO merge_kernel_map SELECT s.id, m.id, 0 FROM src.kernels s " + same_kernel);
  outcome.added["kernels"] = run_copy(
      db, {"kernels", {{"repo_id", "r.new"}}, {"id"}, fresh_repo + " WHERE s.id NOT IN (SELECT old FROM merge_kernel_map)"});
  sqlite_exec(db, "INSERT INTO merge_kernel_map SELECT s.id, m.id, 1 FROM src.kernels s " + same_kernel +
                      " WHERE s.id NOT IN (SELECT old FROM merge_kernel_map)");
  outcome.added["kernel_deps"] = run_copy(
      db, {"kernel_deps", {{"kernel_id", "k.new"}}, {}, "JOIN merge_kernel_map k ON k.old = s.kernel_id AND k.fresh = 1"});
  outcome.added["scan_errors"] = run_copy(
      db, {"scan_errors", {{"scan_id", "sm.new"}}, {"id"},
           "JOIN main.repos mr ON mr.name = s.repo JOIN merge_repo_map r ON r.new = mr.id AND r.fresh = 1 "
           "LEFT JOIN merge_scan_map sm ON sm.old = s.scan_id"});
  if (input_has_table(db, "kernel_occurrences"))
    outcome.added["kernel_occurrences"] = run_copy(
        db, {"kernel_occurrences", {{"kernel_id", "k.new"}, {"repo_id", "r.new"}}, {"id"},
             fresh_repo + " LEFT JOIN merge_kernel_map k ON k.old = s.kernel_id"});
  if (input_has_table(db, "api_etags"))
    outcome.added["api_etags"] = run_copy(db, {"api_etags", {}, {}, "", true});

  if (input_has_table(db, "kernel_signatures"))
    outcome.added["kernel_signatures"] = run_copy(
        db, {"kernel_signatures", {{"kernel_id", "k.new"}}, {}, "JOIN merge_kernel_map k ON k.old = s.kernel_id", true});
  if (input_has_table(db, "check_results")) {
    // Results have no key: a result is already there when every column but its id matches.
    outcome.added["check_results"] = run_copy(
        db, {"check_results", {{"kernel_id", "k.new"}}, {"id"}, "JOIN merge_kernel_map k ON k.old = s.kernel_id", false, true});
    std::vector<std::string> cols = shared_columns(db, "check_results", {"id", "kernel_id"});
    std::string same = "m.kernel_id = k.new";
    for (const auto& c : cols) same += " AND m." + quoted(c) + " IS s." + quoted(c);
    sqlite_exec(db, "INSERT INTO merge_result_map SELECT s.id, min(m.id) FROM src.check_results s "
                    "JOIN merge_kernel_map k ON k.old = s.kernel_id JOIN main.check_results m ON " + same +
                        " GROUP BY s.id");
    if (input_has_table(db, "check_configs"))
      outcome.added["check_configs"] = run_copy(
          db, {"check_configs", {{"result_id", "rm.new"}, {"kernel_id", "k.new"}}, {"id"},
               "JOIN merge_result_map rm ON rm.old = s.result_id JOIN merge_kernel_map k ON k.old = s.kernel_id",
               false, true});
    // Ported sources (008_ports.sql): one per kernel and Triton version; a port already here wins.
    if (input_has_table(db, "kernel_ports"))
      outcome.added["kernel_ports"] = run_copy(
          db, {"kernel_ports", {{"kernel_id", "k.new"}, {"result_id", "rm.new"}}, {},
               "JOIN merge_kernel_map k ON k.old = s.kernel_id LEFT JOIN merge_result_map rm ON rm.old = s.result_id",
               true});
  }
  // PyTorch/Inductor pairs (010_pairs.sql): one per module; a pair already here wins. Links are
  // remapped through the module (the pair's key) and the kernel identity.
  if (input_has_table(db, "module_pairs")) {
    outcome.added["module_pairs"] = run_copy(
        db, {"module_pairs", {{"module_id", "k.new"}, {"generated_repo_id", "gr.new"}}, {"id"},
             "JOIN merge_kernel_map k ON k.old = s.module_id LEFT JOIN merge_repo_map gr ON gr.old = s.generated_repo_id",
             true});
    sqlite_exec(db, "CREATE TEMP TABLE merge_pair_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);"
                    "INSERT INTO merge_pair_map SELECT s.id, m.id FROM src.module_pairs s "
                    "JOIN merge_kernel_map k ON k.old = s.module_id JOIN main.module_pairs m ON m.module_id = k.new");
    outcome.added["module_pair_kernels"] = run_copy(
        db, {"module_pair_kernels", {{"pair_id", "pm.new"}, {"kernel_id", "k.new"}}, {},
             "JOIN merge_pair_map pm ON pm.old = s.pair_id JOIN merge_kernel_map k ON k.old = s.kernel_id", true});
  }
  tx.commit();
  return outcome;
}

}  // namespace mine
