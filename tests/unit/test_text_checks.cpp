#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/scan/text_checks.h"

// The scanner skips ASCII eight bytes at a time; wherever the first bad byte falls relative to
// those words, the answer must be its exact offset (it becomes the line of the scan problem).
TEST_CASE("first_invalid_utf8 finds the first bad byte at every offset", "[text_checks]") {
  const std::vector<std::string> bad = {"\xff", "\xc0\xaf" /* overlong */, "\xed\xa0\x80" /* surrogate */,
                                        "\xf4\x90\x80\x80" /* past U+10FFFF */, "\xe2\x82" /* cut short */};
  for (const auto& b : bad) {
    for (size_t at = 0; at < 40; ++at) {
      std::string text(at, 'a');
      text += b;
      if (b != "\xe2\x82") text += std::string(at % 11, 'z');  // a truncated sequence ends the text
      INFO("bytes " << b.size() << " at " << at);
      CHECK(mine::first_invalid_utf8(text) == at);
    }
  }
}

TEST_CASE("first_invalid_utf8 accepts valid multi-byte text between ASCII runs", "[text_checks]") {
  for (size_t at = 0; at < 24; ++at) {
    std::string text = std::string(at, 'x') + "\xc3\xa9" + std::string(at, 'y') + "\xe2\x82\xac\xf0\x9f\x98\x80";
    CHECK(mine::first_invalid_utf8(text) == std::string::npos);
    CHECK(mine::first_invalid_utf8(text + std::string(at, 'q') + "\x80") == text.size() + at);
  }
  CHECK(mine::first_invalid_utf8("") == std::string::npos);
  CHECK(mine::first_invalid_utf8(std::string(4096, 'a')) == std::string::npos);
}
