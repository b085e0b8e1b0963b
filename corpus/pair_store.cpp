#include "corpus/pair_store.h"

#include <set>

#include "core/sha256.h"
#include "core/utc_time.h"
#include "corpus/sqlite_statement.h"

namespace mine {

std::string joined_output_code(const std::vector<std::string>& graphs) {
  std::string out;
  for (size_t i = 0; i < graphs.size(); ++i) {
    if (graphs.size() > 1) out += "# ---- graph " + std::to_string(i) + " ----\n";
    out += graphs[i];
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (i + 1 < graphs.size()) out += '\n';
  }
  return out;
}

std::string generated_path(const std::string& module_path, const std::string& qualname, size_t graph) {
  return module_path + "/" + qualname + "/graph" + std::to_string(graph) + ".py";
}

std::vector<int64_t> store_module_pairs(Corpus& corpus, const std::vector<ModulePair>& pairs,
                                        std::vector<int64_t>& unknown) {
  sqlite3* db = corpus.handle();
  SqliteTransaction tx(db);
  SqliteStatement module(db, "SELECT repo_id, standalone_sha256 FROM kernels WHERE id=? AND plugin='torch_module'");
  SqliteStatement put(db,
                      "INSERT OR REPLACE INTO module_pairs(module_id, module_sha256, output_code, output_code_sha256, "
                      "inputs, eager_ok, compiled_ok, outputs_match, max_abs_error, tolerances, deduce, torch_version, "
                      "triton_version, gpu, results_file, checked_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  std::set<int64_t> repos;
  std::string now = utc_now();
  for (const auto& p : pairs) {
    module.bind(1, p.module_id);
    if (!module.step()) {
      module.reset();
      unknown.push_back(p.module_id);
      continue;
    }
    int64_t repo_id = module.column_int(0);
    std::string sha = module.column_text(1);
    module.reset();
    repos.insert(repo_id);
    put.bind(1, p.module_id).bind(2, sha).bind(3, nlohmann::json(p.output_code).dump());
    put.bind(4, sha256_hex(joined_output_code(p.output_code))).bind(5, p.inputs.dump());
    put.bind(6, p.eager_ok ? 1 : 0).bind(7, p.compiled_ok ? 1 : 0).bind(8, p.outputs_match ? 1 : 0);
    if (p.max_abs_error) put.bind(9, *p.max_abs_error);
    else put.bind_null(9);
    put.bind(10, p.tolerances.dump()).bind(11, p.deduce.dump());
    put.bind_optional(12, p.torch_version).bind_optional(13, p.triton_version).bind_optional(14, p.gpu);
    put.bind_optional(15, p.results_file).bind(16, now);
    put.run();
  }
  tx.commit();
  return {repos.begin(), repos.end()};
}

GeneratedRepository generated_repository(const Corpus& corpus, int64_t repo_id) {
  sqlite3* db = corpus.handle();
  GeneratedRepository out;
  SqliteStatement repo(db, "SELECT name, coalesce(commit_id, ''), coalesce(nullif(license, ''), license_file, '') FROM repos WHERE id=?");
  repo.bind(1, repo_id);
  if (repo.step()) {
    out.source_name = repo.column_text(0);
    out.commit_id = repo.column_text(1);
    out.license = repo.column_text(2);
  }
  out.name = "inductor:" + out.source_name;
  SqliteStatement files(db,
                        "SELECT k.path, k.qualname, p.output_code FROM module_pairs p JOIN kernels k ON k.id = p.module_id "
                        "WHERE k.repo_id=? AND p.compiled_ok=1 ORDER BY p.id");
  files.bind(1, repo_id);
  while (files.step()) {
    nlohmann::json graphs = nlohmann::json::parse(files.column_text(2), nullptr, false);
    if (!graphs.is_array()) continue;
    for (size_t g = 0; g < graphs.size(); ++g)
      if (graphs[g].is_string()) out.files.emplace_back(generated_path(files.column_text(0), files.column_text(1), g),
                                                        graphs[g].get<std::string>());
  }
  return out;
}

int link_pair_kernels(Corpus& corpus, int64_t source_repo_id, const std::string& generated_name) {
  sqlite3* db = corpus.handle();
  SqliteTransaction tx(db);
  SqliteStatement license(db,
                          "UPDATE repos SET license = (SELECT license FROM repos WHERE id=?1), "
                          "license_file = (SELECT license_file FROM repos WHERE id=?1), "
                          "commit_id = (SELECT commit_id FROM repos WHERE id=?1) WHERE name=?2");
  license.bind(1, source_repo_id).bind(2, generated_name);
  license.run();
  SqliteStatement generated(db, "SELECT id FROM repos WHERE name=?");
  generated.bind(1, generated_name);
  int64_t generated_id = generated.step() ? generated.column_int(0) : 0;
  generated.reset();
  SqliteStatement pairs(db,
                        "SELECT p.id, k.path || '/' || k.qualname || '/' FROM module_pairs p JOIN kernels k ON k.id = p.module_id "
                        "WHERE k.repo_id=?");
  SqliteStatement set_repo(db, "UPDATE module_pairs SET generated_repo_id=? WHERE id=?");
  SqliteStatement drop(db, "DELETE FROM module_pair_kernels WHERE pair_id=?");
  // The prefix is compared as text: paths may hold LIKE's wildcards.
  SqliteStatement link(db,
                       "INSERT OR IGNORE INTO module_pair_kernels(pair_id, kernel_id) SELECT DISTINCT ?1, kernel_id "
                       "FROM kernel_occurrences WHERE repo_id=?2 AND kernel_id IS NOT NULL "
                       "AND substr(path, 1, length(?3)) = ?3");
  int links = 0;
  pairs.bind(1, source_repo_id);
  while (pairs.step()) {
    int64_t pair = pairs.column_int(0);
    std::string prefix = pairs.column_text(1);
    drop.bind(1, pair);
    drop.run();
    if (!generated_id) continue;
    set_repo.bind(1, generated_id).bind(2, pair);
    set_repo.run();
    link.bind(1, pair).bind(2, generated_id).bind(3, prefix);
    link.run();
    links += sqlite3_changes(db);
  }
  tx.commit();
  return links;
}

std::vector<PairRecord> read_pairs(const Corpus& corpus, bool verified_only) {
  sqlite3* db = corpus.handle();
  std::vector<PairRecord> out;
  SqliteStatement s(db,
                    std::string("SELECT p.id, p.module_id, k.standalone, k.standalone_sha256, p.output_code, p.output_code_sha256, "
                                "p.inputs, p.outputs_match, p.max_abs_error, r.name, coalesce(k.commit_id, r.commit_id, ''), "
                                "k.path, k.qualname, coalesce(nullif(k.license, ''), nullif(r.license, ''), r.license_file, '') FROM module_pairs p "
                                "JOIN kernels k ON k.id = p.module_id JOIN repos r ON r.id = k.repo_id "
                                "WHERE p.compiled_ok = 1") +
                        (verified_only ? " AND p.outputs_match = 1" : "") + " ORDER BY p.id");
  SqliteStatement kernels(db, "SELECT kernel_id FROM module_pair_kernels WHERE pair_id=? ORDER BY kernel_id");
  while (s.step()) {
    PairRecord r;
    r.pair_id = s.column_int(0);
    r.module_id = s.column_int(1);
    r.pytorch_code = s.column_text(2);
    r.module_sha256 = s.column_text(3);
    nlohmann::json graphs = nlohmann::json::parse(s.column_text(4), nullptr, false);
    std::vector<std::string> code;
    if (graphs.is_array())
      for (const auto& g : graphs)
        if (g.is_string()) code.push_back(g.get<std::string>());
    r.triton_code = joined_output_code(code);
    r.output_sha256 = s.column_text(5);
    r.inputs = nlohmann::json::parse(s.column_text(6), nullptr, false);
    if (r.inputs.is_discarded()) r.inputs = nlohmann::json::object();
    r.verified = s.column_int(7) != 0;
    if (!s.column_is_null(8)) r.max_abs_error = sqlite3_column_double(s.raw(), 8);
    r.repo = s.column_text(9);
    r.commit = s.column_text(10);
    r.path = s.column_text(11);
    r.qualname = s.column_text(12);
    r.license = s.column_text(13);
    kernels.bind(1, r.pair_id);
    while (kernels.step()) r.kernel_ids.push_back(kernels.column_int(0));
    kernels.reset();
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace mine
