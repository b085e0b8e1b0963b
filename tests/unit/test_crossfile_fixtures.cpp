// Scans every tests/fixtures/crossfile/<case>/ as one repository with the real scanner and the
// Triton plugin, and checks the `# expect:` lines that the files of the case carry:
//   # expect: kernels N                         kernels found in this file
//   # expect: kernel Q inlines name@path, ...   exactly the definitions the standalone holds
//   # expect: kernel Q imports m, ...           exactly its third-party modules
//   # expect: kernel Q unresolved a, ...        exactly its unresolved names (may be empty)
//   # expect: kernel Q not self-contained
//   # expect: kernel Q at cell C line L         notebook kernels: where they are
// (`defines` and `returns` lines are checked by tests/e2e/test_crossfile_standalone.py.)
#include <catch2/catch.hpp>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "core/notebook/notebook_reader.h"
#include "core/scan/scanner.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

struct Expected {
  std::optional<std::set<std::string>> inlines, imports, unresolved;
  bool not_self_contained = false;
  std::optional<std::pair<int, int>> cell;
};

struct FileExpectations {
  int kernels = -1;
  std::map<std::string, Expected> by_kernel;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::set<std::string> split_list(const std::string& list) {
  std::set<std::string> out;
  std::stringstream s(list);
  std::string item;
  while (std::getline(s, item, ',')) {
    size_t a = item.find_first_not_of(" \t"), b = item.find_last_not_of(" \t\r");
    if (a != std::string::npos) out.insert(item.substr(a, b - a + 1));
  }
  return out;
}

FileExpectations read_expectations(const std::string& text) {
  FileExpectations out;
  static const RE2 count(R"(\s*# expect: kernels (\d+)\s*)");
  static const RE2 list(R"(\s*# expect: kernel (\S+) (inlines|imports|unresolved) ?(.*))");
  static const RE2 flag(R"(\s*# expect: kernel (\S+) not self-contained\s*)");
  static const RE2 cell(R"(\s*# expect: kernel (\S+) at cell (\d+) line (\d+)\s*)");
  std::stringstream lines(text);
  std::string line, q, what, items;
  int a = 0, b = 0;
  while (std::getline(lines, line)) {
    if (RE2::FullMatch(line, count, &a)) {
      out.kernels = a;
    } else if (RE2::FullMatch(line, flag, &q)) {
      out.by_kernel[q].not_self_contained = true;
    } else if (RE2::FullMatch(line, cell, &q, &a, &b)) {
      out.by_kernel[q].cell = std::make_pair(a, b);
    } else if (RE2::FullMatch(line, list, &q, &what, &items)) {
      auto& e = out.by_kernel[q];
      (what == "inlines" ? e.inlines : what == "imports" ? e.imports : e.unresolved) = split_list(items);
    }
  }
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<fs::path> case_dirs() {
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(fs::path(MINE_FIXTURES_DIR) / "crossfile"))
    if (e.is_directory()) dirs.push_back(e.path());
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

}  // namespace

TEST_CASE("cross-file fixtures meet the expectations written in them", "[crossfile][fixtures]") {
  auto dirs = case_dirs();
  REQUIRE(dirs.size() >= 10);
  Scanner scanner(all_plugins(), ScanOptions{});
  int checked = 0;
  for (const auto& dir : dirs) {
    INFO("case " << dir.filename().string());
    RepoSnapshot snap = scanner.extract(*open_source_tree(dir.string()), dir.string());
    std::map<std::string, std::map<std::string, const ExtractedKernel*>> found;  // path -> qualname -> kernel
    for (const auto& rec : snap.kernels)
      if (rec.plugin == "triton") found[rec.path][rec.kernel.qualname] = &rec.kernel;

    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      std::string ext = entry.path().extension().string();
      if (ext != ".py" && ext != ".ipynb") continue;
      std::string rel = fs::relative(entry.path(), dir).generic_string();
      std::string text = slurp(entry.path());
      if (ext == ".ipynb") text = read_notebook(text).text;
      FileExpectations want = read_expectations(text);
      INFO("file " << rel);
      if (want.kernels < 0) continue;  // a helper file (its jitted helpers are kernels too)
      std::set<std::string> names;
      for (const auto& [q, _] : found[rel]) names.insert(q);
      INFO("kernels found: " << joined(names));
      CHECK(static_cast<int>(found[rel].size()) == want.kernels);
      for (const auto& [qualname, e] : want.by_kernel) {
        INFO("kernel " << qualname);
        REQUIRE(found[rel].count(qualname) == 1);
        const ExtractedKernel& k = *found[rel][qualname];
        INFO("standalone:\n" << k.standalone);
        std::set<std::string> inlines, unresolved;
        for (const auto& d : k.dependencies) {
          if (d.kind == "unresolved") unresolved.insert(d.name);
          else if (d.kind != "import") inlines.insert(d.name + "@" + d.path);
        }
        if (e.inlines) CHECK(joined(inlines) == joined(*e.inlines));
        if (e.imports) CHECK(joined(k.external_modules) == joined(*e.imports));
        if (e.unresolved) CHECK(joined(unresolved) == joined(*e.unresolved));
        CHECK(k.self_contained == !e.not_self_contained);
        if (!e.not_self_contained) CHECK(unresolved.empty());
        if (e.cell) {
          REQUIRE(k.meta.contains("notebook"));
          CHECK(k.meta["notebook"]["cell"].get<int>() == e.cell->first);
          CHECK(k.meta["notebook"]["line"].get<int>() == e.cell->second);
        }
        ++checked;
      }
    }
  }
  CHECK(checked >= 14);
}

