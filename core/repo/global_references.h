#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/python/syntax_tree.h"

namespace mine {

// One place where a module-level statement refers to a module-level (global) name: reads, the
// name a def/class/assignment binds, and names under `global`. Locals of nested function,
// lambda, comprehension and class scopes are left out, as Python scopes them.
struct GlobalReference {
  std::string name;
  uint32_t start = 0, end = 0;  // bytes of the identifier in the tree's text
  // `name.a.b`: the attributes read off the name, each with the end byte of `name.a`, `name.a.b`.
  std::vector<std::pair<std::string, uint32_t>> chain;
  bool imported = false;        // `from m import name`: renaming it means writing `name as new`
  bool dotted_import = false;   // `import a.b` binds `a`, which no alias can rename
  bool used_as_value() const { return chain.empty(); }
};

// Global references of `statement` in source order, so that a statement can be re-emitted with
// some globals renamed. Throws mine::Error when nesting exceeds `max_depth` (-1: max_nesting()).
// `deepest`, when given, receives the deepest nesting the walk reached: the same walk under any
// limit at or above it gives the same references (and under a lower one throws).
std::vector<GlobalReference> global_references(const SyntaxTree& tree, TSNode statement, int max_depth = -1,
                                               int* deepest = nullptr);

}  // namespace mine
