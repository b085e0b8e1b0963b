#pragma once
#include <map>
#include <set>
#include <string>

#include "core/python/syntax_tree.h"

namespace mine {

// How deep the analysis follows nested syntax in a file before refusing the file (mine::Error,
// recorded as a per-file problem), so that hostile nesting never overflows a thread's stack:
// expressions and blocks within one statement up to max_nesting() levels, blocks of module-level
// statements (if/try holding definitions) up to a quarter of it. `mine scan --max-nesting` sets it
// once, before any thread starts.
constexpr int kDefaultMaxNesting = 400;
constexpr int kMaxMaxNesting = 2000;  // deeper recursion would put the stack of a worker at risk
int max_nesting();
// Throws mine::Error unless 8 <= levels <= kMaxMaxNesting.
void set_max_nesting(int levels);

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
// Throws mine::Error when nesting exceeds `max_depth` (hostile input must not overflow the stack);
// -1: max_nesting().
FreeNames free_names(const SyntaxTree& tree, TSNode node, int max_depth = -1);

// bound_names and free_names of one statement, from one walk where both walk it (assignments,
// if/try blocks); the same sets, and the same error past the nesting limit.
struct StatementNames {
  std::set<std::string> binds;
  FreeNames reads;
};
StatementNames statement_names(const SyntaxTree& tree, TSNode statement);

// True when `name` is a Python builtin (len, range, print, ...), or a module dunder (__name__).
bool is_python_builtin(const std::string& name);

}  // namespace mine
