#include "core/check/constant_eval.h"

#include <cmath>

#include "core/check/branch_reach.h"
#include "core/check/name_text.h"
#include "plugins/inductor/python_literal.h"

namespace mine::check {
namespace {

constexpr int kMaxDepth = 48;  // decorator expressions are shallow; hostile ones must not recurse forever

std::optional<double> number(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
  if (v.is_number()) return v.get<double>();
  return std::nullopt;
}

bool integral(const nlohmann::json& v) { return v.is_number_integer() || v.is_boolean(); }

int64_t as_int(const nlohmann::json& v) { return v.is_boolean() ? (v.get<bool>() ? 1 : 0) : v.get<int64_t>(); }

std::optional<bool> compare(const nlohmann::json& a, const std::string& op, const nlohmann::json& b) {
  if (op == "==") return a == b || (number(a) && number(b) && *number(a) == *number(b));
  if (op == "!=") return !(a == b || (number(a) && number(b) && *number(a) == *number(b)));
  if (op == "is") return a.is_null() && b.is_null();
  if (op == "is not") return !(a.is_null() && b.is_null());
  if ((op == "in" || op == "not in") && b.is_array()) {  // `MODE in ("floor", "even")`
    bool found = false;
    for (const auto& e : b) found = found || *compare(a, "==", e);
    return op == "in" ? found : !found;
  }
  auto x = number(a), y = number(b);
  if (!x || !y) return std::nullopt;
  if (op == "<") return *x < *y;
  if (op == "<=") return *x <= *y;
  if (op == ">") return *x > *y;
  if (op == ">=") return *x >= *y;
  return std::nullopt;
}

}  // namespace

int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::optional<nlohmann::json> arithmetic(const nlohmann::json& a, const std::string& op, const nlohmann::json& b) {
  if (a.is_array() && b.is_array() && op == "+") {  // SIZES + [256]
    nlohmann::json joined = a;
    for (const auto& v : b) joined.push_back(v);
    return joined;
  }
  if (integral(a) && integral(b)) {
    int64_t x = as_int(a), y = as_int(b);
    if (op == "+") return x + y;
    if (op == "-") return x - y;
    if (op == "*") return x * y;
    if (op == "//" && y != 0) return floor_div(x, y);
    if (op == "%" && y != 0) return x - floor_div(x, y) * y;
    if (op == "/" && y != 0) return static_cast<double>(x) / static_cast<double>(y);
    if (op == "<<" && y >= 0 && y < 63) return x << y;
    if (op == ">>" && y >= 0 && y < 63) return x >> y;
    if (op == "**" && y >= 0 && y < 63) return static_cast<int64_t>(std::pow(static_cast<double>(x), static_cast<double>(y)));
    if (op == "&") return x & y;
    if (op == "|") return x | y;
    if (op == "^") return x ^ y;
    return std::nullopt;
  }
  auto x = number(a), y = number(b);
  if (!x || !y) return std::nullopt;
  if (op == "+") return *x + *y;
  if (op == "-") return *x - *y;
  if (op == "*") return *x * *y;
  if (op == "/" && *y != 0) return *x / *y;
  if (op == "//" && *y != 0) return std::floor(*x / *y);
  if (op == "**") return std::pow(*x, *y);
  return std::nullopt;
}

bool truthy(const nlohmann::json& v) {
  if (v.is_null()) return false;
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string() || v.is_array() || v.is_object()) return !v.empty();
  return true;
}

// `QuantizedValueType.fp4.value`, or `Mode.fast` of an enum mixed with str or int: the literal the
// member is assigned in a module-level `class Mode(str, Enum)` (what kernels compare modes with).
std::optional<nlohmann::json> ConstantEvaluator::enum_member(TSNode n, int depth) const {
  TSNode object = field(n, "object");
  std::string attr = m_.text_of(field(n, "attribute"));
  bool value = attr == "value";
  if (value) {
    if (!is_type(object, "attribute")) return std::nullopt;
    attr = m_.text_of(field(object, "attribute"));
    object = field(object, "object");
  }
  if (!is_type(object, "identifier")) return std::nullopt;
  auto bindings = m_.bindings_of(m_.text_of(object));
  if (bindings.size() != 1 || bindings[0]->kind != StatementKind::Class) return std::nullopt;
  TSNode cls = bindings[0]->node;
  while (!ts_node_is_null(cls) && !is_type(cls, "class_definition")) cls = ts_node_named_child(cls, ts_node_named_child_count(cls) - 1);
  if (ts_node_is_null(cls)) return std::nullopt;
  std::string bases = ts_node_is_null(field(cls, "superclasses")) ? "" : m_.text_of(field(cls, "superclasses"));
  if (bases.find("Enum") == std::string::npos) return std::nullopt;
  // Without `.value`, the member equals its value only where the enum mixes in that type.
  bool mixed = bases.find("str") != std::string::npos || bases.find("IntEnum") != std::string::npos ||
               bases.find("StrEnum") != std::string::npos || bases.find("int") != std::string::npos;
  if (!value && !mixed) return std::nullopt;
  std::optional<nlohmann::json> found;
  for_each_named_child(field(cls, "body"), [&](TSNode st) {
    TSNode a = is_type(st, "expression_statement") ? ts_node_named_child(st, 0) : TSNode{};
    if (found || !is_type(a, "assignment") || m_.text_of(field(a, "left")) != attr) return;
    auto v = eval(field(a, "right"), depth + 1);
    if (v && (v->is_string() || v->is_number_integer())) found = v;
  });
  return found;
}

