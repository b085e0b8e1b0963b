// Scans every tests/fixtures/torch_module/<case>/ as one repository with the real scanner and
// checks the `# expect:` lines the torch_module plugin's fixtures carry:
//   # expect: kernels N                              modules found in this file
//   # expect: no kernel Q
//   # expect: kernel Q via torch|file|import         how it reaches torch.nn.Module
//   # expect: kernel Q init a, b=default             __init__ parameters (self dropped), exactly
//   # expect: kernel Q forward x, mask               forward parameters, exactly
//   # expect: kernel Q submodules name:type, ...     what __init__ builds, exactly
//   # expect: kernel Q init_input name=literal source, ...   inferred __init__ arguments (those named)
//   # expect: kernel Q init_stand_in name=kind:target, ...  object arguments and their stand-ins
//   # expect: kernel Q input x rank R [dims k=v ...]  inferred forward tensor
//   # expect: kernel Q input x dtype D
//   # expect: kernel Q input x keyword true|false     keyword-only (after `*`)
//   # expect: kernel Q input x rank_known true|false  false: a likely rank the deducer may change
//   # expect: kernel Q inlines name@path, ...        definitions of the repository its standalone holds
//   # expect: kernel Q dependency NAME KIND          one dependency row and its kind
#include <catch2/catch.hpp>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/scan/scanner.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& list, char sep) {
  std::vector<std::string> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, sep)) {
    size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t\r");
    if (a != std::string::npos) out.push_back(item.substr(a, b - a + 1));
  }
  return out;
}

// `split` that leaves separators inside brackets alone: `dims=(16, 16) use, depth=2 size_name`.
std::vector<std::string> split_outside_brackets(const std::string& list, char sep) {
  std::vector<std::string> out;
  std::string item;
  int depth = 0;
  for (char c : list) {
    depth += (c == '(' || c == '[' || c == '{') - (c == ')' || c == ']' || c == '}');
    if (c == sep && depth == 0) {
      out.push_back(item);
      item.clear();
    } else {
      item += c;
    }
  }
  out.push_back(item);
  std::vector<std::string> trimmed;
  for (const auto& i : out) {
    auto parts = split(i, '\n');
    if (!parts.empty()) trimmed.push_back(parts.front());
  }
  return trimmed;
}

