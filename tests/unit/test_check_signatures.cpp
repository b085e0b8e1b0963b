// Signature inference over tests/fixtures/check/*.py: each fixture states what it expects in
//   # expect: kernel NAME signature p=type, ...   the whole signature, in parameter order
//   # expect: kernel NAME constexprs P=json, ...  every constexpr value
//   # expect: kernel NAME guessed p, ...          exactly the guessed parameters
//   # expect: kernel NAME assumed p, ...          exactly the pointers typed *fp32 by assumption
//   # expect: kernel NAME options k=json, ...     num_warps / num_stages taken from autotune
//   # expect: kernel NAME autotune [json]         every autotune config, as the bundle lists them
// Kernels come from the real scanner, so inference reads the stored standalone and meta.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "core/check/signature_inference.h"
#include "core/scan/scanner.h"

namespace fs = std::filesystem;
using namespace mine;
using check::InferredSignature;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Items at the top level only: a descriptor type's block (`tensordesc<fp16[64, 32]>`) and a tuple
// type (`(i32,i32)`) have commas.
std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  auto keep = [&](const std::string& item) {
    size_t a = item.find_first_not_of(' '), b = item.find_last_not_of(' ');
    if (a != std::string::npos) out.push_back(item.substr(a, b - a + 1));
  };
  std::string item;
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '<' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '>' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      keep(item);
      item.clear();
    } else {
      item += c;
    }
  }
  keep(item);
  return out;
}

// "k=json, ..." with each value re-dumped, so 0.5 and 0.50 or true and True-as-JSON compare equal.
std::string normalized_pairs(const std::string& text) {
  std::string out;
  for (const auto& item : split_list(text)) {
    size_t eq = item.find('=');
    REQUIRE(eq != std::string::npos);
    std::string value = item.substr(eq + 1);
    auto parsed = nlohmann::json::parse(value, nullptr, false);
    out += (out.empty() ? "" : ", ") + item.substr(0, eq) + "=" + (parsed.is_discarded() ? value : parsed.dump());
  }
  return out;
}

template <typename Json>
std::string rendered(const Json& object, bool values_as_json) {
  std::string out;
  for (auto it = object.begin(); it != object.end(); ++it)
    out += (out.empty() ? "" : ", ") + it.key() + "=" +
           (values_as_json ? it.value().dump() : it.value().template get<std::string>());
  return out;
}

std::string sorted_names(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

TEST_CASE("signature inference meets the expectations written in the check fixtures", "[check][signature]") {
  fs::path dir = fs::path(MINE_FIXTURES_DIR) / "check";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".py") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 4);

  static const std::regex kExpect(R"(^# expect: kernel (\S+) (signature|constexprs|guessed|assumed|options|autotune) ?(.*)$)");
  Scanner scanner(all_plugins(), ScanOptions{});
  int checked = 0;
  for (const auto& file : files) {
    INFO("fixture " << file.filename().string());
    auto tree = open_source_tree(file.string());
    RepoSnapshot snap = scanner.extract(*tree, file.string());
    std::map<std::string, InferredSignature> inferred;
    for (const auto& rec : snap.kernels)
      inferred[rec.kernel.name] =
          check::infer_signature({rec.plugin, rec.kernel.name, rec.kernel.standalone, rec.kernel.meta});

    std::stringstream lines(read_text(file));
    std::string line;
    while (std::getline(lines, line)) {
      std::smatch m;
      if (!std::regex_match(line, m, kExpect)) continue;
      std::string kernel = m[1], what = m[2], expected = m[3];
      INFO("kernel " << kernel << " " << what);
      REQUIRE(inferred.count(kernel) == 1);
      const InferredSignature& sig = inferred[kernel];
      if (what == "signature") {
        CHECK(rendered(sig.signature(), false) == normalized_pairs(expected));
      } else if (what == "constexprs") {
        CHECK(rendered(sig.constexprs(), true) == normalized_pairs(expected));
      } else if (what == "autotune") {
        CHECK(sig.autotune.dump() == nlohmann::ordered_json::parse(expected).dump());
      } else if (what == "options") {
        CHECK(rendered(sig.options, true) == normalized_pairs(expected));
      } else if (what == "assumed") {
        CHECK(sorted_names(sig.assumed_fp32) == sorted_names(split_list(expected)));
      } else {
        CHECK(sorted_names(sig.guessed().get<std::vector<std::string>>()) == sorted_names(split_list(expected)));
      }
      ++checked;
    }
  }
  CHECK(checked >= 25);
}

