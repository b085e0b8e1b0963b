#pragma once
// A kernel's own `tl.static_assert(...)` is a fact about its constexprs: `BLOCK_N <= HEAD_DIM`,
// `QGROUP_SIZE % BLOCK_K == 0`, `SCALING_MODE == "floor"`. So is each `tl.arange(start, end)`,
// which Triton compiles only when end - start is a positive power of two. When the values the
// resolver guessed break one, the compile can only fail; this moves one guessed value at a time
// to a nearby one that satisfies it without breaking another condition that held.
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/check/decorator_facts.h"
#include "core/python/module_model.h"

namespace mine::check {

struct AssertRepair {
  std::string name;       // the constexpr that moved
  nlohmann::json value;   // its new value
  std::string assertion;  // `tl.static_assert(cond)` or the `tl.arange(...)` call, for the corpus's "why"
};

// `movable` are the constexprs the resolver only guessed (block sizes, defaults, fallbacks); the
// values the repository's launch gives stay. Asserts inside a branch the known values rule out
// are skipped, as Triton skips them. `known` is updated with each repair.
std::vector<AssertRepair> repair_static_asserts(const PythonModule& m, TSNode body, Env& known,
                                                const std::set<std::string>& movable);

}  // namespace mine::check
