#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/python/module_model.h"

namespace mine::check {

// Evaluates the small constant expressions kernels put in their decorators: literals, module
// constants, `args["N"]` inside heuristics lambdas, arithmetic, comparisons, and the few calls
// (triton.next_power_of_2, triton.cdiv, min, max, int, float) whose result is knowable without
// running the code. nullopt means "not knowable here"; nothing is ever executed.
class ConstantEvaluator {
 public:
  // `lookup` answers names bound by the caller (lambda arguments, comprehension variables,
  // `args[...]` keys under the name "args[KEY]"); module constants are tried after it.
  using Lookup = std::function<std::optional<nlohmann::json>(const std::string&)>;
  ConstantEvaluator(const PythonModule& module, Lookup lookup) : m_(module), lookup_(std::move(lookup)) {}

  std::optional<nlohmann::json> eval(TSNode expression, int depth = 0) const;
  // The right-hand side of the module-level `name = ...` binding: the only one, or the only one of
  // several that the module's constants reach (`if FLAG: name = a` / `else: name = b`).
  TSNode module_constant(const std::string& name) const;

 private:
  std::optional<nlohmann::json> enum_member(TSNode attribute, int depth) const;
  std::optional<nlohmann::json> call(TSNode n, int depth) const;
  const PythonModule& m_;
  Lookup lookup_;
};

// Python's `a op b` for numbers (ints stay ints; `//` and `%` floor as Python does; `&`, `|`, `^`,
// shifts on ints) and `+` of two lists; nullopt where Python would raise or the result is no number.
std::optional<nlohmann::json> arithmetic(const nlohmann::json& a, const std::string& op, const nlohmann::json& b);
// Python's `a // b` on ints (b != 0).
int64_t floor_div(int64_t a, int64_t b);

// Python truthiness of a JSON value as Python would see the corresponding literal.
bool truthy(const nlohmann::json& v);

// The values of the elements of a list or tuple node by `eval` (comments skipped), as a JSON
// array; nullopt as soon as one is not knowable.
template <typename Eval>
std::optional<nlohmann::json> all_elements(TSNode n, Eval&& eval) {
  nlohmann::json out = nlohmann::json::array();
  bool ok = true;
  for_each_named_child(n, [&](TSNode c) {
    if (!ok || is_type(c, "comment")) return;
    auto v = eval(c);
    if (!v) ok = false;
    else out.push_back(*v);
  });
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace mine::check