std::string params_text(const nlohmann::json& params) {
  std::vector<std::string> parts;
  for (const auto& p : params)
    parts.push_back(p.value("name", "") + (p.contains("default") ? "=" + p["default"].get<std::string>() : ""));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

const nlohmann::json* forward_input(const ExtractedKernel& k, const std::string& name) {
  for (const auto& t : k.meta["inputs"]["forward"])
    if (t.value("name", "") == name) return &t;
  return nullptr;
}

void check_line(const ExtractedKernel& k, const std::string& what, const std::string& rest) {
  INFO(what << " " << rest << "\nmeta: " << k.meta.dump(1));
  if (what == "via") {
    CHECK(k.meta.value("base_via", "") == rest);
  } else if (what == "init" || what == "forward") {
    CHECK(params_text(k.meta[what]) == rest);
  } else if (what == "submodules") {
    std::string got;
    for (const auto& s : k.meta["submodules"])
      got += (got.empty() ? "" : ", ") + s["name"].get<std::string>() + ":" + s["type"].get<std::string>();
    CHECK(got == rest);
  } else if (what == "init_input") {
    std::map<std::string, std::pair<std::string, std::string>> got;
    for (const auto& v : k.meta["inputs"]["init"]) got[v["name"]] = {v.value("literal", ""), v.value("source", "")};
    for (const auto& item : split_outside_brackets(rest, ',')) {
      std::string name = item.substr(0, item.find('='));
      std::string value = item.substr(item.find('=') + 1, item.rfind(' ') - item.find('=') - 1);
      std::string source = item.substr(item.rfind(' ') + 1);
      INFO("argument " << name);
      REQUIRE(got.count(name) == 1);
      CHECK(got[name].first == value);
      CHECK(got[name].second == source);
    }
  } else if (what == "init_stand_in") {
    std::map<std::string, std::string> got;
    for (const auto& v : k.meta["inputs"]["init"]) got[v["name"]] = v.value("stand_in", "");
    for (const auto& item : split_outside_brackets(rest, ',')) {
      std::string name = item.substr(0, item.find('='));
      INFO("argument " << name);
      REQUIRE(got.count(name) == 1);
      CHECK(got[name] == item.substr(item.find('=') + 1));
    }
  } else if (what == "input") {
    std::vector<std::string> words = split(rest, ' ');
    REQUIRE(words.size() >= 3);
    const nlohmann::json* t = forward_input(k, words[0]);
    REQUIRE(t != nullptr);
    if (words[1] == "dtype") {
      CHECK(t->value("dtype", "") == words[2]);
    } else if (words[1] == "keyword") {
      CHECK(t->value("keyword", false) == (words[2] == "true"));
    } else if (words[1] == "rank_known") {
      CHECK(t->value("rank_known", true) == (words[2] == "true"));
    } else if (words[1] == "rank") {
      CHECK(t->value("rank", 0) == std::stoi(words[2]));
      for (size_t i = 4; words.size() > 3 && words[3] == "dims" && i < words.size(); ++i) {
        std::string dim = words[i].substr(0, words[i].find('='));
        INFO("dim " << dim);
        REQUIRE((*t)["dims"].contains(dim));
        CHECK((*t)["dims"][dim].get<long long>() == std::stoll(words[i].substr(words[i].find('=') + 1)));
      }
    } else {
      FAIL("unknown input clue " << words[1]);
    }
  } else if (what == "inlines") {
    std::set<std::string> want, got;
    for (const auto& item : split(rest, ',')) want.insert(item);
    for (const auto& d : k.dependencies)
      if (d.kind != "import" && d.kind != "unresolved") got.insert(d.name + "@" + d.path);
    for (const auto& w : want) CHECK(got.count(w) == 1);
    CHECK(k.standalone.find("from .layers") == std::string::npos);
  } else if (what == "dependency") {
    std::vector<std::string> words = split(rest, ' ');
    REQUIRE(words.size() == 2);
    bool found = false;
    for (const auto& d : k.dependencies) found = found || (d.name == words[0] && d.kind == words[1]);
    CHECK(found);
  } else {
    FAIL("unknown expectation " << what);
  }
}

}  // namespace

TEST_CASE("torch_module fixtures meet the expectations written in them", "[torch_module][fixtures]") {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(fs::path(MINE_FIXTURES_DIR) / "torch_module"))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  REQUIRE(!dirs.empty());
  static const RE2 count(R"(\s*# expect: kernels (\d+)\s*)");
  static const RE2 absent(R"(\s*# expect: no kernel (\S+)\s*)");
  static const RE2 clue(R"(\s*# expect: kernel (\S+) (\S+) (.*))");
  Scanner scanner(all_plugins(), ScanOptions{});
  int files_checked = 0;
  for (const auto& dir : dirs) {
    INFO("case " << dir.filename().string());
    RepoSnapshot snap = scanner.extract(*open_source_tree(dir.string()), dir.string());
    std::map<std::string, std::map<std::string, const ExtractedKernel*>> found;
    for (const auto& rec : snap.kernels)
      if (rec.plugin == "torch_module") found[rec.path][rec.kernel.qualname] = &rec.kernel;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.path().extension() != ".py") continue;
      std::string rel = fs::relative(entry.path(), dir).generic_string();
      INFO("file " << rel);
      std::stringstream lines(slurp(entry.path()));
      std::string line, q, what, rest;
      int n = -1;
      while (std::getline(lines, line)) {
        if (RE2::FullMatch(line, count, &n)) {
          CHECK(static_cast<int>(found[rel].size()) == n);
          ++files_checked;
        } else if (RE2::FullMatch(line, absent, &q)) {
          CHECK(found[rel].count(q) == 0);
        } else if (RE2::FullMatch(line, clue, &q, &what, &rest)) {
          INFO("module " << q);
          REQUIRE(found[rel].count(q) == 1);
          check_line(*found[rel][q], what, rest);
        }
      }
    }
  }
  CHECK(files_checked >= 3);
}
