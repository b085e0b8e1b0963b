#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/python/dependency_closure.h"
#include "core/repo/module_index.h"

namespace mine {

struct ResolutionCache;
// A cache for one thread's closures over one scan (not thread-safe: one per worker).
std::shared_ptr<ResolutionCache> make_resolution_cache();

// What the cross-file closure can see of the repository being scanned.
struct Repository {
  const ModuleIndex* index = nullptr;
  // Parsed module of a repository file, or nullptr when it cannot be read or analysed.
  std::function<const PythonModule*(const std::string& path)> module;
  // Top-level packages kept as imports even when the tree holds them: scanning triton's or
  // torch's own repository must not inline the kernel language into every kernel.
  std::set<std::string> never_inline;
  // Resolutions reused across the kernels of a scan; optional.
  std::shared_ptr<ResolutionCache> cache;
  // Paths of the repository's Python files whose text calls `name` (core/repo/call_index.h), for
  // plugins that read what a definition is called with elsewhere; unset: none.
  std::function<std::vector<std::string>(const std::string& name)> files_calling;
  // Any file of the tree as text, by path (headers a C++ unit includes); unset: none.
  std::function<std::optional<std::string>(const std::string& path)> file_text;
  // Paths of the tree's files equal to a tail or ending in "/" + it, in path order; unset: none.
  std::function<std::vector<std::string>(const std::string& tail)> paths_ending;
};

// Transitive closure of a kernel across the files of a repository, and its standalone module:
// imports of modules outside the repository are kept, definitions from other files of the
// repository are inlined (modules an import depends on first), clashing names are renamed
// deterministically with every reference rewritten, and `H.fast_exp` through a module alias
// becomes a reference to the inlined `fast_exp`. A repository of one file gives the same result
// as the same-file DependencyClosure.
class RepositoryClosure {
 public:
  RepositoryClosure(const Repository& repo, const PythonModule& module, DependencyLabeler labeler = {})
      : repo_(repo), module_(module), labeler_(std::move(labeler)) {}

  ClosureResult compute(const ClosureRoot& root) const;

 private:
  const Repository& repo_;
  const PythonModule& module_;
  DependencyLabeler labeler_;
};

}  // namespace mine
