#include "plugins/torch_module/literal_value.h"

#include <vector>

#include "plugins/torch_module/tree_walk.h"

namespace mine::torch_module {
namespace {

using namespace sdk;

// How many names deep a value is followed (`a = b`, `b = {...}`): a cycle of names ends here.
constexpr int kMaxNameHops = 3;

std::optional<std::string> value_of(const PythonFile& m, TSNode n, int hops);

bool is_comment(TSNode n) { return is_type(n, "comment"); }

// The assignments `name = <value>` in `body`, outside nested functions and classes (their names
// are other scopes'); any other binding of the name (a loop target, `name += ...`, a `with ...
// as name`) makes it unknown: `ambiguous`.
void assignments_in(const PythonFile& m, TSNode body, const std::string& name, std::vector<TSNode>& out,
                    bool& ambiguous) {
  if (ts_node_is_null(body)) return;
  for (uint32_t i = 0, c = ts_node_named_child_count(body); i < c; ++i) {
    TSNode n = ts_node_named_child(body, i);
    std::string_view t = node_type(n);
    if (t == "function_definition" || t == "class_definition" || t == "decorated_definition" || t == "lambda") continue;
    // What the statement binds: an assignment's left side, a loop's target, `x += ...`,
    // `with ... as x`, `(x := ...)`.
    TSNode target = t == "assignment" || t == "augmented_assignment" || t == "for_statement" ? field(n, "left")
                    : t == "named_expression"                                              ? field(n, "name")
                    : t == "as_pattern_target"                                             ? n
                                                                                           : TSNode{};
    if (t == "assignment" && is_type(target, "identifier") && m.view_of(target) == name) {
      if (ts_node_is_null(field(n, "right"))) ambiguous = true;  // an annotation alone
      else out.push_back(n);
    } else if (!ts_node_is_null(target)) {
      walk(target, [&](TSNode x) { ambiguous = ambiguous || (is_type(x, "identifier") && m.view_of(x) == name); });
    }
    assignments_in(m, n, name, out, ambiguous);
  }
}

bool is_parameter(const PythonFile& m, TSNode function, const std::string& name) {
  bool found = false;
  walk(field(function, "parameters"), [&](TSNode p) {
    found = found || (is_type(p, "identifier") && m.view_of(p) == name);
  });
  return found;
}

bool binds_in(const PythonFile& m, TSNode target, const std::string& name) {
  bool found = false;
  walk(target, [&](TSNode x) { found = found || (is_type(x, "identifier") && m.view_of(x) == name); });
  return found;
}

// The value the name `n` holds where it is read, when one assignment says: the scopes around it
// from the innermost out (a comprehension or lambda binding it, a function's parameter: unknown;
// a function's one assignment before it: that), then the module's one assignment.
std::optional<std::string> name_value(const PythonFile& m, TSNode n, int hops) {
  if (hops >= kMaxNameHops) return std::nullopt;
  std::string name = m.text_of(n);
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    std::string_view t = node_type(p);
    if (t == "lambda") {
      if (binds_in(m, field(p, "parameters"), name)) return std::nullopt;
      continue;
    }
    if (t == "list_comprehension" || t == "set_comprehension" || t == "dictionary_comprehension" ||
        t == "generator_expression") {
      bool binds = false;
      for_each_named_child(p, [&](TSNode c) {
        binds = binds || (is_type(c, "for_in_clause") && binds_in(m, field(c, "left"), name));
      });
      if (binds) return std::nullopt;
      continue;
    }
    if (t != "function_definition") continue;  // a class body's names are not its methods'
    if (is_parameter(m, p, name)) return std::nullopt;
    std::vector<TSNode> found;
    bool ambiguous = false;
    assignments_in(m, field(p, "body"), name, found, ambiguous);
    if (ambiguous || found.size() > 1) return std::nullopt;
    if (found.size() == 1) {
      if (ts_node_start_byte(found[0]) >= ts_node_start_byte(n)) return std::nullopt;
      return value_of(m, field(found[0], "right"), hops + 1);
    }
  }
  std::vector<size_t> statements = m.bindings_of(name);
  if (statements.size() != 1) return std::nullopt;
  mine_python_statement s = m.statement(statements[0]);
  if (s.kind != MINE_STATEMENT_ASSIGNMENT) return std::nullopt;
  TSNode a = is_type(s.node, "expression_statement") ? ts_node_named_child(s.node, 0) : s.node;
  if (!is_type(a, "assignment") || m.view_of(field(a, "left")) != name) return std::nullopt;
  return value_of(m, field(a, "right"), hops + 1);
}

// `dict(a=1, b=(2, 3))` of literals, as the dict literal it builds.
std::optional<std::string> dict_call(const PythonFile& m, TSNode call, int hops) {
  TSNode f = field(call, "function");
  if (!is_type(f, "identifier") || m.view_of(f) != "dict" || m.qualified_name(f)) return std::nullopt;
  std::string out = "{";
  bool ok = true, first = true;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (!ok || is_comment(a)) return;
    auto v = is_type(a, "keyword_argument") ? value_of(m, field(a, "value"), hops) : std::nullopt;
    if (!v) {
      ok = false;
      return;
    }
    out += (first ? "'" : ", '") + m.text_of(field(a, "name")) + "': " + *v;
    first = false;
  });
  return ok ? std::optional<std::string>(out + "}") : std::nullopt;
}

// Elements of a tuple, list or dict, each a literal; rebuilt from the elements' own literals so a
// name inside (`[cfg, 2]`) is replaced by its value.
std::optional<std::string> container(const PythonFile& m, TSNode n, int hops) {
  std::string_view t = node_type(n);
  std::vector<std::string> parts;
  bool ok = true;
  for_each_named_child(n, [&](TSNode c) {
    if (!ok || is_comment(c)) return;
    if (t == "dictionary") {
      auto k = is_type(c, "pair") ? value_of(m, field(c, "key"), hops) : std::nullopt;
      auto v = k ? value_of(m, field(c, "value"), hops) : std::nullopt;
      if (!v) ok = false;
      else parts.push_back(*k + ": " + *v);
    } else if (auto v = value_of(m, c, hops)) {
      parts.push_back(*v);
    } else {
      ok = false;
    }
  });
  if (!ok) return std::nullopt;
  std::string open = t == "tuple" ? "(" : t == "list" ? "[" : "{", close = t == "tuple" ? ")" : t == "list" ? "]" : "}";
  std::string out = open;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  if (t == "tuple" && parts.size() == 1) out += ",";
  return out + close;
}

std::optional<std::string> value_of(const PythonFile& m, TSNode n, int hops) {
  if (ts_node_is_null(n)) return std::nullopt;
  std::string_view t = node_type(n);
  if (t == "integer" || t == "float" || t == "true" || t == "false" || t == "none") return m.text_of(n);
  if (t == "string") {
    bool interpolated = false;  // an f-string
    for_each_named_child(n, [&](TSNode c) { interpolated = interpolated || is_type(c, "interpolation"); });
    return interpolated ? std::nullopt : std::optional<std::string>(m.text_of(n));
  }
  if (t == "unary_operator" && (is_type(field(n, "argument"), "integer") || is_type(field(n, "argument"), "float")))
    return m.text_of(n);
  if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1) return value_of(m, ts_node_named_child(n, 0), hops);
  if (t == "tuple" || t == "list" || t == "dictionary") return container(m, n, hops);
  if (t == "call") return dict_call(m, n, hops);
  if (t == "identifier") return name_value(m, n, hops);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> literal_value(const PythonFile& file, TSNode expression) { return value_of(file, expression, 0); }

}  // namespace mine::torch_module