TSNode ConstantEvaluator::module_constant(const std::string& name) const {
  auto bindings = m_.bindings_of(name);
  // The value of `name = value` (an expression statement), else a null node.
  auto rhs = [&](TSNode statement) -> TSNode {
    TSNode assign = ts_node_named_child(statement, 0);
    if (!is_type(assign, "assignment") || m_.text_of(field(assign, "left")) != name) return TSNode{};
    return field(assign, "right");
  };
  if (bindings.size() == 1 && bindings[0]->kind == StatementKind::Assignment) return rhs(bindings[0]->node);
  // `if ENABLE_AUTOTUNING: configs = [...] else: configs = [...]` (the `if` is one module
  // statement): the one assignment the module's constants reach, where they rule out every other.
  std::vector<TSNode> assignments;
  bool plain = true;
  std::function<void(TSNode)> collect = [&](TSNode n) {
    for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "block") || is_type(c, "elif_clause") || is_type(c, "else_clause") || is_type(c, "if_statement"))
        collect(c);
      else if (is_type(c, "expression_statement") && !ts_node_is_null(rhs(c)))
        assignments.push_back(c);
    });
  };
  for (const auto* b : bindings) {
    if (b->kind == StatementKind::Assignment) assignments.push_back(b->node);
    else if (is_type(b->node, "if_statement")) collect(b->node);
    else plain = false;
  }
  // Conditions naming the name itself, or chains of such choices, stop at a few levels.
  static thread_local int choosing = 0;
  if (!plain || assignments.empty() || choosing >= 4) return TSNode{};
  ++choosing;
  struct Done {
    ~Done() { --choosing; }
  } done;
  TSNode taken{};
  for (TSNode a : assignments) {
    // Under the module's constants alone (a lookup of this evaluator's is no module's value).
    auto r = branch_taken(m_, {}, a, TSNode{});
    if (!r) return TSNode{};
    if (!*r) continue;
    if (!ts_node_is_null(taken)) return TSNode{};
    taken = rhs(a);
  }
  return taken;
}

