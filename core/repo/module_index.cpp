#include "core/repo/module_index.h"

#include <algorithm>
#include <cctype>

namespace mine {
namespace {

std::vector<std::string> split_dotted(const std::string& dotted) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= dotted.size() && !dotted.empty()) {
    size_t dot = dotted.find('.', pos);
    if (dot == std::string::npos) dot = dotted.size();
    parts.push_back(dotted.substr(pos, dot - pos));
    pos = dot + 1;
  }
  return parts;
}

std::string join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

// Whether a folder name can be one component of a dotted module name (non-ASCII letters are
// identifier characters in Python 3 too, so bytes of UTF-8 sequences count as letters).
bool identifier(const std::string& name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  for (unsigned char c : name) {
    if (!(std::isalnum(c) || c == '_' || c >= 0x80)) return false;
  }
  return true;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

ModuleIndex::ModuleIndex(const std::vector<std::string>& python_paths) {
  dirs_.insert("");
  for (const auto& p : python_paths) {
    if (!ends_with(p, ".py")) continue;
    files_.insert(p);
    std::string d = parent_dir(p);
    if (p == join(d, "__init__.py")) packages_.insert(d);
    for (;;) {
      dirs_.insert(d);
      if (d.empty()) break;
      d = parent_dir(d);
    }
  }
  for (const auto& pkg : packages_) {
    if (pkg.empty()) continue;
    std::string root = parent_dir(pkg);
    if (!is_package(root)) source_roots_.push_back(root);
  }
  std::sort(source_roots_.begin(), source_roots_.end(), [](const std::string& a, const std::string& b) {
    auto depth = [](const std::string& s) { return s.empty() ? 0 : 1 + std::count(s.begin(), s.end(), '/'); };
    return depth(a) != depth(b) ? depth(a) < depth(b) : a < b;
  });
  source_roots_.erase(std::unique(source_roots_.begin(), source_roots_.end()), source_roots_.end());
}

bool ModuleIndex::importable_package(const std::string& dir) const {
  return is_package(dir) && identifier(dir.substr(dir.rfind('/') + 1));
}

ModuleLocation ModuleIndex::submodule(const std::string& package_dir, const std::string& name) const {
  std::string base = join(package_dir, name);
  if (files_.count(base + ".py")) return {base + ".py", ""};
  if (files_.count(base + "/__init__.py")) return {base + "/__init__.py", base};
  if (dirs_.count(base)) return {"", base};
  return {};
}

ModuleLocation ModuleIndex::under(const std::string& root, const std::vector<std::string>& parts) const {
  ModuleLocation at{"", root};
  for (const auto& part : parts) {
    if (at.dir.empty() && !at.file.empty()) return {};  // a plain module has no submodules
    at = submodule(at.dir, part);
    if (!at.found()) return {};
  }
  return at;
}

ModuleLocation ModuleIndex::absolute(const std::string& dotted, const std::string& importer,
                                     ModuleLocation* top) const {
  std::vector<std::string> parts = split_dotted(dotted);
  if (parts.empty()) return {};
  // A namespace folder only stands for a module when something under it is a real file: an
  // installed package of the same name (say a `triton/` folder of benchmarks) would win in Python.
  auto usable = [&](const ModuleLocation& m) { return m.found() && !m.file.empty(); };

  // The importer's folder and its ancestors that are not packages (scripts, tests, notebooks).
  std::string d = parent_dir(importer);
  for (;;) {
    if (!importable_package(d) || d.empty()) {
      ModuleLocation m = under(d, parts);
      if (usable(m)) {
        if (top) *top = under(d, {parts.front()});
        return m;
      }
    }
    if (d.empty()) break;
    d = parent_dir(d);
  }
  // Folders that hold a regular package (`src/mypkg/__init__.py`): only for that package, so
  // a stray `math.py` in some folder never shadows the standard library.
  for (const auto& root : source_roots_) {
    if (!is_package(join(root, parts.front()))) continue;
    ModuleLocation m = under(root, parts);
    if (usable(m)) {
      if (top) *top = under(root, {parts.front()});
      return m;
    }
  }
  // The repository root as the package it is installed as (`from fast_moe.kernels.utils import
  // f` in fast_moe's own files, whose root holds `__init__.py`).
  if (root_names_.count(parts.front()) && is_package("")) {
    std::vector<std::string> rest(parts.begin() + 1, parts.end());
    ModuleLocation m = rest.empty() ? ModuleLocation{"__init__.py", ""} : under("", rest);
    if (usable(m)) {
      if (top) *top = ModuleLocation{"__init__.py", ""};
      return m;
    }
  }
  // A package nested in another that imports itself by its own top-level name (a vendored copy,
  // `unsloth_zoo/_vendored/fla/ops/x.py` doing `from fla.ops.utils import exp`): its files are
  // written for its folder's parent on sys.path, so that is where the import lands.
  for (d = parent_dir(importer); !d.empty(); d = parent_dir(d)) {
    if (d.substr(d.rfind('/') + 1) != parts.front() || !is_package(d)) continue;
    std::string root = parent_dir(d);
    ModuleLocation m = under(root, parts);
    if (usable(m)) {
      if (top) *top = under(root, {parts.front()});
      return m;
    }
  }
  return {};
}

ModuleLocation ModuleIndex::relative(const std::string& dotted, int level, const std::string& importer) const {
  // The package of `a/b/c.py` and of `a/b/__init__.py` is `a/b`; each further dot goes one up.
  std::string package = parent_dir(importer);
  for (int i = 1; i < level; ++i) {
    if (package.empty()) return {};
    package = parent_dir(package);
  }
  std::vector<std::string> parts = split_dotted(dotted);
  if (parts.empty()) {
    if (files_.count(join(package, "__init__.py"))) return {join(package, "__init__.py"), package};
    return dirs_.count(package) ? ModuleLocation{"", package} : ModuleLocation{};
  }
  return under(package, parts);
}

}  // namespace mine
