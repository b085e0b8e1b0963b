#pragma once
// Which branch of a kernel's `if`/`elif`/`else` the constexprs take: Triton compiles only that one,
// so facts (asserts, descriptor calls) inside a branch the values rule out do not apply.
#include <nlohmann/json.hpp>
#include <optional>

#include "core/check/decorator_facts.h"
#include "core/python/module_model.h"

namespace mine::check {

// `n` evaluated with the names in `env` (then module constants); nullopt when not knowable.
std::optional<nlohmann::json> eval_with(const PythonModule& m, const Env& env, TSNode n);

// Whether the enclosing `if`/`elif`/`else` clauses between `node` and `body` (a null `body`: up
// to the module) are taken under `env`: false when one is decided against it, true when every one
// is decided for it, nullopt when some stay open.
std::optional<bool> branch_taken(const PythonModule& m, const Env& env, TSNode node, TSNode body);

// False when an enclosing `if`/`elif`/`else` between `node` and `body` is decided against it.
inline bool reachable_under(const PythonModule& m, const Env& env, TSNode node, TSNode body) {
  return branch_taken(m, env, node, body) != false;
}

}  // namespace mine::check
