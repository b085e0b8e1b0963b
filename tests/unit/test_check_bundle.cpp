// Bundle writing: the layout run_bundle.py reads (kernels/harness/bundle.py), module files
// that are the stored standalones byte for byte, and the folder rules.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/check/bundle_writer.h"
#include "core/error.h"
#include "corpus/check_store.h"
#include "test_check_corpus.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("mine_bundle_test_" + std::to_string(::getpid()) + "_" +
                                        std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::remove_all(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<check::BundleKernel> bundle_of(const std::vector<CheckKernel>& kernels) {
  std::vector<check::BundleKernel> out;
  for (const auto& k : kernels)
    out.push_back({k.id, k.plugin, k.name, k.standalone, check::infer_signature({k.plugin, k.name, k.standalone, k.meta})});
  return out;
}

}  // namespace

TEST_CASE("a bundle holds each standalone and a bundle.json the harness can read", "[check][bundle]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/check");
  auto kernels = select_check_kernels(*corpus.read_only(), "", 0);
  REQUIRE(kernels.size() >= 10);
  TempDir dir;
  check::write_bundle((dir.path / "b").string(), bundle_of(kernels));

  auto doc = nlohmann::json::parse(read_text(dir.path / "b" / "bundle.json"));
  CHECK(doc["version"] == 1);
  REQUIRE(doc["kernels"].size() == kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& k = doc["kernels"][i];
    INFO("kernel " << kernels[i].name);
    CHECK(k["id"] == kernels[i].id);
    CHECK(k["entry"] == kernels[i].name);
    CHECK(k["module"] == "k" + std::to_string(kernels[i].id) + ".py");
    CHECK(k["language"] == "triton");
    CHECK(k["signature"].is_object());
    CHECK(k["constexprs"].is_object());
    CHECK(k["guessed"].is_array());
    CHECK(k.contains("grid"));
    for (const auto& [name, value] : k["constexprs"].items()) CHECK(k["signature"][name] == "constexpr");
    CHECK(read_text(dir.path / "b" / k["module"].get<std::string>()) == kernels[i].standalone);
  }
  // Parameter order is the launch order: bundle.json must keep it, not sort it.
  std::string text = read_text(dir.path / "b" / "bundle.json");
  size_t tuned = text.find("\"entry\": \"tuned\"");
  REQUIRE(tuned != std::string::npos);
  CHECK(text.find("\"x_ptr\"", tuned) < text.find("\"n\"", tuned));
  CHECK(text.find("\"n\"", tuned) < text.find("\"BLOCK\"", tuned));
  CHECK(text.find("\"BLOCK\"", tuned) < text.find("\"NUM_ITEMS\"", tuned));
}

TEST_CASE("a bundle folder must be new, empty or an earlier bundle", "[check][bundle]") {
  TempDir dir;
  check::InferredSignature sig;
  std::vector<check::BundleKernel> one = {{7, "triton", "k", "print('seven')\n", sig}};
  std::vector<check::BundleKernel> other = {{9, "triton", "k", "print('nine')\n", sig}};
  check::write_bundle(dir.path.string(), one);
  CHECK(fs::exists(dir.path / "k7.py"));

  SECTION("rewriting replaces the earlier bundle's modules") {
    check::write_bundle(dir.path.string(), other);
    CHECK_FALSE(fs::exists(dir.path / "k7.py"));
    CHECK(read_text(dir.path / "k9.py") == "print('nine')\n");
  }
  SECTION("a folder with other files is refused and left alone") {
    std::ofstream(dir.path / "notes.txt") << "mine";
    CHECK_THROWS_WITH(check::write_bundle(dir.path.string(), other), Catch::Contains("not empty and not a bundle"));
    CHECK(fs::exists(dir.path / "k7.py"));
    CHECK(fs::exists(dir.path / "bundle.json"));
  }
  SECTION("a file in the way is refused") {
    CHECK_THROWS_AS(check::write_bundle((dir.path / "k7.py").string(), other), Error);
  }
}
