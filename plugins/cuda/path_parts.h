#pragma once
#include <string>

namespace mine {

// Repository-relative paths as the CUDA plugin compares them: an include's folder, a build
// script's folder, how far two paths share folders.

inline std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

inline std::string joined(const std::string& folder, const std::string& name) {
  return folder.empty() ? name : folder + "/" + name;
}

// How many leading folders `a` and `b` have in common.
inline size_t shared_folders(const std::string& a, const std::string& b) {
  size_t n = 0, i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    if (a[i] == '/') ++n;
    ++i;
  }
  return n;
}

}  // namespace mine
