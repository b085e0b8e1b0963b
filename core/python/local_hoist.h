#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/python/dependency_closure.h"
#include "core/python/module_model.h"

namespace mine {

// One statement of an enclosing function moved to module level in a nested kernel's standalone.
struct HoistedStatement {
  TSNode node{};
  int indent = 0;          // column it is written at
  std::string kind;        // import | constant | function | class
  std::vector<std::string> names;  // the names the kernel (or another hoisted statement) needs from it
};

// What a function nested in other functions takes from their scopes. Their imports, constants
// (`BLOCK = 128`, `DTYPE = tl.float16`) and sibling definitions can stand at module level when
// everything they read can too; a parameter, a loop variable or anything computed from one is
// known only when the enclosing function runs, and stays unresolved.
struct LocalHoist {
  std::vector<HoistedStatement> statements;      // in source order
  std::set<std::string> binds;                   // every name the hoisted statements bind
  FreeNames reads;                               // names the kernel and the hoisted statements read from the module
  std::map<std::string, std::string> run_time;   // local name the kernel reads -> why it cannot be hoisted
  bool empty() const { return statements.empty() && run_time.empty(); }
};

// Splits `reads` (the free names of the nested function at `node`) into what its enclosing
// functions provide (hoisted or left as run-time locals) and what the module provides. Throws
// mine::Error when nesting exceeds max_nesting().
LocalHoist hoist_from_enclosing_functions(const PythonModule& module, TSNode node, const FreeNames& reads);

// The text of the hoisted statements at column 0, imports first, then the rest in source order.
std::string hoisted_text(const PythonModule& module, const LocalHoist& hoist);

}  // namespace mine
