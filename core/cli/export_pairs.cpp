#include "core/cli/export_pairs.h"

#include <iostream>
#include <map>

#include "core/cli/command.h"
#include "core/dedup/min_hasher.h"
#include "core/dedup/signature_batch.h"
#include "core/export/atomic_file.h"
#include "core/export/decontamination.h"
#include "core/export/kernel_language.h"
#include "corpus/corpus.h"
#include "corpus/pair_store.h"

namespace mine::cli {
namespace {

const char* const kPairPrompt =
    "Here is a PyTorch module; write Triton kernels and a `call` wrapper that implement it.";

std::string split_file(const std::string& out, const std::string& split) {
  size_t slash = out.find_last_of('/');
  size_t dot = out.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return out + "." + split;
  return out.substr(0, dot) + "." + split + out.substr(dot);
}

nlohmann::ordered_json provenance(const PairRecord& p) {
  auto or_null = [](const std::string& s) { return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s); };
  return {{"repo", p.repo}, {"commit", or_null(p.commit)}, {"path", p.path}, {"license", or_null(p.license)}};
}

nlohmann::ordered_json pair_record(const PairRecord& p) {
  nlohmann::ordered_json r = {{"pytorch_code", p.pytorch_code},
                              {"triton_code", p.triton_code},
                              {"inputs", p.inputs},
                              {"verified", p.verified}};
  r["max_abs_error"] = p.max_abs_error ? nlohmann::ordered_json(*p.max_abs_error) : nlohmann::ordered_json(nullptr);
  r["module"] = p.qualname;
  r.update(provenance(p));
  r["kernel_ids"] = p.kernel_ids;
  return r;
}

// How the harness called the module, for the prompt: `Mlp(dim=16)` on x: float32[2, 16, 16].
std::string call_description(const PairRecord& p) {
  if (!p.inputs.is_object()) return "";
  const nlohmann::json init_args = p.inputs.value("init", nlohmann::json::object());
  const nlohmann::json forward = p.inputs.value("forward", nlohmann::json::array());
  std::string init;
  for (const auto& [name, value] : init_args.items()) {
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (text.rfind("<", 0) == 0) text = "...";  // a stand-in object (`<config stand-in>`): no Python to show
    init += (init.empty() ? "" : ", ") + name + "=" + text;
  }
  std::string tensors;
  for (const auto& t : forward) {
    if (!t.is_object()) continue;
    if (t.contains("value")) {  // a number the forward takes (`i: int`, `size: Tuple[int, int]`)
      const nlohmann::json& v = t["value"];
      std::string text = v.dump();
      if (v.is_array()) {  // a Python tuple, `(16,)` when it has one element
        text = "(";
        for (size_t i = 0; i < v.size(); ++i) text += (i ? ", " : "") + v[i].dump();
        text += v.size() == 1 ? ",)" : ")";
      }
      tensors += (tensors.empty() ? "" : ", ") + t.value("name", std::string("?")) + "=" + text;
      continue;
    }
    std::string shape;
    for (const auto& d : t.value("shape", nlohmann::json::array())) shape += (shape.empty() ? "" : ", ") + d.dump();
    tensors += (tensors.empty() ? "" : ", ") + t.value("name", std::string("?")) + ": " +
               t.value("dtype", std::string("float32")) + "[" + shape + "]";
  }
  if (tensors.empty()) return "";
  return "\n\nIt is built as `" + p.qualname + "(" + init + ")` and called on " + tensors + ".";
}

nlohmann::ordered_json chat_pair(const PairRecord& p) {
  nlohmann::ordered_json user = {{"role", "user"},
                                 {"content", std::string(kPairPrompt) + "\n\n" + fenced(p.pytorch_code, "python") +
                                                 call_description(p)}};
  nlohmann::ordered_json assistant = {{"role", "assistant"}, {"content", fenced(p.triton_code, "python")}};
  nlohmann::ordered_json r = {{"messages", nlohmann::ordered_json::array({user, assistant})}, {"verified", p.verified}};
  r.update(provenance(p));
  return r;
}

}  // namespace

