#include "plugins/cuda/implied_includes.h"

#include <memory>
#include <utility>
#include <vector>

#include <re2/re2.h>

namespace mine {

std::string implied_includes(const std::string& unit) {
  static const struct {
    const char* types;
    const char* header;
    const char* already;
  } kImplied[] = {
      {R"(\b(u?int(8|16|32|64)_t|u?intptr_t)\b)", "<cstdint>", R"(<(cstdint|stdint\.h|inttypes\.h)>)"},
      {R"(\b(half2?|__half2?)\b)", "<cuda_fp16.h>", R"(<cuda_fp16\.h>)"},
      {R"(\b(__nv_bfloat162?|nv_bfloat162?)\b)", "<cuda_bf16.h>", R"(<cuda_bf16\.h>)"},
      {R"(\b__nv_fp8\w*)", "<cuda_fp8.h>", R"(<cuda_fp8\.h>)"},
  };
  // RE2 over the bytes (Latin-1: one byte, one character; \b and \w are ASCII, as std::regex's
  // are in the C locale): std::regex searched a unit with its headers pasted in at hundreds of
  // instructions a byte (Liger-Kernel: 3.9 G of its 15 G instructions for 11 kernels).
  static const std::vector<std::pair<std::unique_ptr<RE2>, std::unique_ptr<RE2>>> compiled = [] {
    RE2::Options bytes;
    bytes.set_encoding(RE2::Options::EncodingLatin1);
    std::vector<std::pair<std::unique_ptr<RE2>, std::unique_ptr<RE2>>> v;
    for (const auto& rule : kImplied)
      v.emplace_back(std::make_unique<RE2>(rule.types, bytes), std::make_unique<RE2>(rule.already, bytes));
    return v;
  }();
  std::string out;
  for (size_t i = 0; i < compiled.size(); ++i)
    if (RE2::PartialMatch(unit, *compiled[i].first) && !RE2::PartialMatch(unit, *compiled[i].second))
      out += std::string("#include ") + kImplied[i].header + "\n";
  return out;
}

}  // namespace mine