TEST_CASE("same-file mode keeps imports into the repository and says so", "[crossfile]") {
  ScanOptions options;
  options.cross_file = false;
  Scanner scanner(all_plugins(), options);
  fs::path dir = fs::path(MINE_FIXTURES_DIR) / "crossfile" / "relative_depths";
  RepoSnapshot snap = scanner.extract(*open_source_tree(dir.string()), dir.string());
  const ExtractedKernel* found = nullptr;
  for (const auto& rec : snap.kernels)
    if (rec.kernel.name == "softmax_kernel") found = &rec.kernel;
  REQUIRE(found);
  const ExtractedKernel& k = *found;
  CHECK_FALSE(k.self_contained);
  CHECK(k.standalone.find("from ...utils.math import exp_fast") != std::string::npos);
}

TEST_CASE("cross-file standalones do not depend on threads or the order files are met", "[crossfile]") {
  // Resolutions are cached per worker across kernels; what one kernel's own names do to a
  // resolution must never leak into another kernel's standalone.
  for (const auto& dir : case_dirs()) {
    INFO("case " << dir.filename().string());
    std::map<std::string, std::string> first;
    for (int jobs : {1, 3}) {
      ScanOptions options;
      options.jobs = jobs;
      Scanner scanner(all_plugins(), options);
      RepoSnapshot snap = scanner.extract(*open_source_tree(dir.string()), dir.string());
      std::map<std::string, std::string> got;
      for (const auto& rec : snap.kernels) got[rec.path + "::" + rec.kernel.qualname] = rec.kernel.standalone;
      if (first.empty()) {
        first = got;
      } else {
        CHECK(got == first);
      }
    }
  }
}

// A crossfile case scanned by one worker, which meets its files in path order and keeps its
// resolutions from one kernel to the next.
static RepoSnapshot scan_in_one_worker(const std::string& name) {
  fs::path dir = fs::path(MINE_FIXTURES_DIR) / "crossfile" / name;
  ScanOptions options;
  options.jobs = 1;
  Scanner scanner(all_plugins(), options);
  return scanner.extract(*open_source_tree(dir.string()), dir.string());
}

// Where an import cycle closes depends on where its resolution entered. One worker meets
// `_early.py` first and enters the cycle at the package; `first.py`'s kernel, entering at
// `first.py`, must still say so, as it does when resolved alone.
TEST_CASE("an import cycle is reported where the kernel's own resolution closes it", "[crossfile]") {
  RepoSnapshot snap = scan_in_one_worker("cycle_entry");
  std::map<std::string, std::string> why;  // kernel -> why its WIDTH is unresolved
  for (const auto& rec : snap.kernels)
    if (rec.kernel.meta.contains("unresolved"))
      for (const auto& u : rec.kernel.meta["unresolved"])
        if (u["name"] == "WIDTH") why[rec.kernel.name] = u["why"].get<std::string>();
  CHECK(why["early_kernel"] == "import cycle through ring/__init__.py");
  CHECK(why["first_kernel"] == "import cycle through ring/first.py");
}

// A kernel that another kernel's closure reached first (through an annotation under
// `if TYPE_CHECKING:`) is still its own name in its own closure: an alias of it was emitted as
// `Model__app_base = ` with nothing after the `=` when the cached resolution was taken.
TEST_CASE("a kernel reached first as another kernel's dependency resolves as its own name", "[crossfile]") {
  RepoSnapshot snap = scan_in_one_worker("self_annotation");
  std::map<std::string, std::string> standalone;
  for (const auto& rec : snap.kernels) standalone[rec.kernel.qualname] = rec.kernel.standalone;
  REQUIRE(standalone.count("Model"));
  REQUIRE(standalone.count("Other"));
  INFO(standalone["Model"]);
  CHECK(standalone["Model"].find("from app.model import Model as Model__app_base") != std::string::npos);
  CHECK(standalone["Model"].find("= \n") == std::string::npos);
  CHECK(standalone["Other"].find("class Model__app_model(torch.nn.Module):") != std::string::npos);  // a dependency there
}