int export_pairs(const PairExport& o) {
  auto corpus = Corpus::open(o.db, Corpus::Access::ReadOnly);
  std::vector<PairRecord> all = read_pairs(*corpus, false);

  // 1. License, 2. exact duplicates on either side (the oldest pair of each module and each output code stays).
  std::set<std::string> modules_seen, outputs_seen;
  std::vector<const PairRecord*> kept;
  size_t license_removed = 0, duplicates = 0, without_triton = 0;
  for (const auto& p : all) {
    // Inductor sometimes makes no Triton kernel at all (a matmul and attention handed to
    // extern kernels): nothing of Triton to learn from such a pair.
    if (p.kernel_ids.empty()) {
      ++without_triton;
      continue;
    }
    if (o.permissive && !o.permissive_licenses->count(p.license)) {
      ++license_removed;
      continue;
    }
    bool module_new = modules_seen.insert(p.module_sha256).second;
    bool output_new = outputs_seen.insert(p.output_sha256).second;
    if (!module_new || !output_new) {
      ++duplicates;
      continue;
    }
    kept.push_back(&p);
  }

  // 3. Decontamination: either side near a benchmark item drops the pair.
  size_t contaminated = 0;
  if (!o.benchmarks.empty() && !kept.empty()) {
    std::vector<BenchmarkItem> items;
    for (const auto& f : o.benchmarks) {
      auto more = read_benchmark_file(f);
      items.insert(items.end(), more.begin(), more.end());
    }
    dedup::MinHasher hasher;
    Decontaminator decon(std::move(items), hasher, 0.85, o.threads);
    dedup::SignedBatch modules = dedup::sign_documents(
        kept.size(), [&](size_t i) { return std::string_view(kept[i]->pytorch_code); }, hasher, o.threads, false);
    dedup::SignedBatch outputs = dedup::sign_documents(
        kept.size(), [&](size_t i) { return std::string_view(kept[i]->triton_code); }, hasher, o.threads, false);
    std::vector<const PairRecord*> clean;
    for (size_t i = 0; i < kept.size(); ++i) {
      if (decon.match(modules.signatures.row(i)) || decon.match(outputs.signatures.row(i))) ++contaminated;
      else clean.push_back(kept[i]);
    }
    kept = std::move(clean);
  }

  // 4. Splits by repository.
  std::vector<std::string> repos;
  for (const PairRecord* p : kept) repos.push_back(p->repo);
  std::vector<int> split_of = o.splits.empty() ? std::vector<int>(kept.size(), 0)
                                               : assign_splits(repos, std::vector<int64_t>(kept.size(), -1), o.splits);
  std::vector<std::string> names{"train"};
  for (const auto& s : o.splits) names.push_back(s.name);
  std::vector<std::unique_ptr<AtomicFile>> files;
  for (size_t s = 0; s < names.size(); ++s)
    files.push_back(std::make_unique<AtomicFile>(s == 0 ? o.out : split_file(o.out, names[s])));
  std::vector<size_t> written(names.size(), 0);
  size_t verified = 0;
  for (size_t i = 0; i < kept.size(); ++i) {
    nlohmann::ordered_json r = o.chat ? chat_pair(*kept[i]) : pair_record(*kept[i]);
    files[split_of[i]]->write(r.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    ++written[split_of[i]];
    verified += kept[i]->verified ? 1 : 0;
  }
  for (auto& f : files) f->commit();
  if (!o.quiet) {
    std::cout << "export: " << all.size() << " compiled PyTorch/Inductor pairs\n";
    std::cout << "  removed, output code without a Triton kernel (extern kernels only): " << without_triton << "\n";
    if (o.permissive) std::cout << "  removed, license not permissive or unknown: " << license_removed << "\n";
    std::cout << "  removed as exact duplicates (module or output code written already): " << duplicates << "\n";
    if (!o.benchmarks.empty()) std::cout << "  removed as near duplicates of benchmark items: " << contaminated << "\n";
    std::cout << "  verified (compiled outputs match eager): " << verified << " of " << kept.size() << "\n";
    for (size_t s = 0; s < names.size(); ++s)
      std::cout << "  written " << names[s] << ": " << written[s] << " -> " << files[s]->path() << "\n";
  }
  return kExitOk;
}

}  // namespace mine::cli
