#include "core/export/decontamination.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/dedup/signature_batch.h"
#include "core/error.h"
#include "core/python/syntax_tree.h"

namespace mine {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void strings_of(const nlohmann::json& v, const std::string& file, const std::string& label,
                std::vector<BenchmarkItem>& out) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() >= 40) out.push_back({file, label, s});
  } else if (v.is_array() || v.is_object()) {
    for (const auto& x : v) strings_of(x, file, label, out);
  }
}

}  // namespace

std::vector<BenchmarkItem> read_benchmark_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error::in(path, "cannot read benchmark file");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  std::vector<BenchmarkItem> out;
  if (ends_with(path, ".jsonl")) {
    std::istringstream lines(text);
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto v = nlohmann::json::parse(line, nullptr, false);
      if (v.is_discarded()) throw Error::in(path + ":" + std::to_string(n), "not valid JSON");
      strings_of(v, path, "line " + std::to_string(n), out);
    }
    return out;
  }
  if (ends_with(path, ".json")) {
    auto v = nlohmann::json::parse(text, nullptr, false);
    if (v.is_discarded()) throw Error::in(path, "not valid JSON");
    if (v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) strings_of(v[i], path, "item " + std::to_string(i + 1), out);
    } else {
      strings_of(v, path, "whole file", out);
    }
    return out;
  }
  out.push_back({path, "whole file", text});
  auto tree = SyntaxTree::parse(text);
  for_each_named_child(tree->root(), [&](TSNode n) {
    TSNode def = n;
    if (is_type(n, "decorated_definition")) def = field(n, "definition");
    if (!is_type(def, "function_definition") && !is_type(def, "class_definition")) return;
    TSNode name = field(def, "name");
    std::string label = std::string(is_type(def, "class_definition") ? "class " : "def ") +
                        std::string(ts_node_is_null(name) ? "?" : tree->text_of(name));
    out.push_back({path, label, std::string(tree->text_of(n))});
  });
  return out;
}

Decontaminator::Decontaminator(std::vector<BenchmarkItem> items, const dedup::MinHasher& hasher, double threshold,
                               int threads)
    : items_(std::move(items)),
      index_(hasher.params().perms, dedup::choose_bands(threshold, hasher.params().perms)),
      threshold_(threshold) {
  dedup::SignedBatch batch = dedup::sign_documents(
      items_.size(), [&](size_t i) { return std::string_view(items_[i].code); }, hasher, threads, false);
  for (size_t i = 0; i < items_.size(); ++i) index_.add(batch.signatures.row(i));
}

std::optional<size_t> Decontaminator::match(const uint32_t* signature) const {
  auto hits = index_.near(signature, threshold_);
  if (hits.empty()) return std::nullopt;
  return hits.front();
}

}  // namespace mine
