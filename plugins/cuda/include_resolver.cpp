#include "plugins/cuda/include_resolver.h"

#include "plugins/cuda/cuda_source.h"
#include "plugins/cuda/path_parts.h"

namespace mine {
namespace {

// Headers of vendored libraries (cutlass, a copy of CUB) can run to megabytes; past this much text
// per scanned file, includes stay unresolved (and named, as before).
constexpr size_t kMaxParsedBytes = 8u << 20;

}  // namespace

std::optional<std::string> normalized_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

IncludeResolver::IncludeResolver(ReadFile read, PathsEnding paths_ending)
    : read_(std::move(read)), paths_ending_(std::move(paths_ending)) {}

IncludeResolver::~IncludeResolver() = default;

const CudaSource* IncludeResolver::parsed(const std::string& path, std::string_view text) {
  auto found = parsed_.find(path);
  if (found != parsed_.end()) return found->second.get();
  if (bytes_ + text.size() > kMaxParsedBytes) return nullptr;
  bytes_ += text.size();
  return (parsed_[path] = std::make_unique<CudaSource>(std::string(text))).get();
}

std::optional<IncludeResolver::Header> IncludeResolver::resolve(const std::string& name, const std::string& includer) {
  auto key = std::make_pair(name, folder_of(includer));
  if (auto done = resolved_.find(key); done != resolved_.end()) return done->second;
  std::optional<Header> out;
  auto take = [&](const std::string& path) {
    auto text = read_(path);
    if (!text) return false;
    const CudaSource* source = parsed(path, *text);
    if (!source) return false;
    out = Header{path, source};
    return true;
  };
  // Next to the includer, then under each folder above it.
  std::string folder = key.second;
  for (bool more = true; more && !out;) {
    if (auto p = normalized_path(joined(folder, name)); p && *p != includer) take(*p);
    more = !folder.empty();
    folder = folder_of(folder);
  }
  // Elsewhere: the file ending in the name that shares the most folders with the includer.
  if (!out && name.find("..") == std::string::npos) {
    std::string best;
    size_t best_shared = 0;
    for (const auto& p : paths_ending_(name)) {
      size_t shared = shared_folders(p, includer);
      if (p != includer && (best.empty() || shared > best_shared)) {
        best = p;
        best_shared = shared;
      }
    }
    if (!best.empty()) take(best);
  }
  resolved_[key] = out;
  return out;
}

}  // namespace mine
