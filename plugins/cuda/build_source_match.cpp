#include "plugins/cuda/build_source_match.h"

#include <fnmatch.h>

#include "plugins/cuda/include_resolver.h"
#include "plugins/cuda/path_parts.h"

namespace mine {
namespace {

// `./a/../b/k.cu` -> `b/k.cu`; what climbs above the start is dropped (a tail is all it can be).
std::string tail_of(const std::string& path) {
  std::string p = path;
  while (!p.empty() && p[0] == '/') p.erase(0, 1);
  if (auto n = normalized_path(p)) return *n;
  std::string out;
  for (size_t start = 0; start <= p.size();) {
    size_t slash = p.find('/', start);
    std::string part = p.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part == "..") out.clear();
    else if (!part.empty() && part != ".") out += (out.empty() ? "" : "/") + part;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

bool glob_matches(const std::string& pattern, const std::string& path) {
  if (fnmatch(pattern.c_str(), path.c_str(), FNM_PATHNAME) == 0) return true;
  // Python's recursive `**` spans any number of folders, none included.
  if (pattern.find("**") == std::string::npos) return false;
  std::string none = pattern;
  for (size_t at; (at = none.find("**/")) != std::string::npos;) none.erase(at, 3);
  return fnmatch(none.c_str(), path.c_str(), FNM_PATHNAME) == 0 || fnmatch(pattern.c_str(), path.c_str(), 0) == 0;
}

}  // namespace

bool source_names_file(const StaticValue& source, const std::string& caller_path, const std::string& file_path,
                       const std::function<std::vector<std::string>(const std::string&)>& paths_ending) {
  const std::string& text = source.text;
  size_t unknown_at = text.rfind(StaticValue::kUnknownPart);
  bool whole = unknown_at == std::string::npos;
  std::string known = whole ? text : text.substr(unknown_at + 1);
  if (known.empty()) return false;

  if (source.pattern) {
    if (!whole) return glob_matches("*/" + tail_of(known), file_path) || glob_matches(tail_of(known), file_path);
    std::string pattern = source.rooted ? tail_of(known) : tail_of(joined(folder_of(caller_path), known));
    return glob_matches(pattern, file_path);
  }
  std::string tail = tail_of(known);
  if (tail.empty()) return false;
  size_t slash = tail.rfind('/');
  std::string name = slash == std::string::npos ? tail : tail.substr(slash + 1);
  if (file_path != name && (file_path.size() <= name.size() ||
                            file_path.compare(file_path.size() - name.size(), name.size(), name) != 0 ||
                            file_path[file_path.size() - name.size() - 1] != '/'))
    return false;  // another file's name: the common case, answered without the repository's paths
  std::vector<std::string> named = paths_ending(name);
  auto holds = [&](const std::string& p) {
    for (const auto& n : named)
      if (n == p) return true;
    return false;
  };
  if (whole && source.rooted) return tail_of(known) == file_path;
  if (whole && known[0] != '/') {
    std::string folder = folder_of(caller_path);
    for (bool more = true; more;) {
      if (auto p = normalized_path(joined(folder, known)); p && holds(*p)) return *p == file_path;
      more = !folder.empty();
      folder = folder_of(folder);
    }
  }
  // The longest tail some file of the repository ends in; of those files, the nearest the caller.
  for (std::string t = tail;;) {
    std::string best;
    size_t best_shared = 0;
    for (const auto& p : named) {
      if (p != t && (p.size() <= t.size() || p.compare(p.size() - t.size(), t.size(), t) != 0 ||
                     p[p.size() - t.size() - 1] != '/'))
        continue;
      size_t shared = shared_folders(p, caller_path);
      if (best.empty() || shared > best_shared) best = p, best_shared = shared;
    }
    if (!best.empty()) return best == file_path;
    size_t cut = t.find('/');
    if (cut == std::string::npos) return false;
    t = t.substr(cut + 1);
  }
}

}  // namespace mine
