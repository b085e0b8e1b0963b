#include "plugins/cuda/include_resolver.h"

#include "plugins/cuda/cuda_source.h"
#include "plugins/cuda/path_parts.h"

#include <functional>
#include <mutex>
#include <tuple>

namespace mine {
namespace {

// Headers of vendored libraries (cutlass, a copy of CUB) can run to megabytes; past this much text
// per scanned file, includes stay unresolved (and named, as before).
constexpr size_t kMaxParsedBytes = 8u << 20;

// A header's parse, shared by every resolver that reads the same text and by the scan of the
// header itself: each scanned file has a resolver of its own, and a repository's units include
// the same few headers (Liger-Kernel parsed its headers 125 times for 10 units, 3.2 G of its
// 15 G instructions), which are often scanned for kernels of their own too. A CudaSource is the
// parse of its text alone and is only read once built, by any thread. Kept by path and text (the
// text compared in full on a hit); past as much text as one file's units may pull in, the kept
// parses start over (those in use live on with the resolvers holding them), so memory stays
// within what one more file's resolver held before.
constexpr size_t kKeptBytes = kMaxParsedBytes;

}  // namespace

std::shared_ptr<const CudaSource> shared_parse(const std::string& path, std::string_view text) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, size_t, size_t>, std::shared_ptr<const CudaSource>> kept;
  static size_t kept_bytes = 0;
  auto key = std::make_tuple(path, text.size(), std::hash<std::string_view>{}(text));
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = kept.find(key);
    if (found != kept.end() && found->second->text() == text) return found->second;
  }
  auto source = std::make_shared<const CudaSource>(std::string(text));  // outside the lock: parses run in parallel
  std::lock_guard<std::mutex> lock(mutex);
  if (kept_bytes + text.size() > kKeptBytes) {
    kept.clear();
    kept_bytes = 0;
  }
  if (kept.emplace(key, source).second) kept_bytes += text.size();
  return source;
}

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
  return (parsed_[path] = shared_parse(path, text)).get();
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
