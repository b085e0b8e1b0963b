#include "plugins/triton/written_to_fail.h"

#include <algorithm>
#include <set>

namespace mine {
namespace {

using namespace sdk;

// Names the Triton language takes from Python's builtins inside a kernel.
bool builtin(std::string_view n) {
  static const std::set<std::string_view> kNames = {
      "range", "len", "min", "max", "int", "float", "bool", "str", "print", "isinstance", "tuple", "list", "abs",
      "getattr", "hasattr", "zip", "enumerate", "type", "None", "True", "False", "ValueError", "AssertionError",
      "RuntimeError", "TypeError", "NotImplementedError", "divmod", "round", "pow", "sum", "any", "all", "map", "dict"};
  return kNames.count(n) > 0;
}

// Identifiers the kernel binds itself: parameters, assignment and loop targets, nested
// definitions, imports. A rough set: it only has to keep a bound name from being taken for a
// placeholder, which also needs the file to substitute the name into source text.
// Identifiers below `t` but those of attributes and subscripts: what an assignment target binds.
void target_names(const PythonFile& m, TSNode t, std::set<std::string_view>& out) {
  std::vector<TSNode> stack{t};
  while (!stack.empty()) {
    TSNode x = stack.back();
    stack.pop_back();
    if (is_type(x, "identifier")) out.insert(m.view_of(x));
    else if (!is_type(x, "attribute") && !is_type(x, "subscript")) for_each_named_child(x, [&](TSNode c) { stack.push_back(c); });
  }
}

void bound_names(const PythonFile& m, TSNode n, std::set<std::string_view>& out, int depth) {
  if (depth > 200) return;
  auto targets = [&](TSNode t) { target_names(m, t, out); };
  if (is_type(n, "assignment") || is_type(n, "augmented_assignment")) {
    if (is_type(n, "assignment")) targets(field(n, "left"));
  } else if (is_type(n, "for_statement") || is_type(n, "for_in_clause")) {
    targets(field(n, "left"));
  } else if (is_type(n, "as_pattern")) {
    targets(field(n, "alias"));
  } else if (is_type(n, "parameters") || is_type(n, "lambda_parameters")) {
    targets(n);
  } else if (is_type(n, "function_definition") || is_type(n, "class_definition")) {
    out.insert(m.view_of(field(n, "name")));
  } else if (is_type(n, "import_statement") || is_type(n, "import_from_statement") || is_type(n, "global_statement") ||
             is_type(n, "nonlocal_statement")) {
    targets(n);
  }
  for_each_named_child(n, [&](TSNode c) { bound_names(m, c, out, depth + 1); });
}

// Identifiers read as plain names (not `x.attr`'s attr, not a keyword argument's name). The
// walk hands each node its parent: tree-sitter 0.20's ts_node_parent searches down from the root.
void read_names(const PythonFile& m, TSNode n, TSNode up, std::vector<TSNode>& out, int depth) {
  if (depth > 200) return;
  if (is_type(n, "identifier")) {
    bool attr = is_type(up, "attribute") && ts_node_eq(field(up, "attribute"), n);
    bool keyword = is_type(up, "keyword_argument") && ts_node_eq(field(up, "name"), n);
    if (!attr && !keyword) out.push_back(n);
    return;
  }
  for_each_named_child(n, [&](TSNode c) { read_names(m, c, n, out, depth + 1); });
}

// The block holding the kernel's definition: an enclosing function's body, or the module.
TSNode defining_scope(TSNode node) {
  for (TSNode up = ts_node_parent(node); !ts_node_is_null(up); up = ts_node_parent(up))
    if (is_type(up, "function_definition")) return field(up, "body");
  return TSNode{};
}

void uses_of(const PythonFile& m, TSNode n, std::string_view name, TSNode skip, std::vector<TSNode>& out, int depth) {
  if (depth > 300 || ts_node_eq(n, skip)) return;
  if (is_type(n, "identifier")) {
    if (m.view_of(n) == name) out.push_back(n);
    return;
  }
  for_each_named_child(n, [&](TSNode c) { uses_of(m, c, name, skip, out, depth + 1); });
}

}  // namespace

SubstitutedNames::SubstitutedNames(std::string_view text) {
  // A name is substituted when a quoted occurrence of it (a quote, the name, the same quote) is a
  // dict key (`{'GENERATE_TEST_HERE': expr}`, what a patch helper is handed) or what `.replace(`
  // replaces. Each such occurrence spans two consecutive quotes of its kind, so every pair of
  // consecutive quotes, looked at with those tests, finds them all.
  auto word = [](std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (unsigned char c : s)
      if (!(c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
        return false;
    return true;
  };
  for (char q : {'\'', '"'}) {
    size_t at = text.find(q);
    while (at != std::string_view::npos) {
      size_t close = text.find(q, at + 1);
      if (close == std::string_view::npos) break;
      std::string_view name = text.substr(at + 1, close - at - 1);
      if (word(name) && !builtin(name)) {
        bool taken = false;
        size_t after = text.find_first_not_of(" \t", close + 1);
        if (after != std::string_view::npos && text[after] == ':') taken = true;
        size_t before = text.find_last_not_of(" \t", at == 0 ? 0 : at - 1);
        if (at >= 1 && before != std::string_view::npos && text[before] == '(' && before >= 7 &&
            text.substr(before - 7, 7) == "replace")
          taken = true;
        if (taken) names_.push_back(name);
      }
      at = close;
    }
  }
  std::sort(names_.begin(), names_.end());
  names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
}

std::vector<std::string_view> SubstitutedNames::found_in(std::string_view code) const {
  // A name the code reads stands between characters that cannot continue it: an ASCII letter,
  // digit or `_` beside it would be part of the same token (only a keyword follows a number
  // directly, and a kernel with a syntax error has no placeholders). Nor does a quote stand
  // beside it (a string's text, or a string next to a name: no Python), nor a `.` before it (an
  // attribute's name, or a dotted name of an import, whose names the kernel binds). Other bytes
  // count as boundaries, so a name is never missed beside them.
  auto word = [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '\'' ||
           c == '"';
  };
  std::vector<std::string_view> out;
  for (std::string_view name : names_)
    for (size_t at = code.find(name); at != std::string_view::npos; at = code.find(name, at + 1)) {
      size_t end = at + name.size();
      if ((at == 0 || (!word(code[at - 1]) && code[at - 1] != '.')) && (end == code.size() || !word(code[end]))) {
        out.push_back(name);
        break;
      }
    }
  return out;
}

std::vector<std::string> source_placeholders(const PythonFile& m, const mine_python_function& kernel) {
  return source_placeholders(m, kernel, SubstitutedNames(m.text()));
}

std::vector<std::string> source_placeholders(const PythonFile& m, const mine_python_function& kernel,
                                             const SubstitutedNames& substituted_names) {
  // Every answer is a name the kernel reads, so spelt in its text, and one the file substitutes;
  // no name its parameters bind (a quoted key is most often one: `{'BLOCK_M': 64}` configs of
  // `BLOCK_M: tl.constexpr`), none the module binds. Only where one is left are the kernel's
  // bound names and reads walked.
  std::vector<std::string_view> candidates = substituted_names.found_in(m.view_of(kernel.definition));
  if (candidates.empty()) return {};
  std::set<std::string_view> parameters;
  target_names(m, field(kernel.definition, "parameters"), parameters);
  candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                  [&](std::string_view c) {
                                    return parameters.count(c) || !m.bindings_of(std::string(c)).empty();
                                  }),
                   candidates.end());
  if (candidates.empty()) return {};
  std::set<std::string_view> bound;
  bound_names(m, kernel.definition, bound, 0);
  std::vector<TSNode> reads;
  read_names(m, field(kernel.definition, "body"), kernel.definition, reads, 0);
  std::set<std::string> out;
  for (TSNode r : reads) {
    std::string_view name = m.view_of(r);
    if (bound.count(name) || builtin(name) || out.count(std::string(name))) continue;
    if (!substituted_names.holds(name)) continue;
    if (!m.bindings_of(std::string(name)).empty()) continue;  // a module-level name: defined, not substituted
    out.insert(std::string(name));
  }
  return {out.begin(), out.end()};
}

bool used_only_where_errors_expected(const PythonFile& m, const mine_python_function& kernel) {
  // No `raises(` / `assertRaises(` in the file, no block expecting an error: spare the walk over
  // the defining scope (the whole module for a top-level kernel), done once per kernel.
  std::string_view text = m.text();
  if (text.find("raises") == std::string_view::npos && text.find("Raises") == std::string_view::npos) return false;
  TSNode scope = defining_scope(kernel.node);
  std::vector<TSNode> uses;
  uses_of(m, ts_node_is_null(scope) ? m.root() : scope, kernel.name, kernel.node, uses, 0);
  if (uses.empty()) return false;
  for (TSNode u : uses)
    if (!ts::inside_error_expectation(u, scope, [&](TSNode x) { return m.view_of(x); })) return false;
  return true;
}

}  // namespace mine
