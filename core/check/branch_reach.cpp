#include "core/check/branch_reach.h"

#include "core/check/constant_eval.h"

namespace mine::check {

std::optional<nlohmann::json> eval_with(const PythonModule& m, const Env& env, TSNode n) {
  ConstantEvaluator e(m, [&](const std::string& name) -> std::optional<nlohmann::json> {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<nlohmann::json>(it->second);
  });
  return e.eval(n);
}

std::optional<bool> branch_taken(const PythonModule& m, const Env& env, TSNode node, TSNode body) {
  bool open = false;
  // False when `condition` is decided against `want`; an undecided one leaves the answer open.
  auto holds = [&](TSNode condition, bool want) {
    auto v = eval_with(m, env, condition);
    if (!v) open = true;
    return !v || truthy(*v) == want;
  };
  TSNode child = node;
  for (TSNode parent = ts_node_parent(child); !ts_node_is_null(parent) && !ts_node_eq(child, body);
       child = parent, parent = ts_node_parent(parent)) {
    if (is_type(parent, "if_statement") || is_type(parent, "elif_clause")) {
      TSNode consequence = field(parent, "consequence");
      if (!ts_node_is_null(consequence) && ts_node_eq(child, consequence)) {
        if (!holds(field(parent, "condition"), true)) return false;
      } else if (is_type(parent, "if_statement") && (is_type(child, "elif_clause") || is_type(child, "else_clause"))) {
        // Reached only when the `if` and every earlier `elif` were false.
        if (!holds(field(parent, "condition"), false)) return false;
        bool past = false, ruled_out = false;
        for_each_named_child(parent, [&](TSNode c) {
          if (past || ruled_out) return;
          if (ts_node_eq(c, child)) past = true;
          else if (is_type(c, "elif_clause") && !holds(field(c, "condition"), false)) ruled_out = true;
        });
        if (ruled_out) return false;
      }
    }
    if (is_type(parent, "function_definition")) break;
  }
  if (open) return std::nullopt;
  return true;
}

}  // namespace mine::check
