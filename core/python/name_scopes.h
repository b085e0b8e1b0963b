#pragma once
#include <map>
#include <set>
#include <string>

#include "core/python/syntax_tree.h"

namespace mine {

// What one statement needs from the module around it.
struct FreeNames {
  std::set<std::string> names;  // read but not bound locally (function scopes resolved as Python does)
  // For `H.fast_exp` where H is free: H -> {fast_exp}. Lets module aliases resolve to single members.
  std::map<std::string, std::set<std::string>> attributes;
};

// Names a statement binds in the scope it runs in (def/class names, assignment targets, imports).
std::set<std::string> bound_names(const SyntaxTree& tree, TSNode statement);

// Free names of `node` as seen from the scope the node is written in: names read by the
// statement minus those that its own function/class/lambda/comprehension scopes bind.
// Throws mine::Error when nesting exceeds `max_depth` (hostile input must not overflow the stack).
FreeNames free_names(const SyntaxTree& tree, TSNode node, int max_depth = 400);

// True when `name` is a Python builtin (len, range, print, ...), or a module dunder (__name__).
bool is_python_builtin(const std::string& name);

}  // namespace mine
