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

// The kernels `plugin` found in a scanned tree against what its fixtures expect.
void check_snapshot(const std::string& plugin, const RepoSnapshot& snap, const testing::FixtureExpectations& expected) {
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
    std::set<std::string> lines;
    std::istringstream in(k.standalone);
    for (std::string line; std::getline(in, line);) {
      size_t a = line.find_first_not_of(" \t"), b = line.find_last_not_of(" \t\r");
      if (a != std::string::npos) lines.insert(line.substr(a, b - a + 1));
    }
    for (const auto& text : want.standalone_has) CHECK(lines.count(text) == 1);
    for (const auto& text : want.standalone_lacks) CHECK(lines.count(text) == 0);
  }
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
    check_snapshot(plugin, scanner.extract(*tree, file.string()), expected);
  }
}

// A fixture folder scanned as one repository: its files' expectations together (kernels are
// named by qualname across them), for what crosses files.
void check_fixture_tree(const std::string& plugin, const std::string& folder, const std::set<std::string>& extensions) {
  fs::path dir = fs::path(MINE_FIXTURES_DIR) / folder;
  testing::FixtureExpectations all;
  all.kernel_count = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || !extensions.count(e.path().extension().string())) continue;
    auto expected = testing::read_expectations(testing::read_fixture(e.path()));
    if (expected.kernel_count > 0) all.kernel_count += expected.kernel_count;
    all.kernels.insert(expected.kernels.begin(), expected.kernels.end());
    all.absent.insert(expected.absent.begin(), expected.absent.end());
  }
  REQUIRE(!all.kernels.empty());
  Scanner scanner(all_plugins(), ScanOptions{});
  auto tree = open_source_tree(dir.string());
  check_snapshot(plugin, scanner.extract(*tree, folder), all);
}

}  // namespace

TEST_CASE("numba fixtures meet the expectations written in them", "[numba][fixtures]") {
  check_fixtures("numba", {".py"}, 6);
}

TEST_CASE("cuda fixtures meet the expectations written in them", "[cuda][fixtures]") {
  check_fixtures("cuda", {".cu", ".cuh", ".cuda", ".py"}, 5);
}

TEST_CASE("cuda units take in the repository's headers they include", "[cuda][fixtures]") {
  check_fixture_tree("cuda", "cuda_headers", {".cu", ".cuh", ".h"});
}
