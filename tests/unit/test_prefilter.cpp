// A plugin's prefilter patterns searched for one at a time match the texts their alternation
// matches, and a list that only parses as an alternation is searched as one.
#include <catch2/catch.hpp>

#include <re2/re2.h>

#include "core/scan/prefilter.h"

using namespace mine;

namespace {

bool joined_matches(const std::vector<std::string>& patterns, const std::string& text) {
  std::string joined;
  for (const auto& p : patterns) joined += (joined.empty() ? "" : "|") + ("(?:" + p + ")");
  RE2 re(joined, RE2::Quiet);
  REQUIRE(re.ok());
  return RE2::PartialMatch(text, re);
}

}  // namespace

TEST_CASE("prefilter: patterns searched apart match what their alternation matches", "[prefilter]") {
  const std::vector<std::vector<std::string>> lists = {
      {R"(async_compile\.triton\()", R"(triton_meta=)", R"(# File: .*, code: )"},  // Inductor's
      {"triton"},
      {R"(def\s+forward\b)", "numba", "__global__"},
      {"(?i)TRITON", "^import x$", R"(\bjit\b)"},  // a flag ends with its group; ^ and $ at the text's ends
      {"a|b", "c"},
      {},
  };
  const std::vector<std::string> texts = {
      "",
      "import triton\n",
      "x = async_compile.triton('k', '''...''')\n",
      "async_compile.triton\n",  // no parenthesis
      "    triton_meta={'signature': {}}\n",
      "# File: /tmp/model.py:12, code: y = x + 1\n",
      "# File: model.py\n, code: across lines\n",
      "class M(nn.Module):\n    def  forward(self, x):\n        return x\n",
      "def forwarded(self): pass\n",
      "from numba import cuda\n",
      "__global__ void k() {}\n",
      "Triton in capitals\n",
      "import x\n",
      "import x",
      "abc",
      "c",
      "d",
      "no prefilter word at all\n",
  };
  for (const auto& patterns : lists) {
    Prefilter f(patterns);
    REQUIRE(f.ok());
    CHECK(f.searched_apart() == (patterns.size() > 1));
    for (const auto& text : texts) {
      INFO("text: " << text);
      if (patterns.empty()) {
        CHECK(f.matches(text));  // no patterns: every text may hold something
      } else {
        CHECK(f.matches(text) == joined_matches(patterns, text));
      }
    }
  }
}

TEST_CASE("prefilter: a pattern that parses only inside the alternation keeps the alternation's meaning",
          "[prefilter]") {
  // `a)|(b` alone is no regular expression; joined it reads `(?:a)|(b)|(?:zzz)`.
  std::vector<std::string> patterns = {"a)|(b", "zzz"};
  Prefilter f(patterns);
  REQUIRE(f.ok());
  CHECK_FALSE(f.searched_apart());
  for (const std::string text : {"a", "b", "zzz", "q", "(?:a)|(b)"}) {
    INFO("text: " << text);
    CHECK(f.matches(text) == joined_matches(patterns, text));
  }
}

TEST_CASE("prefilter: a bad pattern is reported", "[prefilter]") {
  Prefilter f({"ok", "bad("});
  CHECK_FALSE(f.ok());
  CHECK_FALSE(f.error().empty());
}
