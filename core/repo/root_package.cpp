#include "core/repo/root_package.h"

#include <re2/re2.h>

namespace mine {
namespace {

std::string importable(std::string name) {
  for (char& c : name)
    if (c == '-' || c == '.') c = '_';
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return "";
  for (unsigned char c : name)
    if (!(std::isalnum(c) || c == '_')) return "";
  return name;
}

void add(std::set<std::string>& out, const std::string& name) {
  if (std::string n = importable(name); !n.empty()) out.insert(n);
}

// Every match of `pattern`'s first group in `text`.
void each_match(const std::string& text, const RE2& pattern, std::set<std::string>& out) {
  re2::StringPiece input(text);
  std::string name;
  while (RE2::FindAndConsume(&input, pattern, &name)) add(out, name);
}

// The top-level entries of each `packages = ["fast_moe", "fast_moe.kernels"]` list in `text`.
void each_listed_package(const std::string& text, std::set<std::string>& out) {
  static const RE2 kPackagesList(R"(\bpackages\s*=\s*\[([^\]]*)\])");
  static const RE2 kListedName(R"(["']([A-Za-z0-9_]+)["'])");
  re2::StringPiece input(text);
  std::string list;
  while (RE2::FindAndConsume(&input, kPackagesList, &list)) each_match(list, kListedName, out);
}

}  // namespace

std::set<std::string> root_package_names(const std::function<std::optional<std::string>(const std::string&)>& read,
                                         const std::string& repo_name) {
  std::set<std::string> out;
  // `name = "fast-moe"` at the start of a line (pyproject's [project] / [tool.poetry], setup.cfg's
  // [metadata]); `name="fast-moe"` as a setup() keyword.
  static const RE2 kTomlName(R"((?m)^name\s*=\s*["']([A-Za-z0-9_.\-]+)["'])");
  static const RE2 kCfgName(R"((?m)^name\s*=\s*([A-Za-z0-9_.\-]+)\s*$)");
  static const RE2 kSetupName(R"(\bname\s*=\s*["']([A-Za-z0-9_.\-]+)["'])");
  if (auto t = read("pyproject.toml")) {
    each_match(*t, kTomlName, out);
    each_listed_package(*t, out);
  }
  if (auto t = read("setup.cfg")) each_match(*t, kCfgName, out);
  if (auto t = read("setup.py")) {
    each_match(*t, kSetupName, out);
    each_listed_package(*t, out);
  }
  size_t slash = repo_name.find_last_of("/\\");
  std::string last = slash == std::string::npos ? repo_name : repo_name.substr(slash + 1);
  if (last.size() > 4 && last.compare(last.size() - 4, 4, ".git") == 0) last.resize(last.size() - 4);
  add(out, last);
  return out;
}

}  // namespace mine
