// implied_includes searches with RE2 over bytes where it used std::regex: the answers must be
// std::regex's (ECMAScript, C locale) on every spelling near a word boundary, with non-ASCII bytes
// beside the names, and on the CUDA fixture files.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "plugins/cuda/implied_includes.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

// The std::regex rules implied_includes had before (plugins/cuda/cuda_source.cpp at 15f4c68).
std::string with_std_regex(const std::string& unit) {
  static const std::pair<const char*, const char*> kRules[] = {
      {R"(\b(u?int(8|16|32|64)_t|u?intptr_t)\b)", R"(<(cstdint|stdint\.h|inttypes\.h)>)"},
      {R"(\b(half2?|__half2?)\b)", R"(<cuda_fp16\.h>)"},
      {R"(\b(__nv_bfloat162?|nv_bfloat162?)\b)", R"(<cuda_bf16\.h>)"},
      {R"(\b__nv_fp8\w*)", R"(<cuda_fp8\.h>)"},
  };
  const char* headers[] = {"<cstdint>", "<cuda_fp16.h>", "<cuda_bf16.h>", "<cuda_fp8.h>"};
  std::string out;
  for (size_t i = 0; i < 4; ++i)
    if (std::regex_search(unit, std::regex(kRules[i].first)) && !std::regex_search(unit, std::regex(kRules[i].second)))
      out += std::string("#include ") + headers[i] + "\n";
  return out;
}

}  // namespace

TEST_CASE("implied includes are those the std::regex rules found", "[cuda]") {
  std::vector<std::string> units;
  const char* names[] = {"uint32_t", "int8_t", "uintptr_t", "int128_t", "half", "half2", "__half", "__half2", "halfway",
                         "__nv_bfloat16", "nv_bfloat162", "__nv_bfloat1622", "__nv_fp8_e4m3", "__nv_fp8", "x__nv_fp8"};
  const char* around[] = {" ", "_", "a", "9", "\n", "(", "\xc3\xa9", "\xff", ""};
  for (const char* name : names)
    for (const char* before : around)
      for (const char* after : around) units.push_back(std::string("__global__ void k(") + before + name + after + "* x) {}\n");
  units.push_back("#include <cstdint>\n__global__ void k(uint32_t* x, half h) {}\n");
  units.push_back("#include <stdint.h>\n#include <cuda_fp16.h>\nuint8_t a; __half b; __nv_bfloat16 c;\n");
  units.push_back("// <cuda_fp8.h>\n__nv_fp8_e5m2 y;\n");
  units.push_back("");
  for (const auto& e : fs::recursive_directory_iterator(fs::path(MINE_FIXTURES_DIR))) {
    auto ext = e.path().extension();
    if (ext != ".cu" && ext != ".cuh" && ext != ".h") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    units.push_back(s.str());
  }
  size_t implied = 0;
  for (const auto& unit : units) {
    INFO(unit);
    std::string expected = with_std_regex(unit);
    REQUIRE(implied_includes(unit) == expected);
    implied += !expected.empty();
  }
  CHECK(units.size() > 1200);
  CHECK(implied > 300);
}
