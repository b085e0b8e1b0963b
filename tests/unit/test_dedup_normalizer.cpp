#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "core/dedup/code_normalizer.h"

using mine::dedup::CodeNormalizer;
using mine::dedup::token_stream_hash;

namespace {

std::string joined(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) out += (out.empty() ? "" : " ") + t;
  return out;
}

std::string exact(const std::string& src) {
  CodeNormalizer n;
  return joined(n.normalize(src).exact);
}
std::string alpha(const std::string& src) {
  CodeNormalizer n;
  return joined(n.normalize(src).alpha);
}

}  // namespace

TEST_CASE("exact form drops comments, docstrings and layout", "[dedup][normalizer]") {
  std::string a = "def f(x, y):\n    \"\"\"Doc.\"\"\"\n    # note\n    return x + y  # sum\n";
  std::string b = "def f(x,y,):\n    return (x\n            + y)\n";
  CHECK(exact(a) == "def f ( x , y ) : <indent> return x + y <nl> <dedent> <nl>");
  // b keeps its parentheses (black keeps them too), so only the layout and the trailing comma go.
  CHECK(exact(b) == "def f ( x , y ) : <indent> return ( x + y ) <nl> <dedent> <nl>");
}

TEST_CASE("quote style, prefix case and number case do not matter", "[dedup][normalizer]") {
  CHECK(exact("x = 'it\\'s'\ny = 0XFF\nz = R'a'\n") == exact("x = \"it's\"\ny = 0xff\nz = r\"a\"\n"));
  CHECK(exact("x = 'a'\n") != exact("x = 'b'\n"));
}

TEST_CASE("semicolons and one-line blocks equal their multi-line layout", "[dedup][normalizer]") {
  CHECK(exact("a = 1; b = 2\nif a: b = 3\n") == exact("a = 1\nb = 2\nif a:\n    b = 3\n"));
}

TEST_CASE("block structure is part of the exact form", "[dedup][normalizer]") {
  std::string inside = "if a:\n    x()\n    y()\n";
  std::string after = "if a:\n    x()\ny()\n";
  CHECK(exact(inside) != exact(after));
}

TEST_CASE("a one-element tuple keeps its comma", "[dedup][normalizer]") {
  CHECK(exact("t = (x,)\n") != exact("t = (x)\n"));
  CHECK(exact("f(x,)\n") == exact("f(x)\n"));
  CHECK(exact("l = [1, 2,]\n") == exact("l = [1, 2]\n"));
}

TEST_CASE("a string that is not first in its body is code, not a docstring", "[dedup][normalizer]") {
  CHECK(exact("def f():\n    x = 1\n    'kept'\n") != exact("def f():\n    x = 1\n"));
  CHECK(exact("def f():\n    'dropped'\n    x = 1\n") == exact("def f():\n    x = 1\n"));
  CHECK(exact("class C:\n    'doc'\n    x = 1\n") == exact("class C:\n    x = 1\n"));
  CHECK(exact("'module doc'\nimport os\n") == exact("import os\n"));
}

TEST_CASE("alpha renames parameters and locals only", "[dedup][normalizer]") {
  std::string src =
      "import triton.language as tl\n"
      "G = 3\n"
      "def k(ptr, n, BLOCK: tl.constexpr):\n"
      "    offs = tl.arange(0, BLOCK)\n"
      "    x = tl.load(ptr + offs, mask=offs < n)\n"
      "    return x.sum(axis=G)\n";
  CHECK(alpha(src) ==
        "import triton . language as tl <nl> G = 3 <nl> def k ( v0 , v1 , v2 : tl . constexpr ) : <indent> "
        "v3 = tl . arange ( 0 , v2 ) <nl> v4 = tl . load ( v0 + v3 , mask = v3 < v1 ) <nl> "
        "return v4 . sum ( axis = G ) <nl> <dedent> <nl>");
}

TEST_CASE("alpha form is the same for consistently renamed locals", "[dedup][normalizer]") {
  std::string a = "def f(a, b=2, *args, **kw):\n    for i, (j, k) in enumerate(a):\n        s = i + j\n    return [t for t in args if (u := t)]\n";
  std::string b = "def f(p, q=2, *rest, **opts):\n    for m, (n, o) in enumerate(p):\n        acc = m + n\n    return [e for e in rest if (w := e)]\n";
  CHECK(exact(a) != exact(b));
  CHECK(alpha(a) == alpha(b));
}

TEST_CASE("alpha keeps globals declared in a function and the function's own name", "[dedup][normalizer]") {
  std::string a = "def f(x):\n    global counter\n    counter = x\n";
  std::string b = "def f(y):\n    global total\n    total = y\n";
  CHECK(alpha(a) != alpha(b));
  CHECK(alpha(a).find("counter") != std::string::npos);
  CHECK(alpha("def outer():\n    def inner(z):\n        return z\n    return inner\n") ==
        alpha("def outer():\n    def helper(z):\n        return z\n    return helper\n"));
  CHECK(alpha("def f(x):\n    return x\n").rfind("def f", 0) == 0);
}

TEST_CASE("closures resolve to the enclosing function's names", "[dedup][normalizer]") {
  std::string a = "def f(n):\n    g = lambda x: x + n\n    return g\n";
  std::string b = "def f(m):\n    h = lambda y: y + m\n    return h\n";
  CHECK(alpha(a) == alpha(b));
}

TEST_CASE("bad Python still normalizes", "[dedup][normalizer]") {
  CodeNormalizer n;
  auto code = n.normalize("def f(:\n    return ((\n");
  CHECK(code.had_syntax_errors);
  CHECK_FALSE(code.exact.empty());
  CHECK(token_stream_hash(code.exact).size() == 64);
  CHECK(n.normalize("").exact.empty());
}
