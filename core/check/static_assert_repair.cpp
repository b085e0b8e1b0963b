#include "core/check/static_assert_repair.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/check/body_usage.h"
#include "core/check/branch_reach.h"
#include "core/check/constant_eval.h"
#include "core/check/pointer_usage.h"
#include "core/python/function_parameters.h"

namespace mine::check {
namespace {

enum class Verdict { Holds, Fails, Undecided };

// A condition the constexprs must meet: a `tl.static_assert`, or what Triton demands of every
// `tl.arange(start, end)` (end > start, and a power of two apart), which binds the values as
// firmly as an assert does (`tl.arange(HEAD_DIM_V, HEAD_DIM)`).
struct Condition {
  TSNode node;          // the assert's condition, or the arange call
  TSNode start, end{};  // arange only (start null: 0)
  bool arange = false;
  // A helper's condition (`_inner(..., BLOCK_Q, BLOCK_K)` asserting `BLOCK_K % BLOCK_Q == 0`):
  // the helper's body, and its parameters by the kernel's names handed to them as they are.
  TSNode helper_body{};
  std::map<std::string, std::string> kernel_name;  // helper parameter -> the kernel's name
  std::set<std::string> helper_params;
};

// The values a condition reads: the kernel's own, or a helper's parameters as the call hands them.
Env env_of(const Env& env, const Condition& c) {
  if (ts_node_is_null(c.helper_body)) return env;
  Env out = env;
  for (const auto& p : c.helper_params) {
    auto name = c.kernel_name.find(p);
    auto value = name == c.kernel_name.end() ? env.end() : env.find(name->second);
    if (value == env.end()) out.erase(p);
    else out[p] = value->second;
  }
  return out;
}

Verdict judge(const PythonModule& m, const Env& kernel_env, const Condition& c, TSNode kernel_body) {
  Env env = env_of(kernel_env, c);
  TSNode body = ts_node_is_null(c.helper_body) ? kernel_body : c.helper_body;
  if (!reachable_under(m, env, c.node, body)) return Verdict::Undecided;
  if (c.arange) {
    auto a = ts_node_is_null(c.start) ? std::optional<nlohmann::json>(0) : eval_with(m, env, c.start);
    auto b = eval_with(m, env, c.end);
    if (!a || !b || !a->is_number_integer() || !b->is_number_integer()) return Verdict::Undecided;
    int64_t n = b->get<int64_t>() - a->get<int64_t>();
    return n > 0 && (n & (n - 1)) == 0 ? Verdict::Holds : Verdict::Fails;
  }
  auto v = eval_with(m, env, c.node);
  if (!v) return Verdict::Undecided;
  return truthy(*v) ? Verdict::Holds : Verdict::Fails;
}

std::vector<Condition> conditions_of(const PythonModule& m, TSNode body) {
  std::vector<Condition> out;
  for (TSNode a : static_assert_conditions(m, body)) out.push_back({a, TSNode{}, TSNode{}, false, TSNode{}, {}, {}});
  // The asserts of the module's functions the kernel calls, one level down, where the call hands
  // the kernel's own names (`BLOCK_Q, d_head, BLOCK_K` positionally or by keyword).
  for_each_call(body, [&](TSNode call) {
    TSNode fn = field(call, "function");
    if (!is_type(fn, "identifier")) return;
    const FunctionSite* helper = module_function(m, m.text_of(fn));
    if (!helper || ts_node_eq(field(helper->definition, "body"), body)) return;
    Condition base{TSNode{}, TSNode{}, TSNode{}, false, field(helper->definition, "body"), {}, {}};
    for (const auto& p : parameter_names(m, helper->definition)) base.helper_params.insert(p);
    for_each_call_argument(m, call, helper->definition, [&](const std::string& param, TSNode value) {
      if (is_type(value, "identifier")) base.kernel_name[param] = m.text_of(value);
    });
    for (TSNode a : static_assert_conditions(m, base.helper_body)) {
      Condition c = base;
      c.node = a;
      out.push_back(c);
    }
  });
  for_each_call(body, [&](TSNode call) {
    auto q = m.qualified_name(field(call, "function"));
    if (!q || *q != "triton.language.arange") return;
    TSNode first = argument(call, 0), second = argument(call, 1);
    if (ts_node_is_null(first)) return;
    // Only aranges whose bounds name constexprs: literal ones are the kernel's own business.
    if (ts_node_is_null(second)) out.push_back({call, TSNode{}, first, true, TSNode{}, {}, {}});
    else out.push_back({call, first, second, true, TSNode{}, {}, {}});
  });
  return out;
}

void collect(const PythonModule& m, TSNode n, std::vector<std::string>& names, std::vector<TSNode>& strings) {
  if (is_type(n, "identifier")) {
    std::string s = m.text_of(n);
    if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
    return;
  }
  if (is_type(n, "string")) {
    strings.push_back(n);
    return;
  }
  if (is_type(n, "attribute")) {  // `x.dtype`: only the object can be a parameter
    collect(m, field(n, "object"), names, strings);
    return;
  }
  for_each_named_child(n, [&](TSNode c) { collect(m, c, names, strings); });
}

struct Candidate {
  double cost;
  size_t order;  // the name's place in the condition, then the value's place among its candidates
  std::string name;
  nlohmann::json value;
};

// Values near the current one first: powers of two by distance in log2, strings the assert
// compares against, the other side of a flag.
std::vector<Candidate> candidates_for(const PythonModule& m, const Env& env, const std::string& name, size_t order,
                                      const std::vector<TSNode>& strings) {
  std::vector<Candidate> out;
  auto it = env.find(name);
  nlohmann::json current = it == env.end() ? nlohmann::json() : it->second;
  size_t k = 0;
  for (TSNode s : strings)
    if (auto v = eval_with(m, env, s); v && v->is_string() && *v != current) out.push_back({0, order * 64 + k++, name, *v});
  if (current.is_boolean()) out.push_back({0, order * 64 + k++, name, !current.get<bool>()});
  if (current.is_number_integer() || current.is_null()) {
    double here = current.is_number_integer() && current.get<int64_t>() > 0 ? std::log2(double(current.get<int64_t>())) : 5;
    for (int e = 0; e <= 10; ++e) {
      int64_t v = int64_t(1) << e;
      if (current.is_number_integer() && current.get<int64_t>() == v) continue;
      out.push_back({std::fabs(e - here) + (e < 4 ? 0.5 : 0), order * 64 + k++, name, v});  // below 16: tl.dot refuses
    }
  }
  return out;
}

}  // namespace

std::vector<AssertRepair> repair_static_asserts(const PythonModule& m, TSNode body, Env& known,
                                                const std::set<std::string>& movable) {
  std::vector<AssertRepair> out;
  std::vector<Condition> asserts = conditions_of(m, body);
  if (asserts.empty() || movable.empty()) return out;
  std::set<std::string> moved;  // each guess moves once, so two asserts cannot pull it back and forth
  std::set<size_t> given_up;     // no single guess satisfies it: the compile will say so
  for (size_t round = 0; round < asserts.size(); ++round) {
    std::vector<Verdict> before;
    for (const Condition& a : asserts) before.push_back(judge(m, known, a, body));
    size_t failing = 0;
    while (failing < asserts.size() && (before[failing] != Verdict::Fails || given_up.count(failing))) ++failing;
    if (failing == asserts.size()) break;
    const Condition& condition = asserts[failing];
    std::vector<std::string> names;
    std::vector<TSNode> strings;
    if (condition.arange) {
      if (!ts_node_is_null(condition.start)) collect(m, condition.start, names, strings);
      collect(m, condition.end, names, strings);
    } else {
      collect(m, condition.node, names, strings);
    }
    if (!ts_node_is_null(condition.helper_body)) {  // the kernel's names the helper's stand for
      std::vector<std::string> kernel_names;
      for (const auto& n : names) {
        auto k = condition.kernel_name.find(n);
        std::string name = k != condition.kernel_name.end() ? k->second : condition.helper_params.count(n) ? "" : n;
        if (!name.empty() && std::find(kernel_names.begin(), kernel_names.end(), name) == kernel_names.end())
          kernel_names.push_back(name);
      }
      names = kernel_names;
    }
    std::vector<Candidate> candidates;
    for (size_t i = 0; i < names.size(); ++i)
      if (movable.count(names[i]) && !moved.count(names[i])) {
        auto c = candidates_for(m, known, names[i], i, strings);
        candidates.insert(candidates.end(), c.begin(), c.end());
      }
    std::stable_sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
      return std::tie(a.cost, a.order) < std::tie(b.cost, b.order);
    });
    given_up.insert(failing);
    for (const auto& c : candidates) {
      Env env = known;
      env[c.name] = c.value;
      if (judge(m, env, condition, body) != Verdict::Holds) continue;
      bool breaks = false;
      for (size_t i = 0; i < asserts.size() && !breaks; ++i)
        breaks = before[i] != Verdict::Fails && judge(m, env, asserts[i], body) == Verdict::Fails;
      if (breaks) continue;
      known = env;
      moved.insert(c.name);
      out.push_back({c.name, c.value,
                     condition.arange ? m.text_of(condition.node) : "tl.static_assert(" + m.text_of(condition.node) + ")"});
      given_up.erase(failing);
      break;
    }
  }
  return out;
}

}  // namespace mine::check
