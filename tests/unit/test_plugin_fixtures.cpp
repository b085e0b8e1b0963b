// Runs the real scanner over every fixture of a plugin's folder (tests/fixtures/<plugin>/) and
// checks the `expect:` comments each fixture carries. Adding a case is adding a file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/scan/scanner.h"
#include "fixture_expectations.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// Every fixture with one of `extensions` in tests/fixtures/<plugin>/, scanned as its own tree.
void check_fixtures(const std::string& plugin, const std::set<std::string>& extensions, size_t at_least) {
  fs::path dir = fs::path(MINE_FIXTURES_DIR) / plugin;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (extensions.count(e.path().extension().string())) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= at_least);

  Scanner scanner(all_plugins(), ScanOptions{});
  for (const auto& file : files) {
    auto expected = testing::read_expectations(testing::read_fixture(file));
    INFO("fixture " << file.filename().string());
    REQUIRE(expected.kernel_count >= 0);

    auto tree = open_source_tree(file.string());
    RepoSnapshot snap = scanner.extract(*tree, file.string());
    std::map<std::string, const ExtractedKernel*> found;
    for (const auto& rec : snap.kernels)
      if (rec.plugin == plugin) found[rec.kernel.qualname] = &rec.kernel;
    std::set<std::string> found_names;
    for (const auto& [q, _] : found) found_names.insert(q);
    INFO("kernels found: " << joined(found_names));
    CHECK(static_cast<int>(found.size()) == expected.kernel_count);

    for (const auto& name : expected.absent) CHECK(found.count(name) == 0);
    for (const auto& [qualname, want] : expected.kernels) {
      INFO("kernel " << qualname);
      REQUIRE(found.count(qualname) == 1);
      const ExtractedKernel& k = *found[qualname];
      std::set<std::string> needs, unresolved;
      for (const auto& d : k.dependencies) (d.kind == "unresolved" ? unresolved : needs).insert(d.name);
      if (want.has_needs) CHECK(joined(needs) == joined(want.needs));
      if (want.has_unresolved) CHECK(joined(unresolved) == joined(want.unresolved));
      if (want.not_self_contained) {
        CHECK_FALSE(k.self_contained);
      } else {
        CHECK(unresolved.empty());
        CHECK(k.self_contained);
      }
    }
  }
}

}  // namespace

TEST_CASE("numba fixtures meet the expectations written in them", "[numba][fixtures]") {
  check_fixtures("numba", {".py"}, 6);
}

TEST_CASE("cuda fixtures meet the expectations written in them", "[cuda][fixtures]") {
  check_fixtures("cuda", {".cu", ".cuh", ".cuda", ".py"}, 5);
}
