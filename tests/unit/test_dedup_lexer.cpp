#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/dedup/code_normalizer.h"
#include "core/dedup/min_hasher.h"
#include "core/dedup/python_lexer.h"

using namespace mine::dedup;

namespace {

std::string lexed(const std::string& src) {
  std::string out;
  for (const auto& t : lex_python_tokens(src)) out += (out.empty() ? "" : " ") + t;
  return out;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The parse-based exact stream without its layout markers, and one-element-tuple commas dropped
// (the lexer cannot tell `(x,)` from `f(x,)`).
std::vector<std::string> parsed_tokens(const std::string& src) {
  CodeNormalizer n;
  std::vector<std::string> out;
  for (auto& t : n.normalize(src).exact)
    if (t != "<indent>" && t != "<dedent>" && t != "<nl>" && t != "<tuple1>") out.push_back(t);
  return out;
}

}  // namespace

TEST_CASE("lexer drops comments, docstrings, layout and trailing commas", "[dedup][lexer]") {
  CHECK(lexed("'''Module doc.'''\nimport os  # why\n\ndef f(a, b,):\n    \"\"\"Doc.\"\"\"\n    return (a +\n"
              "            b); x = 1\n") == "import os def f ( a , b ) : return ( a + b ) x = 1");
  CHECK(lexed("x = 'it\\'s' + R\"raw\" + 0XFF + 1E-6\n") == "x = \"it's\" + r\"raw\" + 0xff + 1e-6");
  CHECK(lexed("def f():\n    x = 1\n    'kept'\n") == "def f ( ) : x = 1 \"kept\"");
  CHECK(lexed("s = '''a\nb'''\n") == "s = \"a\nb\"");
  CHECK(lexed("a **= b // c -> d := e ... f\n") == "a **= b // c -> d := e ... f");
  CHECK(lexed("x = 'unterminated\ny = 2\n") == "x = \"unterminated\" y = 2");
  CHECK(lexed("").empty());
  std::vector<uint64_t> hashes;
  lex_python_hashes("a = b\n", hashes);
  CHECK(hashes == std::vector<uint64_t>{MinHasher::token_hash("a"), MinHasher::token_hash("="), MinHasher::token_hash("b")});
}

TEST_CASE("lexer and parser agree on the tokens of every fixture", "[dedup][lexer]") {
  int files = 0;
  for (const char* dir : {"dedup", "triton"}) {
    for (const auto& e : std::filesystem::directory_iterator(std::string(MINE_FIXTURES_DIR) + "/" + dir)) {
      if (e.path().extension() != ".py") continue;
      std::string src = read(e.path());
      INFO(e.path().string());
      CHECK(lex_python_tokens(src) == parsed_tokens(src));
      ++files;
    }
  }
  CHECK(files >= 15);
}

TEST_CASE("a reformatted copy lexes to the same stream", "[dedup][lexer]") {
  std::string dir = std::string(MINE_FIXTURES_DIR) + "/dedup/";
  CHECK(lex_python_tokens(read(dir + "original.py")) == lex_python_tokens(read(dir + "reformatted.py")));
  CHECK(lex_python_tokens(read(dir + "original.py")) != lex_python_tokens(read(dir + "one_line_change.py")));
}
