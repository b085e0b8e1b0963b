// Runs the real scanner and Triton plugin over every tests/fixtures/triton/*.py and checks the
// `# expect:` comments each fixture carries. Adding a case is adding a file.
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

}  // namespace

TEST_CASE("triton fixtures meet the expectations written in them", "[triton][fixtures]") {
  fs::path dir = fs::path(MINE_FIXTURES_DIR) / "triton";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 10);

  Scanner scanner(all_plugins(), ScanOptions{});
  for (const auto& file : files) {
    auto expected = testing::read_expectations(testing::read_fixture(file));
    INFO("fixture " << file.filename().string());
    REQUIRE(expected.kernel_count >= 0);  // every fixture must state its kernel count

    auto tree = open_source_tree(file.string());
    RepoSnapshot snap = scanner.extract(*tree, file.string());
    std::map<std::string, const ExtractedKernel*> found;
    for (const auto& rec : snap.kernels)
      if (rec.plugin == "triton") found[rec.kernel.qualname] = &rec.kernel;
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
      std::set<std::string> lines;
      {
        std::stringstream in(k.standalone);
        std::string l;
        while (std::getline(in, l)) {
          size_t b = l.find_first_not_of(" \t"), e = l.find_last_not_of(" \t\r");
          if (b != std::string::npos) lines.insert(l.substr(b, e - b + 1));
        }
      }
      for (const auto& [key, value] : want.meta) {
        INFO("meta " << key << " in " << k.meta.dump());
        if (value == "absent") CHECK_FALSE(k.meta.contains(key));
        else CHECK(k.meta.value(key, nlohmann::json()) == nlohmann::json::parse(value));
      }
      for (const auto& text : want.standalone_has) CHECK(lines.count(text) == 1);
      for (const auto& text : want.standalone_lacks) CHECK(lines.count(text) == 0);
      if (want.not_self_contained) {
        CHECK_FALSE(k.self_contained);
      } else {
        CHECK(unresolved.empty());
        CHECK(k.self_contained);
      }
    }
  }
}