TEST_CASE("Inductor kernels take signature and constants from triton_meta exactly", "[check][signature][inductor]") {
  check::KernelSource k;
  k.plugin = "inductor";
  k.name = "triton_poi_fused_add_0";
  k.standalone =
      "import triton\nimport triton.language as tl\n\n@triton.jit\n"
      "def triton_poi_fused_add_0(in_ptr0, out_ptr0, ks0, xnumel, XBLOCK : tl.constexpr):\n"
      "    xnumel = 4096\n    xoffset = tl.program_id(0) * XBLOCK\n";
  k.meta = {{"category", "pointwise"},
            {"parameters", {"in_ptr0", "out_ptr0", "ks0", "xnumel", "XBLOCK"}},
            {"signature", {{"in_ptr0", "*bf16"}, {"out_ptr0", "*fp32"}, {"ks0", "i64"}, {"xnumel", "i32"}, {"XBLOCK", "constexpr"}}},
            {"constants", nlohmann::json::object()},
            {"size_hints", {{"x", 8192}}}};
  InferredSignature sig = check::infer_signature(k);
  CHECK(sig.signature().dump() ==
        R"({"in_ptr0":"*bf16","out_ptr0":"*fp32","ks0":"i64","xnumel":"i32","XBLOCK":"constexpr"})");
  // The body pins xnumel; the block size is Inductor's to tune, so it is the one guess.
  CHECK(sig.numels.dump() == R"({"xnumel":4096})");
  CHECK(sig.constexprs().dump() == R"({"XBLOCK":1024})");
  CHECK(sig.guessed().dump() == R"(["XBLOCK"])");
  CHECK(sig.grid.dump() == "[4,1,1]");

  SECTION("constants given in triton_meta (old style, by index) are used as they are") {
    k.meta["constants"] = {{"4", 256}};
    k.meta["signature"] = {{"0", "*fp32"}, {"1", "*fp32"}, {"2", "i32"}, {"3", "i32"}};
    k.meta["size_hints"] = {8192};
    InferredSignature old = check::infer_signature(k);
    CHECK(old.constexprs().dump() == R"({"XBLOCK":256})");
    CHECK(old.guessed().empty());
    CHECK(old.grid.dump() == "[16,1,1]");
  }
  SECTION("persistent reductions get a reduction block covering the whole row") {
    k.standalone = "def triton_per_fused_sum_0(in_ptr0, out_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):\n    xnumel = 64\n    r0_numel = 300\n";
    k.name = "triton_per_fused_sum_0";
    k.meta["category"] = "persistent_reduction";
    k.meta["parameters"] = {"in_ptr0", "out_ptr0", "xnumel", "r0_numel", "XBLOCK", "R0_BLOCK"};
    k.meta["signature"] = {{"in_ptr0", "*fp32"}, {"out_ptr0", "*fp32"}, {"xnumel", "i32"}, {"r0_numel", "i32"},
                           {"XBLOCK", "constexpr"}, {"R0_BLOCK", "constexpr"}};
    k.meta["size_hints"] = {{"x", 64}, {"r0_", 512}};
    InferredSignature red = check::infer_signature(k);
    CHECK(red.constexprs().dump() == R"({"XBLOCK":1,"R0_BLOCK":512})");
    CHECK(red.grid.dump() == "[64,1,1]");
  }
}

TEST_CASE("inference survives kernels it cannot read", "[check][signature]") {
  check::KernelSource k{"triton", "missing", "def other(x):\n    pass\n",
                        {{"parameters", {{{"name", "x_ptr"}}, {{"name", "BLOCK"}, {"annotation", "tl.constexpr"}}}}}};
  InferredSignature sig = check::infer_signature(k);
  CHECK(sig.signature().dump() == R"({"x_ptr":"*fp32","BLOCK":"constexpr"})");
  CHECK(sig.constexprs().dump() == R"({"BLOCK":128})");
  CHECK(sig.guessed().size() == 2);
  CHECK_FALSE(sig.notes.empty());

  k.standalone = "@triton.autotune(configs=[triton.Config({'BLOCK': 2 ** 70})], key=[])\n"
                 "@triton.jit\ndef missing(x_ptr, BLOCK: tl.constexpr):\n    pass\n";
  CHECK_NOTHROW(check::infer_signature(k));
}
