#include "corpus/inductor_store.h"

#include <set>

#include "core/sha256.h"
#include "corpus/sqlite_statement.h"
#include "plugins/inductor/inductor_records.h"

namespace mine {
namespace {

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

// `ab/<hash>.py`: the part of a cache path that is the same wherever the cache folder sits.
std::string cache_tail(const std::string& path) {
  size_t last = path.rfind('/');
  if (last == std::string::npos || last == 0) return path;
  size_t before = path.rfind('/', last - 1);
  return before == std::string::npos ? path : path.substr(before + 1);
}

std::string record_kind(const ExtractedKernel& k) {
  auto it = k.meta.find(inductor::kRecord);
  return it != k.meta.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string meta_text(const nlohmann::json& meta, const char* key) {
  auto it = meta.find(key);
  return it != meta.end() && it->is_string() ? it->get<std::string>() : "";
}

const nlohmann::json& meta_or(const nlohmann::json& meta, const char* key, const nlohmann::json& fallback) {
  auto it = meta.find(key);
  return it != meta.end() ? *it : fallback;
}

// The fx graph locations of the nodes a kernel implements, in graph order.
nlohmann::json pytorch_code_of(const nlohmann::json& meta, const nlohmann::json* graph) {
  nlohmann::json out = nlohmann::json::array();
  if (!graph || !graph->contains("nodes") || !graph->contains("locations")) return out;
  const auto& nodes = graph->at("nodes");
  const auto& locations = graph->at("locations");
  if (!nodes.is_object() || !locations.is_array()) return out;
  std::set<int64_t> picked;
  auto mapping = meta.find("node_mapping");
  if (mapping == meta.end() || !mapping->is_object()) return out;
  for (const auto& [source, fx_nodes] : mapping->items()) {
    // 2023 output maps `aten.op => node`; later `source node => nodes`. Either way the nodes
    // are FX names, and a source node is often an FX name too.
    auto take = [&](const std::string& name) {
      auto at = nodes.find(name);
      if (at != nodes.end() && at->is_number_integer()) picked.insert(at->get<int64_t>());
    };
    take(source);
    if (fx_nodes.is_array())
      for (const auto& n : fx_nodes)
        if (n.is_string()) take(n.get<std::string>());
  }
  for (int64_t i : picked)
    if (i >= 0 && static_cast<size_t>(i) < locations.size()) out.push_back(locations[static_cast<size_t>(i)]);
  return out;
}

}  // namespace

InductorRows::InductorRows(const std::vector<KernelRecord>& kernels)
    : kernels_(kernels), owns_row_(kernels.size(), true), row_id_(kernels.size(), 0), canonical_(kernels.size(), -1) {
  std::map<std::string, const nlohmann::json*> graphs;  // folder -> fx graph summary
  std::map<std::string, std::vector<size_t>> by_source;
  std::map<std::string, size_t> cache_files;           // cache tail -> record
  std::vector<size_t> kernels_in_order;
  std::vector<std::string> sha(kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelRecord& rec = kernels[i];
    if (rec.plugin != inductor::kPlugin) continue;
    owns_row_[i] = false;
    std::string kind = record_kind(rec.kernel);
    if (kind == inductor::kFxGraph) {
      graphs[parent_dir(rec.path)] = &rec.kernel.meta;
      continue;
    }
    kernels_in_order.push_back(i);
    if (kind == inductor::kMissing) continue;
    sha[i] = sha256_hex(rec.kernel.source);
    by_source[sha[i]].push_back(i);
    if (meta_text(rec.kernel.meta, "source_origin") == "cache_module") cache_files.emplace(cache_tail(rec.path), i);
  }
  for (const auto& [_, group] : by_source) {
    size_t owner = group.front();
    for (size_t i : group)
      if (!kernels[i].kernel.meta.value("graph", nlohmann::json()).is_null()) {
        owner = i;  // a row that names its graph, ATen ops and PyTorch code says more
        break;
      }
    owns_row_[owner] = true;
    for (size_t i : group) canonical_[i] = static_cast<long>(owner);
  }
  for (size_t i : kernels_in_order) {
    const ExtractedKernel& k = kernels[i].kernel;
    Occurrence o{i, canonical_[i], meta_text(k.meta, "source_origin"), nlohmann::json::array()};
    if (record_kind(k) == inductor::kMissing) {
      auto found = cache_files.find(cache_tail(meta_text(k.meta, "kernel_path")));
      if (found != cache_files.end()) {
        o.kernel_record = canonical_[found->second];
        o.origin = "cache_file";
      }
    }
    auto graph = graphs.find(parent_dir(kernels[i].path));
    o.pytorch_code = pytorch_code_of(k.meta, graph == graphs.end() ? nullptr : graph->second);
    occurrences_.push_back(std::move(o));
  }
}

int InductorRows::store(sqlite3* db, int64_t scan_id, int64_t repo_id, const std::string& repo_name) const {
  SqliteStatement drop(db, "DELETE FROM kernel_occurrences WHERE repo_id=?");
  drop.bind(1, repo_id);
  drop.run();
  if (occurrences_.empty()) return 0;
  SqliteStatement add(db,
                      "INSERT INTO kernel_occurrences(kernel_id, repo_id, path, graph, name, qualname, start_line, "
                      "end_line, category, source_origin, kernel_path, aten_ops, source_nodes, pytorch_code, meta) "
                      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  SqliteStatement set_meta(db, "UPDATE kernels SET meta=? WHERE id=?");
  SqliteStatement problem(db,
                          "INSERT INTO scan_errors(scan_id, repo, path, line, kind, message) VALUES (?,?,?,?,?,?)");
  static const nlohmann::json kNone;
  int problems = 0;
  for (const auto& o : occurrences_) {
    const KernelRecord& rec = kernels_[o.record];
    nlohmann::json meta = rec.kernel.meta;
    meta.erase(inductor::kRecord);
    meta["source_origin"] = o.origin;
    meta["pytorch_code"] = o.pytorch_code;
    const ExtractedKernel* kernel = o.kernel_record >= 0 ? &kernels_[static_cast<size_t>(o.kernel_record)].kernel : nullptr;
    int64_t kernel_id = kernel ? row_id_[static_cast<size_t>(o.kernel_record)] : 0;
    if (kernel_id) {
      add.bind(1, kernel_id);
    } else {
      add.bind_null(1);
    }
    add.bind(2, repo_id).bind(3, rec.path);
    const nlohmann::json& graph = meta_or(meta, "graph", kNone);
    if (graph.is_string()) {
      add.bind(4, graph.get<std::string>());
    } else {
      add.bind_null(4);
    }
    add.bind(5, kernel ? kernel->name : rec.kernel.name).bind(6, rec.kernel.qualname);
    add.bind(7, rec.kernel.start_line).bind(8, rec.kernel.end_line);
    std::string category = kernel ? meta_text(kernel->meta, "category") : "";
    add.bind_optional(9, category).bind(10, o.origin).bind_optional(11, meta_text(meta, "kernel_path"));
    add.bind(12, meta_or(meta, "aten_ops", nlohmann::json::array()).dump());
    add.bind(13, meta_or(meta, "source_nodes", nlohmann::json::array()).dump());
    add.bind(14, o.pytorch_code.dump()).bind(15, meta.dump());
    add.run();

    if (kernel && static_cast<long>(o.record) == o.kernel_record && !o.pytorch_code.empty()) {
      set_meta.bind(1, meta.dump()).bind(2, kernel_id);
      set_meta.run();
    }
    if (!kernel) {
      problem.bind(1, scan_id).bind(2, repo_name).bind(3, rec.path).bind(4, rec.kernel.start_line);
      problem.bind(5, "missing_source");
      problem.bind(6, "inductor: kernel " + rec.kernel.qualname + ": no inline source, and its cache file " +
                          meta_text(meta, "kernel_path") +
                          " is neither in the scanned tree nor under --inductor-cache ($MINE_INDUCTOR_CACHE); recorded in "
                          "kernel_occurrences with kernel_id NULL");
      problem.run();
      ++problems;
    }
  }
  return problems;
}

}  // namespace mine
