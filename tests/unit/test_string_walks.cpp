// The scope walks (free names, global references) skip the children of strings that are no format
// strings: only an f-string's interpolations read names. These cases pin which strings are
// skipped, that interpolations are still read, and that the nesting limit still fails a statement
// exactly where walking the string's children would.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/python/name_scopes.h"
#include "core/python/string_prefix.h"
#include "core/repo/global_references.h"

using namespace mine;

namespace {

TSNode first_statement(const SyntaxTree& tree) { return ts_node_named_child(tree.root(), 0); }

bool free_names_throw(const std::string& code, int max_depth) {
  auto tree = SyntaxTree::parse(code);
  try {
    free_names(*tree, first_statement(*tree), max_depth);
  } catch (const Error&) {
    return true;
  }
  return false;
}

int deepest_reference_walk(const std::string& code, int max_depth) {
  auto tree = SyntaxTree::parse(code);
  int deepest = 0;
  global_references(*tree, first_statement(*tree), max_depth, &deepest);
  return deepest;
}

}  // namespace

TEST_CASE("a string is a format string when its prefix has an f", "[string_walks]") {
  for (const char* literal : {"f'{x}'", "F\"{x}\"", "rf'{x}'", "fR'''{x}'''"}) CHECK(is_format_string(literal));
  for (const char* literal : {"'{x}'", "\"\"\"f{x}\"\"\"", "rb'{x}'", "u'{x}'", "'f'", "Rb'x' + f'x'"})
    CHECK_FALSE(is_format_string(literal));
}

TEST_CASE("interpolations are read, other strings' braces are not", "[string_walks]") {
  auto tree = SyntaxTree::parse("y = f'{a.b} {c!r:>{width}}' + '{d}' + \"\"\"{e}\"\"\" + rb'{g}'\n");
  FreeNames f = free_names(*tree, first_statement(*tree));
  CHECK(f.names == std::set<std::string>{"a", "c", "width"});
  std::set<std::string> refs;
  for (const auto& r : global_references(*tree, first_statement(*tree))) refs.insert(r.name);
  CHECK(refs == std::set<std::string>{"a", "c", "width", "y"});
}

TEST_CASE("the nesting limit fails a statement at the depth of its strings' children", "[string_walks]") {
  // expression_statement (0) > assignment (1) > string (2) > string_content (3) > escape_sequence (4)
  const std::string escaped = "x = 'a\\n'\n";
  CHECK(free_names_throw(escaped, 3));
  CHECK_FALSE(free_names_throw(escaped, 4));
  // The reference walk goes to the string's children (3), not into their content.
  CHECK(deepest_reference_walk(escaped, 3) == 3);
  CHECK_THROWS_AS(deepest_reference_walk(escaped, 2), Error);
}
