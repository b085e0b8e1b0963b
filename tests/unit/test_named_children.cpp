#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/python/named_children.h"
#include "core/python/syntax_tree.h"

using namespace mine;

namespace {

// ts_node_named_child(n, i) for every i, line continuations left out: what for_each_named_child
// promises, whichever path it takes.
std::vector<std::string> by_index(const SyntaxTree& t, TSNode n) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode c = ts_node_named_child(n, i);
    if (!ts::is_line_continuation(c)) out.push_back(std::string(node_type(c)) + ":" + std::string(t.text_of(c)));
  }
  return out;
}

std::vector<std::string> by_walk(const SyntaxTree& t, TSNode n) {
  std::vector<std::string> out;
  for_each_named_child(n, [&](TSNode c) { out.push_back(std::string(node_type(c)) + ":" + std::string(t.text_of(c))); });
  return out;
}

}  // namespace

// for_each_named_child walks with a cursor where nodes have many children; it must see exactly the
// children ts_node_named_child(n, i) gives, in the same order, on every node of a file with
// decorators, comprehensions, strings, long blocks, backslash continuations and syntax errors.
TEST_CASE("cursor and indexed walks see the same named children", "[python][named_children]") {
  std::string text = "import a, b.c as d\nfrom .x import (y, z as w)\n";
  for (int i = 0; i < 30; ++i) text += "V" + std::to_string(i) + " = f(" + std::to_string(i) + ", k=[q for q in r if q])\n";
  text += "@dec(1)\n@other\ndef g(x, *args, y: int = 2, **kw):\n";
  for (int i = 0; i < 20; ++i) text += "    s" + std::to_string(i) + " = f\"{x}\" + 'lit' # note\n";
  text += "    return {k: v for k, v in kw.items()}, lambda u: u + 1\n";
  text += "class C(Base, metaclass=M):\n    def m(self): return self.a.b[1:2]\n";
  text += "t = f(1, \\\n      2, 3, 4, 5, 6, 7, 8, 9, \\\n      10)\n";
  text += "def broken(:\n    pass\n" + std::string("x = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)\n");
  auto tree = SyntaxTree::parse(text);
  std::vector<TSNode> stack{tree->root()};
  size_t nodes = 0, wide = 0;
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    ++nodes;
    if (ts_node_named_child_count(n) > 8) ++wide;
    REQUIRE(by_walk(*tree, n) == by_index(*tree, n));
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
  CHECK(nodes > 300);
  CHECK(wide >= 3);  // the module, g's body and the long tuple take the cursor path
}

// named_children(n) stands for ts_node_named_child(n, i) by index (the launch evaluator runs a
// block's statements by index and resumes at one): the very same nodes, line continuations and
// comments included, on every node of the same kind of file, and nothing for a null node.
TEST_CASE("named_children lists what ts_node_named_child indexes", "[python][named_children]") {
  std::string text = "def f(a, b):  # c\n    x = a + \\\n        b\n    # lone comment\n";
  for (int i = 0; i < 40; ++i) text += "    y" + std::to_string(i) + " = g(x, \\\n          " + std::to_string(i) + ")\n";
  text += "    return [v for v in (x, \\\n  y0) if v]\n@d\nclass K:\n    pass\nz = (1,\n  # c\n  2)\nbad = (\n";
  auto tree = SyntaxTree::parse(text);
  std::vector<TSNode> stack{tree->root()};
  size_t nodes = 0, continuations = 0;
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    ++nodes;
    std::vector<TSNode> listed = named_children(n);
    REQUIRE(listed.size() == ts_node_named_child_count(n));
    for (uint32_t i = 0; i < listed.size(); ++i) {
      REQUIRE(ts_node_eq(listed[i], ts_node_named_child(n, i)));
      continuations += ts::is_line_continuation(listed[i]);
      stack.push_back(listed[i]);
    }
  }
  CHECK(nodes > 400);
  CHECK(continuations > 40);  // listed, as ts_node_named_child lists them
  CHECK(named_children(TSNode{}).empty());
}
