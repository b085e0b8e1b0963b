// Runs the real scanner over every fixture of a plugin's folder (tests/fixtures/<plugin>/) and
// checks the `expect:` comments each fixture carries. Adding a case is adding a file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/scan/scanner.h"
#include "fixture_checks.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

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
    testing::check_snapshot(plugin, scanner.extract(*tree, file.string()), expected);
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
  testing::check_snapshot(plugin, scanner.extract(*tree, folder), all);
}

}  // namespace

TEST_CASE("numba fixtures meet the expectations written in them", "[numba][fixtures]") {
  check_fixtures("numba", {".py"}, 6);
}

TEST_CASE("triton fixtures meet the expectations written in them", "[triton][fixtures]") {
  check_fixtures("triton", {".py"}, 10);
}

TEST_CASE("cuda fixtures meet the expectations written in them", "[cuda][fixtures]") {
  check_fixtures("cuda", {".cu", ".cuh", ".cuda", ".py"}, 5);
}

TEST_CASE("cuda units take in the repository's headers they include", "[cuda][fixtures]") {
  check_fixture_tree("cuda", "cuda_headers", {".cu", ".cuh", ".h"});
}

TEST_CASE("cuda units get the macros the repository's build calls define for their file", "[cuda][fixtures]") {
  check_fixture_tree("cuda", "cuda_build_defines", {".cu", ".cuh", ".py"});
}

TEST_CASE("a guarded header goes into each branch of an #if block that includes it", "[cuda][fixtures]") {
  // src/ops/grid_loop.cuh: `#ifdef USE_OTHER_RUNTIME` and its `#else` each include a header that
  // includes loop_helper.hpp; the branch the build takes (the #else) must hold the macro too.
  fs::path dir = fs::path(MINE_FIXTURES_DIR) / "cuda_headers";
  Scanner scanner(all_plugins(), ScanOptions{});
  auto snap = scanner.extract(*open_source_tree(dir.string()), "cuda_headers");
  const ExtractedKernel* scale = nullptr;
  for (const auto& rec : snap.kernels)
    if (rec.kernel.qualname == "scale_kernel") scale = &rec.kernel;
  REQUIRE(scale != nullptr);
  const std::string& text = scale->standalone;
  size_t otherwise = text.find("\n#else\n");
  REQUIRE(otherwise != std::string::npos);
  CHECK(text.find("#define GRID_STRIDE_LOOP") < otherwise);
  CHECK(text.find("#define GRID_STRIDE_LOOP", otherwise) != std::string::npos);
}
