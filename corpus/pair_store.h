#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "corpus/corpus.h"

namespace mine {

// A module's inductor-stage outcome as `mine check --ingest` records it (schema/010_pairs.sql).
struct ModulePair {
  int64_t module_id = 0;
  std::vector<std::string> output_code;  // Inductor's output code, one module per graph
  nlohmann::json inputs = nlohmann::json::object();
  nlohmann::json tolerances = nlohmann::json::object();
  nlohmann::json deduce = nlohmann::json::array();
  bool eager_ok = false, compiled_ok = false, outputs_match = false;
  std::optional<double> max_abs_error;
  std::string torch_version, triton_version, gpu, results_file;
};

// The output code of a pair's graphs as one text (what the export writes and hashes).
std::string joined_output_code(const std::vector<std::string>& graphs);

// Where graph `graph` of a module's output code lives in its generated repository.
std::string generated_path(const std::string& module_path, const std::string& qualname, size_t graph);

// Stores each pair, replacing the module's earlier one, in one transaction. Returns the ids of
// the source repositories whose pairs changed; `unknown` gets modules no longer in the corpus.
std::vector<int64_t> store_module_pairs(Corpus& corpus, const std::vector<ModulePair>& pairs,
                                        std::vector<int64_t>& unknown);

// Everything the generated repository of source repository `repo_id` holds: every pair's output
// code at generated_path, and the names the repository rows use.
struct GeneratedRepository {
  std::string source_name;     // repos.name of the source repository
  std::string name;            // 'inductor:' + source_name
  std::string commit_id;       // the source repository's
  std::string license;         // the source repository's (API, else its license file); SPDX or empty
  std::vector<std::pair<std::string, std::string>> files;  // path, code
};
GeneratedRepository generated_repository(const Corpus& corpus, int64_t repo_id);

// After the generated repository was stored as a scan: gives it the source repository's license,
// and links every pair of the source repository to the kernels found in its output code
// (through kernel_occurrences, so a kernel two modules share links to both). Returns the links.
int link_pair_kernels(Corpus& corpus, int64_t source_repo_id, const std::string& generated_name);

// A pair as `mine export --format pairs` reads it.
struct PairRecord {
  int64_t pair_id = 0, module_id = 0;
  std::string pytorch_code, module_sha256;  // the module's standalone
  std::string triton_code, output_sha256;   // the output code, graphs joined
  nlohmann::json inputs;
  bool verified = false;
  std::optional<double> max_abs_error;
  std::string repo, commit, path, qualname, license;
  std::vector<int64_t> kernel_ids;
};
// Every compiled pair, oldest first; only those whose outputs matched when `verified_only`.
std::vector<PairRecord> read_pairs(const Corpus& corpus, bool verified_only);

}  // namespace mine
