// free_names and bound_names of one statement: the scope rules the closures depend on. The walk
// collects names in the order it meets them, with repeats, and sorts them once per scope; these
// cases pin the sets it must give (written against the tree-set walk it replaced, and passing on
// both).
#include <catch2/catch.hpp>

#include "core/python/name_scopes.h"

using namespace mine;

namespace {

FreeNames free_of(const std::string& code) {
  auto tree = SyntaxTree::parse(code);
  return free_names(*tree, ts_node_named_child(tree->root(), 0));
}

std::set<std::string> names(std::initializer_list<const char*> list) { return {list.begin(), list.end()}; }

}  // namespace

TEST_CASE("free names: repeats once, locals and parameters out, defaults and decorators in", "[free_names]") {
  FreeNames f = free_of(
      "@deco(level)\n"
      "def f(x, y=default_y, *args, z: Hint = 3, **kw):\n"
      "    a = g(x) + g(y) + g(a_global)\n"
      "    for i in range(n):\n"
      "        a += h(i, i, i)\n"
      "    return a + x + tl.sum(a) + tl.max(b)\n");
  CHECK(f.names == names({"Hint", "a_global", "b", "deco", "default_y", "g", "h", "level", "n", "range", "tl"}));
  CHECK(f.attributes == std::map<std::string, std::set<std::string>>{{"tl", {"max", "sum"}}});
}

TEST_CASE("free names: global and nonlocal names stay free, an attribute of a local base is dropped", "[free_names]") {
  FreeNames f = free_of(
      "def f():\n"
      "    global counter\n"
      "    counter = counter + 1\n"
      "    obj = make()\n"
      "    obj.run()\n"
      "    mod.helper(obj.size)\n"
      "    def inner():\n"
      "        nonlocal obj\n"
      "        return obj.other + mod.helper2()\n"
      "    return inner\n");
  CHECK(f.names == names({"counter", "make", "mod"}));
  CHECK(f.attributes == std::map<std::string, std::set<std::string>>{{"mod", {"helper", "helper2"}}});
}

TEST_CASE("free names: a method skips its class's scope, comprehensions and lambdas bind their own", "[free_names]") {
  FreeNames f = free_of(
      "class C(Base, metaclass=Meta):\n"
      "    size = 4\n"
      "    table = [size * k for k in ks]\n"
      "    def m(self):\n"
      "        return size + self.size + helper.go(lambda v, w=dflt: v + w + free_in_lambda)\n"
      "    key = sorted(items, key=lambda it: it.name)\n");
  // `size` is a class-level name, yet the method's read skips the class scope: free.
  CHECK(f.names == names({"Base", "Meta", "dflt", "free_in_lambda", "helper", "items", "ks", "size", "sorted"}));
  CHECK(f.attributes == std::map<std::string, std::set<std::string>>{{"helper", {"go"}}});
}

TEST_CASE("bound names: targets, imports and definitions", "[free_names]") {
  auto tree = SyntaxTree::parse(
      "a, (b, c), *d = value\n"
      "from x.y import p as q, r\n"
      "import s.t, u as v\n"
      "for e in range(3):\n    f = e\n");
  std::vector<std::set<std::string>> bound;
  for (uint32_t i = 0; i < ts_node_named_child_count(tree->root()); ++i)
    bound.push_back(bound_names(*tree, ts_node_named_child(tree->root(), i)));
  REQUIRE(bound.size() == 4);
  CHECK(bound[0] == names({"a", "b", "c", "d"}));
  CHECK(bound[1] == names({"q", "r"}));
  CHECK(bound[2] == names({"s", "v"}));
  CHECK(bound[3] == names({"e", "f"}));
}
