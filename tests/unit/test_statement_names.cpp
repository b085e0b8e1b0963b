// statement_names gives a module statement's bound and free names from one walk: the same sets
// bound_names and free_names give apart, and the same error past the nesting limit.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/python/name_scopes.h"
#include "include/mine/ts_nodes.h"

using namespace mine;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("statement names: one walk gives what bound_names and free_names give", "[statement_names]") {
  auto tree = SyntaxTree::parse(
      "import os, numpy as np\n"
      "from .a import b as c, d\n"
      "X, (Y, *Z) = f(W), [v for v in V if v > LIMIT]\n"
      "T[k] += g(h.attr)\n"
      "try:\n"
      "    import triton\n"
      "    from triton import language as tl\n"
      "except ImportError:\n"
      "    triton = tl = None\n"
      "if HAS_X:\n"
      "    def fast(a):\n"
      "        return a + B\n"
      "else:\n"
      "    fast = slow\n"
      "@deco(level)\n"
      "def kernel(x, y=DEFAULT):\n"
      "    global G\n"
      "    G = lambda q: q + x + tl.sum(y)\n"
      "class Layer(Base, metaclass=Meta):\n"
      "    size = SIZE\n"
      "    def run(self):\n"
      "        return size + helper(self)\n"
      "REGISTRY.append(kernel)\n");
  int statements = 0;
  ts::for_each_named_child(tree->root(), [&](TSNode s) {
    ++statements;
    StatementNames names = statement_names(*tree, s);
    CHECK(names.binds == bound_names(*tree, s));
    FreeNames free = free_names(*tree, s);
    CHECK(names.reads.names == free.names);
    CHECK(names.reads.attributes == free.attributes);
  });
  CHECK(statements == 9);
}

TEST_CASE("statement names: past the nesting limit, the error the separate walks raise", "[statement_names]") {
  std::string deep = "x = " + std::string(600, '(') + "1" + std::string(600, ')') + "\n";
  auto tree = SyntaxTree::parse(deep);
  TSNode s = ts_node_named_child(tree->root(), 0);
  std::string apart = error_of([&] { bound_names(*tree, s); });
  CHECK_FALSE(apart.empty());
  CHECK(error_of([&] { statement_names(*tree, s); }) == apart);
  CHECK(error_of([&] { free_names(*tree, s); }) == apart);
}
