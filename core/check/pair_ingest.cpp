#include "core/check/pair_ingest.h"

#include <algorithm>
#include <map>

#include "core/error.h"
#include "core/scan/memory_tree.h"
#include "core/scan/scanner.h"

namespace mine::check {
namespace {

std::string text_or_empty(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

const ExtractorPlugin* inductor_plugin() {
  for (const ExtractorPlugin* p : all_plugins())
    if (p->name() == "inductor") return p;
  throw Error("the inductor plugin is not built in");
}

}  // namespace

std::vector<ModulePair> take_module_pairs(std::vector<CheckResultRow>& rows, const std::string& results_file) {
  std::vector<ModulePair> out;
  for (auto& r : rows) {
    if (text_or_empty(r.extra, "checker") != "inductor") continue;
    nlohmann::json code = r.extra.contains("output_code") ? r.extra["output_code"] : nlohmann::json::array();
    const nlohmann::json info = r.extra.value("inductor", nlohmann::json::object());
    // Checked before anything is stored, as read_check_results checks the rest of the row.
    std::string where = results_file + ":" + std::to_string(r.line);
    if (!info.is_object()) throw Error::in(where, "`inductor` must be an object (nothing was stored)");
    if (!code.is_array() || !std::all_of(code.begin(), code.end(), [](const nlohmann::json& g) { return g.is_string(); }))
      throw Error::in(where, "`output_code` must be a list of strings, one per graph (nothing was stored)");
    for (const char* flag : {"eager_ok", "compiled_ok", "match"})
      if (info.contains(flag) && !info[flag].is_boolean())
        throw Error::in(where, std::string("`inductor.") + flag + "` must be true or false (nothing was stored)");
    r.extra.erase("output_code");
    if (!info.value("compiled_ok", false) || code.empty()) continue;
    ModulePair p;
    p.module_id = r.kernel_id;
    for (const auto& g : code) p.output_code.push_back(g.get<std::string>());
    p.inputs = info.value("inputs_used", nlohmann::json::object());
    p.tolerances = info.value("tolerances", nlohmann::json::object());
    p.deduce = info.value("deduce", nlohmann::json::array());
    p.eager_ok = info.value("eager_ok", false);
    p.compiled_ok = true;
    p.outputs_match = info.value("match", false);
    if (info.contains("max_abs_error") && info["max_abs_error"].is_number())
      p.max_abs_error = info["max_abs_error"].get<double>();
    p.torch_version = r.torch_version;
    p.triton_version = r.triton_version;
    p.gpu = r.gpu;
    p.results_file = results_file;
    out.push_back(std::move(p));
  }
  return out;
}

PairIngestOutcome store_pairs(Corpus& corpus, const std::vector<ModulePair>& pairs) {
  PairIngestOutcome outcome;
  if (pairs.empty()) return outcome;
  std::vector<int64_t> repos = store_module_pairs(corpus, pairs, outcome.unknown_modules);
  outcome.pairs = static_cast<int>(pairs.size() - outcome.unknown_modules.size());
  Scanner scanner({inductor_plugin()}, ScanOptions{});
  for (int64_t repo_id : repos) {
    GeneratedRepository generated = generated_repository(corpus, repo_id);
    std::map<std::string, std::string> files(generated.files.begin(), generated.files.end());
    auto tree = memory_tree(generated.name, std::move(files));
    RepoSnapshot snapshot = scanner.extract(*tree, generated.name);
    snapshot.commit_id = generated.commit_id;
    // The generated code is the source repository's, compiled: its kernels carry that license.
    snapshot.license.spdx_id = generated.license;
    snapshot.license.path = generated.license.empty() ? "" : "(source repository)";
    snapshot.license.confidence = generated.license.empty() ? 0 : 1;
    int64_t scan = corpus.begin_scan("check --ingest (inductor output code)", {{"repo", generated.source_name}});
    corpus.store(scan, snapshot);
    corpus.finish_scan(scan, {static_cast<int64_t>(snapshot.files.size()), static_cast<int64_t>(snapshot.files.size()),
                              static_cast<int64_t>(snapshot.kernels.size()), static_cast<int64_t>(snapshot.problems.size())});
    outcome.kernels += static_cast<int>(snapshot.kernels.size());
    outcome.links += link_pair_kernels(corpus, repo_id, generated.name);
  }
  return outcome;
}

}  // namespace mine::check
