// Node types asked by grammar symbol (PythonTypeSet, is_line_continuation) must answer what
// ts_node_type's name answers, on every node, named or not, of files with aliases, decorators,
// backslash continuations and syntax errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/python/python_type_set.h"
#include "core/python/syntax_tree.h"

using namespace mine;

TEST_CASE("type sets by symbol answer as type names do", "[python][type_set]") {
  const std::set<std::string> names{"block", "if_statement", "elif_clause", "except_clause", "identifier",
                                    "decorated_definition", "import_from_statement", "string_content", "ERROR"};
  const PythonTypeSet set{"block", "if_statement", "elif_clause", "except_clause", "identifier",
                          "decorated_definition", "import_from_statement", "string_content", "ERROR"};
  std::vector<std::string> texts{
      "import a\nfrom .b import (c, d as e)\nt = f(1, \\\n  2)\n@dec\ndef g(x, *a, **k):\n"
      "    if x:\n        return f\"{x!r}\"\n    elif y:\n        pass\n    try:\n        z = [q for q in r]\n"
      "    except E as e:\n        raise\n    match x:\n        case [1, *rest]: pass\n"
      "class C(B):\n    def m(self): return self.a\ndef broken(:\n    pass\n"};
  for (const auto& entry : std::filesystem::directory_iterator(MINE_FIXTURES_DIR "/triton")) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  size_t nodes = 0, in_set = 0, continuations = 0;
  for (const auto& text : texts) {
    auto tree = SyntaxTree::parse(text);
    std::vector<TSNode> stack{tree->root()};
    while (!stack.empty()) {
      TSNode n = stack.back();
      stack.pop_back();
      ++nodes;
      std::string type(node_type(n));
      REQUIRE(set.has(n) == (names.count(type) > 0));
      REQUIRE(ts::is_line_continuation(n) == (type == "line_continuation"));
      in_set += set.has(n);
      continuations += type == "line_continuation";
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i) stack.push_back(ts_node_child(n, i));
    }
  }
  CHECK_FALSE(set.has(TSNode{}));
  CHECK_FALSE(ts::is_line_continuation(TSNode{}));
  CHECK(nodes > 1000);
  CHECK(in_set > 100);
  CHECK(continuations >= 1);
}
