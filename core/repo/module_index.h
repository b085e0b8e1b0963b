#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mine {

// Where an import lands inside the repository: a module file, a package (`__init__.py` plus its
// folder) or a namespace package (a folder without `__init__.py`: no file, only submodules).
struct ModuleLocation {
  std::string file;  // repository-relative .py path; empty for a namespace package
  std::string dir;   // folder that holds the submodules; empty for a plain module file
  bool found() const { return !file.empty() || !dir.empty(); }
};

// Maps the Python files of one tree to the module names they can be imported as. There is no
// sys.path to consult, so absolute imports are tried against the roots Python would plausibly
// have on it: the importer's own folder and its non-package ancestors (script and test layouts),
// the repository root, and any other folder that holds a regular package (`src/`, `python/`).
class ModuleIndex {
 public:
  explicit ModuleIndex(const std::vector<std::string>& python_paths);

  // `import a.b.c` / `from a.b.c import x` as written in `importer`. Not found means the module
  // lives outside the repository (torch, triton, the standard library).
  // `top`, when given, receives the location of the first component under the same root (what
  // `import a.b.c` binds to `a`).
  ModuleLocation absolute(const std::string& dotted, const std::string& importer, ModuleLocation* top = nullptr) const;
  // `from ..a.b import x` in `importer`: `level` leading dots, `dotted` may be empty.
  ModuleLocation relative(const std::string& dotted, int level, const std::string& importer) const;
  // Either, as the import says: relative with leading dots (`level` > 0), else absolute.
  ModuleLocation imported(const std::string& dotted, int level, const std::string& importer) const {
    return level > 0 ? relative(dotted, level, importer) : absolute(dotted, importer);
  }
  // The submodule `name` of a package folder, if the repository has it.
  ModuleLocation submodule(const std::string& package_dir, const std::string& name) const;

  bool has_file(const std::string& path) const { return files_.count(path) > 0; }
  // Names the root package (a root `__init__.py`) is imported by in its own files (root_package.h).
  void set_root_package_names(std::set<std::string> names) { root_names_ = std::move(names); }

 private:
  ModuleLocation under(const std::string& root, const std::vector<std::string>& parts) const;
  bool is_package(const std::string& dir) const { return packages_.count(dir) > 0; }
  // A package an import statement can name: a folder with an `__init__.py` whose name is an
  // identifier. `llama-v2/__init__.py` makes no package Python can import as such (no dotted
  // name spells it), so for the files under it that folder is where they run from: a root, as a
  // plain folder is (for them only, like any script folder: not a source root of the repository).
  bool importable_package(const std::string& dir) const;

  std::set<std::string> files_;     // every .py path
  std::set<std::string> dirs_;      // every folder holding a .py file, at any depth ("" = root)
  std::set<std::string> packages_;  // folders with an __init__.py
  std::vector<std::string> source_roots_;  // non-package folders that hold a regular package
  std::set<std::string> root_names_;       // what the root package is imported as, if it is one
};

// Folder part of a '/' separated path ("" for a top-level file).
std::string parent_dir(const std::string& path);

}  // namespace mine
