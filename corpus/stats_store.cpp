#include "corpus/stats_store.h"

#include "core/error.h"

namespace mine {
namespace {

// Kernel count per repository, for the sections that weigh repositories by what they hold.
constexpr const char* kKernelsPerRepo = "(SELECT repo_id, count(*) AS n FROM kernels GROUP BY repo_id)";

std::vector<StatsQuery> make_queries() {
  const std::string run_check = "record checks with `mine check --run` (or --ingest) on a GPU machine";
  const std::string run_dedup = "run `mine dedup`";
  const std::string upgrade = "open the corpus once with this mine (e.g. `mine dedup` or `mine scan`) to add it";
  return {
      {"overview", "Overview",
       "SELECT (SELECT count(*) FROM repos) AS repositories,\n"
       "       (SELECT count(*) FROM files) AS files,\n"
       "       (SELECT count(*) FROM kernels) AS kernels,\n"
       "       (SELECT count(*) FROM kernels WHERE self_contained = 1) AS self_contained,\n"
       "       round(100.0 * (SELECT count(*) FROM kernels WHERE self_contained = 1)\n"
       "             / max(1, (SELECT count(*) FROM kernels)), 1) AS self_contained_pct,\n"
       "       (SELECT count(*) FROM scan_errors) AS scan_problems",
       {"repos", "files", "kernels", "scan_errors"}, "", ""},
      {"repos_by_state", "Repositories by crawl state",
       "SELECT coalesce(r.crawl_state, 'local scan') AS state,\n"
       "       count(*) AS repositories,\n"
       "       coalesce(sum(k.n), 0) AS kernels\n"
       "FROM repos r LEFT JOIN " + std::string(kKernelsPerRepo) + " k ON k.repo_id = r.id\n"
       "GROUP BY 1 ORDER BY 2 DESC, 1",
       {"repos.crawl_state"}, upgrade, "scan a folder (`mine scan PATH`) or crawl GitHub (`mine crawl`)"},
      {"kernels_by_plugin", "Kernels by plugin and category",
       "SELECT plugin,\n"
       "       coalesce(CASE WHEN json_valid(meta) THEN json_extract(meta, '$.category') END, '') AS category,\n"
       "       count(*) AS kernels,\n"
       "       sum(self_contained) AS self_contained,\n"
       "       round(100.0 * avg(self_contained), 1) AS self_contained_pct\n"
       "FROM kernels GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2",
       {"kernels"}, "", "scan some code: `mine scan PATH`"},
      {"top_repositories", "Top repositories by kernel count",
       "SELECT r.name AS repository,\n"
       "       count(*) AS kernels,\n"
       "       sum(k.self_contained) AS self_contained\n"
       "FROM kernels k JOIN repos r ON r.id = k.repo_id\n"
       "GROUP BY r.id ORDER BY 2 DESC, 1 LIMIT 20",
       {"kernels", "repos"}, "", "scan some code: `mine scan PATH`"},
      {"license_mix", "License mix (by where each kernel's license comes from)",
       // source: 'spdx-header' (the file's own tag), 'api' (GitHub), 'file' (the repository's
       // LICENSE file), 'none'.
       "SELECT coalesce(license, '(unknown)') AS license,\n"
       "       coalesce(license_source, 'none') AS source,\n"
       "       count(DISTINCT repo_id) AS repositories,\n"
       "       count(*) AS kernels\n"
       "FROM kernels GROUP BY 1, 2 ORDER BY 4 DESC, 3 DESC, 1, 2",
       {"kernels.license_source"}, upgrade, "scan some code: `mine scan PATH`"},
      {"license_sources", "Where kernel licenses come from",
       "SELECT coalesce(license_source, 'none') AS source,\n"
       "       count(DISTINCT repo_id) AS repositories,\n"
       "       count(*) AS kernels\n"
       "FROM kernels GROUP BY 1 ORDER BY 3 DESC, 1",
       {"kernels.license_source"}, upgrade, "scan some code: `mine scan PATH`"},
      {"license_disagreements", "Repositories whose license file disagrees with GitHub",
       "SELECT name AS repository, license AS api, license_file AS file, license_file_path AS path,\n"
       "       round(license_file_confidence, 3) AS confidence\n"
       "FROM repos WHERE license_disagreement IS NOT NULL ORDER BY name",
       {"repos.license_disagreement"}, upgrade, "no disagreement between GitHub and the license files"},
      {"kernel_sizes", "Kernel size (lines of the definition)",
       "SELECT CASE WHEN n <= 10 THEN '1-10' WHEN n <= 25 THEN '11-25' WHEN n <= 50 THEN '26-50'\n"
       "            WHEN n <= 100 THEN '51-100' WHEN n <= 200 THEN '101-200' WHEN n <= 500 THEN '201-500'\n"
       "            ELSE '501+' END AS lines,\n"
       "       count(*) AS kernels\n"
       "FROM (SELECT end_line - start_line + 1 AS n FROM kernels)\n"
       "GROUP BY 1 ORDER BY min(n)",
       {"kernels"}, "", "scan some code: `mine scan PATH`"},
      {"dup_clusters", "Duplicate clusters",
       "SELECT level,\n"
       "       count(*) AS clusters,\n"
       "       sum(size) AS kernels_in_clusters,\n"
       "       sum(size) - count(*) AS duplicates,\n"
       "       max(size) AS largest,\n"
       "       sum(repos > 1) AS across_repositories\n"
       "FROM dup_clusters GROUP BY level\n"
       "ORDER BY CASE level WHEN 'exact' THEN 1 WHEN 'alpha' THEN 2 ELSE 3 END",
       {"dup_clusters"}, upgrade, "no duplicates found, or not looked for yet: " + run_dedup},
      {"dedup_funnel", "Deduplication funnel",
       // Nothing until `mine dedup` has run: a funnel that drops to zero would read as "all duplicates".
       "SELECT * FROM (\n"
       "  SELECT 'kernels' AS step, (SELECT count(*) FROM kernels) AS kernels\n"
       "  UNION ALL SELECT 'clustered by mine dedup', count(*) FROM kernel_dedup WHERE near_cluster IS NOT NULL\n"
       "  UNION ALL SELECT 'unique after exact', count(DISTINCT exact_cluster) FROM kernel_dedup\n"
       "  UNION ALL SELECT 'unique after alpha (renamed locals)', count(DISTINCT alpha_cluster) FROM kernel_dedup\n"
       "  UNION ALL SELECT 'unique after near (MinHash)', count(DISTINCT near_cluster) FROM kernel_dedup)\n"
       "WHERE EXISTS (SELECT 1 FROM kernel_dedup WHERE near_cluster IS NOT NULL)",
       {"kernel_dedup"}, upgrade, run_dedup},
      {"check_outcomes", "Check outcomes (newest check of each kernel)",
       "SELECT stage_reached AS stage, status, coalesce(error_class, '') AS error_class, count(*) AS kernels\n"
       "FROM check_latest GROUP BY 1, 2, 3\n"
       "ORDER BY CASE stage_reached WHEN 'import' THEN 1 WHEN 'compile' THEN 2 WHEN 'load' THEN 3 ELSE 4 END,\n"
       "         status DESC, 4 DESC",
       {"check_results", "check_latest"}, upgrade, run_check},
      {"check_pass_rate", "Check pass rate by stage",
       // A kernel that reached stage S and failed there counts as attempted but not passed at S,
       // and as passed at every earlier stage.
       "WITH latest AS (\n"
       "  SELECT CASE stage_reached WHEN 'import' THEN 1 WHEN 'compile' THEN 2 WHEN 'load' THEN 3\n"
       "                            WHEN 'run' THEN 4 END AS reached,\n"
       "         status = 'ok' AS ok\n"
       "  FROM check_latest),\n"
       "stages(stage, ord) AS (VALUES ('import', 1), ('compile', 2), ('load', 3), ('run', 4))\n"
       "SELECT s.stage,\n"
       "       sum(l.reached >= s.ord) AS attempted,\n"
       "       sum(l.reached > s.ord OR (l.reached = s.ord AND l.ok)) AS passed,\n"
       "       round(100.0 * sum(l.reached > s.ord OR (l.reached = s.ord AND l.ok))\n"
       "             / max(1, sum(l.reached >= s.ord)), 1) AS pass_pct\n"
       "FROM stages s, latest l\n"
       "GROUP BY s.stage, s.ord HAVING sum(l.reached >= s.ord) > 0 ORDER BY s.ord",
       {"check_results", "check_latest"}, upgrade, run_check},
      {"check_by_triton", "Check pass rate by Triton version and form checked",
       // Every check of a version counts, not only the newest per kernel: the same corpus is
       // often checked on several stacks. A kernel retried on its ported source has two rows;
       // 'any' counts a kernel as passed on that version when some form of it passed.
       "SELECT coalesce(nullif(triton_version, ''), '(unknown)') AS triton_version,\n"
       "       form,\n"
       "       count(DISTINCT kernel_id) AS kernels,\n"
       "       count(DISTINCT CASE WHEN status = 'ok' THEN kernel_id END) AS passed,\n"
       "       round(100.0 * count(DISTINCT CASE WHEN status = 'ok' THEN kernel_id END)\n"
       "             / max(1, count(DISTINCT kernel_id)), 1) AS pass_pct\n"
       "FROM (SELECT triton_version, form, kernel_id, status FROM check_results\n"
       "      UNION ALL SELECT triton_version, 'any', kernel_id, status FROM check_results)\n"
       "GROUP BY 1, 2\n"
       "ORDER BY 1 DESC, CASE form WHEN 'any' THEN 0 WHEN 'standalone' THEN 1 WHEN 'kernel_only' THEN 2 ELSE 3 END",
       {"check_results.form"}, upgrade, run_check},
      {"ports_by_move", "Ported kernels by moved Triton API (kernels/harness/triton_ports.py)",
       "SELECT p.triton_version, json_extract(w.value, '$.move') AS move,\n"
       "       count(DISTINCT p.kernel_id) AS kernels,\n"
       "       count(DISTINCT CASE WHEN p.status = 'ok' THEN p.kernel_id END) AS passed_after_port\n"
       "FROM kernel_ports p, json_each(p.rewrites) w\n"
       "GROUP BY 1, 2 ORDER BY 1 DESC, 3 DESC, 2",
       {"kernel_ports"}, upgrade, "no kernel needed a port (ports follow a missing_name on a moved API)"},
      {"check_error_classes", "Check failures by error class",
       "SELECT coalesce(error_class, 'unclassified') AS error_class, count(*) AS kernels\n"
       "FROM check_latest WHERE status <> 'ok'\n"
       "GROUP BY 1 ORDER BY 2 DESC, 1",
       {"check_results", "check_latest"}, upgrade, "no failed checks recorded"},
      {"autotune_speedups", "Autotune speedup (slowest candidate config / best)",
       "WITH per_check AS (\n"
       "  SELECT c.result_id, max(c.time_ms) / min(c.time_ms) AS speedup\n"
       "  FROM check_configs c JOIN check_latest r ON r.id = c.result_id\n"
       "  WHERE c.time_ms > 0 GROUP BY c.result_id HAVING count(*) >= 2)\n"
       "SELECT CASE WHEN speedup < 1.1 THEN '1-1.1x' WHEN speedup < 1.5 THEN '1.1-1.5x'\n"
       "            WHEN speedup < 2 THEN '1.5-2x' WHEN speedup < 4 THEN '2-4x'\n"
       "            WHEN speedup < 10 THEN '4-10x' ELSE '10x+' END AS speedup,\n"
       "       count(*) AS kernels\n"
       "FROM per_check GROUP BY 1 ORDER BY min(speedup)",
       {"check_configs", "check_latest"}, upgrade,
       "time autotune configs with `mine check --run --autotune` on a GPU machine"},
      {"scan_problems", "Scan problems by kind",
       "SELECT kind, count(*) AS problems FROM scan_errors GROUP BY 1 ORDER BY 2 DESC, 1",
       {"scan_errors"}, "", "no problems met while scanning"},
  };
}

// Preparing is enough to learn whether a table or column exists, and it works on a read-only
// connection (the authorizer allows reads).
bool exists(sqlite3* db, const std::string& need) {
  auto dot = need.find('.');
  std::string sql = dot == std::string::npos ? "SELECT 1 FROM " + need + " LIMIT 0"
                                             : "SELECT " + need.substr(dot + 1) + " FROM " + need.substr(0, dot) +
                                                   " LIMIT 0";
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  sqlite3_finalize(stmt);
  return rc == SQLITE_OK;
}

}  // namespace

const std::vector<StatsQuery>& stats_queries() {
  static const std::vector<StatsQuery> all = make_queries();
  return all;
}

const StatsQuery& stats_query(const std::string& id) {
  for (const auto& q : stats_queries())
    if (q.id == id) return q;
  throw Error("no corpus figure named '" + id + "'");
}

StatsSection run_stats_query(const Corpus& corpus, const StatsQuery& query) {
  StatsSection section;
  section.query = &query;
  for (const auto& need : query.needs) {
    if (exists(corpus.handle(), need)) continue;
    section.available = false;
    bool column = need.find('.') != std::string::npos;
    section.unavailable_reason = "this corpus has no " + std::string(column ? "column " : "table ") + need +
                                 " (made by an older mine)" +
                                 (query.when_missing.empty() ? "" : "; " + query.when_missing);
    return section;
  }
  section.result = corpus.query(query.sql);
  return section;
}

std::vector<StatsSection> corpus_stats(const Corpus& corpus) {
  std::vector<StatsSection> out;
  for (const auto& q : stats_queries()) out.push_back(run_stats_query(corpus, q));
  return out;
}

int stats_schema_version(const Corpus& corpus) {
  // A second connection of our own: the corpus's read-only one refuses every PRAGMA.
  sqlite3* db = nullptr;
  int version = 0;
  if (sqlite3_open_v2(corpus.path().c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW)
      version = sqlite3_column_int(stmt, 0);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return version;
}

}  // namespace mine
