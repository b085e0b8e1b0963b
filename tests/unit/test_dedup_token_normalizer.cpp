#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/dedup/code_normalizer.h"
#include "core/dedup/token_normalizer.h"

using mine::dedup::CodeNormalizer;
using mine::dedup::normalize_by_tokens;
using mine::dedup::normalize_python;
using mine::dedup::NormalizedCode;

namespace {

std::string joined(const std::vector<std::string>& tokens) {
  std::string out;
  for (const auto& t : tokens) out += (out.empty() ? "" : " ") + t;
  return out;
}

// The token reader either declines or writes exactly what the tree-sitter walk writes.
void check_same_as_parse(const std::string& src) {
  NormalizedCode by_tokens;
  REQUIRE(normalize_by_tokens(src, by_tokens));
  CodeNormalizer parser;
  NormalizedCode parsed = parser.normalize(src);
  INFO(src);
  CHECK(joined(by_tokens.exact) == joined(parsed.exact));
  CHECK(joined(by_tokens.alpha) == joined(parsed.alpha));
}

bool declines(const std::string& src) {
  NormalizedCode out;
  return !normalize_by_tokens(src, out);
}

}  // namespace

TEST_CASE("token normal forms equal the parsed ones on kernel-shaped code", "[dedup][normalizer]") {
  check_same_as_parse(
      "'''Module doc.'''\n"
      "import triton\nimport triton.language as tl\nfrom .common import (a, b,)\n\n"
      "@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=4),], key=['n'])\n"
      "@triton.jit\n"
      "def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr = 128, *args, **kw) -> None:\n"
      "    \"\"\"Doc.\"\"\"\n"
      "    pid = tl.program_id(axis=0)  # comment\n"
      "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
      "    acc, (lo, hi) = 0., (1, 2)\n"
      "    acc += 1E-6; t = (offs,)\n"
      "    x: tl.tensor = tl.load(x_ptr + offs, mask=offs < n, other=0)\n"
      "    for i in tl.static_range(4):\n"
      "        acc = acc + i\n"
      "    else:\n"
      "        pass\n"
      "    if pid == 0: return\n"
      "    elif pid > 1:\n"
      "        y = [j * 2 for j in range(3) if j]\n"
      "    else:\n"
      "        while (z := n) > 0:\n"
      "            n -= 1\n"
      "    tl.store(out_ptr + offs, x.to(tl.float16), mask=offs < n,)\n"
      "grid = lambda META: (triton.cdiv(1024, META['BLOCK']),)\n");
}

TEST_CASE("token normal forms follow the parse's scopes", "[dedup][normalizer]") {
  // nested functions and classes, global / nonlocal, with- and except-aliases, imports inside a
  // function, lambdas with defaults, decorators resolved outside the function they decorate.
  check_same_as_parse(
      "G = 1\n"
      "def outer(a, b=G):\n"
      "    global G\n"
      "    import os.path as osp\n"
      "    c = a\n"
      "    def inner(d, e=c):\n"
      "        nonlocal c\n"
      "        c = d + e + a\n"
      "        return lambda f, g=d: f + g + c\n"
      "    class Local(Base, metaclass=Meta):\n"
      "        field = c\n"
      "        def method(self, h):\n"
      "            return self.field + h + c\n"
      "    @inner\n"
      "    def decorated(): 'doc'; return a\n"
      "    try:\n"
      "        with open(osp) as fh, ctx() as (p, q):\n"
      "            G = fh.read(size=p)\n"
      "    except (OSError, ValueError) as err:\n"
      "        raise RuntimeError(err) from err\n"
      "    finally:\n"
      "        del c\n"
      "    return {k: v for k, v in zip(a, b)}, f\"{a!r}\", 0XFF, rb'\\x00'\n");
}

TEST_CASE("the token reader declines what it does not model", "[dedup][normalizer]") {
  CHECK(declines("def f():\n\treturn 1\n"));                      // tab indentation
  CHECK(declines("def f():\n    x = (1\n"));                      // unbalanced bracket
  CHECK(declines("def f():\n    x = 1\n        y = 2\n"));        // unexpected indent
  CHECK(declines("match x:\n    case 1:\n        pass\n"));        // match statement
  CHECK(declines("template <typename T> __global__ void k(T* x) { x[0] = 1; }\n"));  // C++
  CHECK(declines("t = (x,  # one\n     )\n"));                    // a comment inside (x,)
  CHECK(declines("s = f\"{d[\"k\"]}\"\n"));                        // a Python 3.12 f-string
  CHECK(declines("def f[T](x: T) -> T:\n    return x\n"));         // type parameters
  CHECK(declines("print 'hello'\n"));                              // Python 2
}

TEST_CASE("normalize_python parses what the token reader declines", "[dedup][normalizer]") {
  std::string tabs = "def f(a):\n\treturn a\n";
  CodeNormalizer parser, other;
  NormalizedCode got = normalize_python(tabs, parser);
  CHECK(got.alpha == other.normalize(tabs).alpha);
  CHECK(joined(got.alpha) == "def f ( v0 ) : <indent> return v0 <nl> <dedent> <nl>");
}

TEST_CASE("token normal forms equal the parsed ones on every Python fixture", "[dedup][normalizer]") {
  // The fixtures hold real kernels, old and new Inductor output, notebooks' code and fuzz seeds:
  // each one the reader accepts must come out exactly as the parse writes it.
  size_t accepted = 0, total = 0;
  CodeNormalizer parser;
  for (const auto& root : {std::string(MINE_FIXTURES_DIR), std::string(MINE_SOURCE_DIR) + "/examples"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      if (!e.is_regular_file() || e.path().extension() != ".py") continue;
      std::ifstream f(e.path(), std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      std::string src = ss.str();
      ++total;
      NormalizedCode by_tokens;
      if (!normalize_by_tokens(src, by_tokens)) continue;
      ++accepted;
      NormalizedCode parsed = parser.normalize(src);
      INFO(e.path().string());
      CHECK(by_tokens.exact == parsed.exact);
      CHECK(by_tokens.alpha == parsed.alpha);
      // What dedup stores: the hashes of the joined streams, built without token vectors.
      std::string exact_hash, alpha_hash;
      CHECK(mine::dedup::hash_by_tokens(src, exact_hash, alpha_hash));
      CHECK(exact_hash == mine::dedup::token_stream_hash(parsed.exact));
      CHECK(alpha_hash == mine::dedup::token_stream_hash(parsed.alpha));
    }
  }
  CHECK(total > 50);
  CHECK(accepted * 10 > total * 8);  // the reader is worth having only if it takes most code
}