std::optional<nlohmann::json> ConstantEvaluator::eval(TSNode n, int depth) const {
  if (ts_node_is_null(n) || depth > kMaxDepth) return std::nullopt;
  std::string_view type = node_type(n);
  if (type == "integer" || type == "float" || type == "true" || type == "false" || type == "none" ||
      type == "string" || type == "concatenated_string") {
    nlohmann::json v = inductor::literal_value(m_.tree(), n);
    if ((type == "integer" || type == "float") && v.is_string()) return std::nullopt;
    return v;
  }
  if (type == "parenthesized_expression") return eval(ts_node_named_child(n, 0), depth + 1);
  if (type == "identifier") {
    std::string name = m_.text_of(n);
    if (lookup_)
      if (auto v = lookup_(name)) return v;
    TSNode rhs = module_constant(name);
    return ts_node_is_null(rhs) ? std::nullopt : eval(rhs, depth + 1);
  }
  if (type == "attribute") {
    // `tl.float16` and friends are kept as their names: a constexpr dtype is passed by name.
    auto q = m_.qualified_name(n);
    if (q && q->rfind("triton.language.", 0) == 0) return "tl." + q->substr(16);
    return enum_member(n, depth);
  }
  if (type == "subscript") {
    TSNode value = field(n, "value");
    TSNode key = field(n, "subscript");
    if (is_type(value, "identifier") && lookup_) {
      auto k = eval(key, depth + 1);
      if (k && k->is_string()) return lookup_(m_.text_of(value) + "[" + k->get<std::string>() + "]");
    }
    auto container = eval(value, depth + 1);
    auto k = eval(key, depth + 1);
    if (container && k && container->is_array() && k->is_number_integer()) {
      int64_t i = k->get<int64_t>(), size = static_cast<int64_t>(container->size());
      if (i < 0) i += size;
      if (i >= 0 && i < size) return (*container)[static_cast<size_t>(i)];
    }
    if (container && k && container->is_object() && k->is_string() && container->contains(k->get<std::string>()))
      return (*container)[k->get<std::string>()];
    return std::nullopt;
  }
  if (type == "unary_operator") {
    auto v = eval(field(n, "argument"), depth + 1);
    std::string op = m_.text_of(field(n, "operator"));
    if (!v) return std::nullopt;
    if (op == "-") return arithmetic(0, "-", *v);
    if (op == "+" && number(*v)) return v;
    if (op == "~" && integral(*v)) return ~as_int(*v);
    return std::nullopt;
  }
  if (type == "not_operator") {
    auto v = eval(field(n, "argument"), depth + 1);
    if (!v) return std::nullopt;
    return !truthy(*v);
  }
  if (type == "binary_operator") {
    auto a = eval(field(n, "left"), depth + 1), b = eval(field(n, "right"), depth + 1);
    if (!a || !b) return std::nullopt;
    std::string op = m_.text_of(field(n, "operator"));
    return arithmetic(*a, op, *b);
  }
  if (type == "boolean_operator") {
    auto a = eval(field(n, "left"), depth + 1);
    if (!a) return std::nullopt;
    std::string op = m_.text_of(field(n, "operator"));
    if (op == "and" && !truthy(*a)) return a;
    if (op == "or" && truthy(*a)) return a;
    return eval(field(n, "right"), depth + 1);
  }
  if (type == "comparison_operator") {
    // a < b <= c: operands are the named children, operators the anonymous tokens between them.
    std::vector<TSNode> operands;
    std::vector<std::string> ops;
    uint32_t count = ts_node_child_count(n);
    std::string pending;
    for (uint32_t i = 0; i < count; ++i) {
      TSNode c = ts_node_child(n, i);
      if (ts_node_is_named(c)) {
        if (!operands.empty()) ops.push_back(pending);
        operands.push_back(c);
        pending.clear();
      } else {
        pending += (pending.empty() ? "" : " ") + m_.text_of(c);
      }
    }
    if (operands.size() < 2 || ops.size() != operands.size() - 1) return std::nullopt;
    auto left = eval(operands[0], depth + 1);
    for (size_t i = 0; i < ops.size(); ++i) {
      auto right = eval(operands[i + 1], depth + 1);
      if (!left || !right) return std::nullopt;
      auto r = compare(*left, ops[i], *right);
      if (!r) return std::nullopt;
      if (!*r) return false;
      left = right;
    }
    return true;
  }
  if (type == "conditional_expression") {
    TSNode body = ts_node_named_child(n, 0), cond = ts_node_named_child(n, 1), other = ts_node_named_child(n, 2);
    auto c = eval(cond, depth + 1);
    if (!c) return std::nullopt;
    return eval(truthy(*c) ? body : other, depth + 1);
  }
  if (type == "list" || type == "tuple") return all_elements(n, [&](TSNode c) { return eval(c, depth + 1); });
  if (type == "call") return call(n, depth);
  return std::nullopt;
}

std::optional<nlohmann::json> ConstantEvaluator::call(TSNode n, int depth) const {
  std::string callee = m_.text_of(field(n, "function"));
  auto q = m_.qualified_name(n);
  std::string name = q ? *q : callee;
  std::vector<nlohmann::json> args;
  bool ok = true;
  for_each_named_child(field(n, "arguments"), [&](TSNode a) {
    if (!ok || is_type(a, "comment")) return;
    if (is_type(a, "keyword_argument")) {
      ok = false;
      return;
    }
    auto v = eval(a, depth + 1);
    if (!v) ok = false;
    else args.push_back(*v);
  });
  if (!ok) return std::nullopt;
  auto ends = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if ((ends("next_power_of_2")) && args.size() == 1 && integral(args[0])) return next_power_of_2(as_int(args[0]));
  if (ends("cdiv") && args.size() == 2 && integral(args[0]) && integral(args[1]) && as_int(args[1]) != 0)
    return floor_div(as_int(args[0]) + as_int(args[1]) - 1, as_int(args[1]));
  if ((name == "min" || name == "max") && !args.empty()) {
    std::vector<nlohmann::json> items = args.size() == 1 && args[0].is_array()
                                            ? std::vector<nlohmann::json>(args[0].begin(), args[0].end())
                                            : args;
    if (items.empty()) return std::nullopt;
    nlohmann::json best = items[0];
    for (const auto& v : items) {
      auto less = compare(v, "<", best);
      if (!less) return std::nullopt;
      if ((name == "min") == *less && v != best) best = v;
    }
    return best;
  }
  if (name == "int" && args.size() == 1 && number(args[0])) return static_cast<int64_t>(*number(args[0]));
  if (name == "float" && args.size() == 1) {
    if (number(args[0])) return *number(args[0]);
    if (args[0].is_string()) {
      std::string s = args[0].get<std::string>();
      if (s == "inf" || s == "+inf") return 3.4028234663852886e38;  // JSON has no infinity; fp32 max stands in
      if (s == "-inf") return -3.4028234663852886e38;
    }
  }
  if (name == "bool" && args.size() == 1) return truthy(args[0]);
  // `Q_POLICY_INT8 = tl.constexpr(8)`: a module constant wrapped for use inside kernels.
  if ((ends("language.constexpr") || ends("tl.constexpr")) && args.size() == 1) return args[0];
  return std::nullopt;
}

}  // namespace mine::check
