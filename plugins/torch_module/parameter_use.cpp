#include "plugins/torch_module/parameter_use.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "plugins/torch_module/module_signature.h"

namespace mine::torch_module {
namespace {

using namespace sdk;

void walk(TSNode n, const std::function<void(TSNode)>& visit) {
  if (ts_node_is_null(n)) return;
  visit(n);
  for (uint32_t i = 0, c = ts_node_named_child_count(n); i < c; ++i) walk(ts_node_named_child(n, i), visit);
}

bool same(TSNode a, TSNode b) { return !ts_node_is_null(a) && !ts_node_is_null(b) && ts_node_eq(a, b); }

// A string literal literal_eval reads as written: no f-string, no prefix, no concatenation.
std::optional<std::string> plain_string(const PythonFile& m, TSNode n) {
  if (!is_type(n, "string")) return std::nullopt;
  std::string text = m.text_of(n);
  if (text.size() < 2 || (text[0] != '\'' && text[0] != '"') || text.find('\n') != std::string::npos)
    return std::nullopt;
  bool interpolated = false;
  for_each_named_child(n, [&](TSNode c) { interpolated = interpolated || is_type(c, "interpolation"); });
  if (interpolated) return std::nullopt;
  return text;
}

const std::set<std::string> kSequenceFunctions = {"len",  "zip", "tuple",    "list", "enumerate",
                                                  "sorted", "reversed", "iter"};

class UseReader {
 public:
  UseReader(const PythonFile& m, const std::string& name, ParameterUse& use) : m_(m), name_(name), use_(use) {}

  // Every read of the parameter in `body`, from what encloses it.
  void read(TSNode body, std::set<std::string>& stored_as) {
    walk(body, [&](TSNode n) {
      if (!is_type(n, "identifier") || m_.view_of(n) != name_) return;
      TSNode parent = ts_node_parent(n);
      if (ts_node_is_null(parent)) return;
      std::string_view pt = node_type(parent);
      if (pt == "subscript" && same(field(parent, "value"), n)) {
        note_sequence(0);
        TSNode index = field(parent, "subscript");
        std::string k = is_type(index, "integer") ? m_.text_of(index) : "";
        if (!k.empty() && k.size() <= 2 && std::all_of(k.begin(), k.end(), ::isdigit)) note_sequence(std::stoi(k) + 1);
      } else if (pt == "call" && same(field(parent, "function"), n)) {
        use_.called = true;
      } else if (pt == "argument_list") {
        std::string callee = m_.text_of(field(ts_node_parent(parent), "function"));
        if (kSequenceFunctions.count(callee)) note_sequence(0);
        if (callee == "isinstance" || callee == "callable") use_.guarded = true;
      } else if (pt == "list_splat") {
        note_sequence(0);
      } else if ((pt == "for_statement" || pt == "for_in_clause") && same(field(parent, "right"), n)) {
        note_sequence(0);
      } else if (pt == "assignment" || pt == "augmented_assignment") {
        TSNode left = field(parent, "left");
        if (same(left, n)) {
          use_.guarded = true;  // given another value before use: whatever it held, the code copes
        } else if (same(field(parent, "right"), n)) {
          if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern"))
            note_sequence(static_cast<int>(ts_node_named_child_count(left)));
          if (is_type(left, "attribute") && m_.view_of(field(left, "object")) == "self")
            stored_as.insert(m_.text_of(field(left, "attribute")));
        }
      } else if (pt == "comparison_operator") {
        for_each_named_child(parent, [&](TSNode other) {
          if (same(other, n)) return;
          if (is_type(other, "none")) use_.guarded = true;
          auto s = plain_string(m_, other);
          if (!s && (is_type(other, "tuple") || is_type(other, "list") || is_type(other, "set")))
            s = plain_string(m_, ts_node_named_child(other, 0));
          if (s && !use_.string_literal) use_.string_literal = *s;
        });
      } else if (pt == "not_operator" || pt == "boolean_operator" ||
                 ((pt == "if_statement" || pt == "elif_clause" || pt == "while_statement" ||
                   pt == "conditional_expression") && !same(field(parent, "consequence"), n) &&
                  !same(field(parent, "alternative"), n))) {
        use_.guarded = true;
      }
    });
  }

 private:
  void note_sequence(int length) {
    use_.sequence = true;
    use_.length = std::max(use_.length, length);
  }

  const PythonFile& m_;
  const std::string& name_;
  ParameterUse& use_;
};

}  // namespace

ParameterUse parameter_use(const PythonFile& m, const ModuleClass& cls, const std::string& name) {
  ParameterUse use;
  auto init = method_of(m, cls, "__init__");
  if (!init) return use;
  std::set<std::string> stored_as;
  UseReader(m, name, use).read(field(m.function(*init).definition, "body"), stored_as);
  if (stored_as.empty()) return use;
  // `self.act(x)` anywhere in the class's lineage of the file (forward, helpers).
  for (size_t statement : cls.lineage) {
    TSNode s = m.statement(statement).node;
    if (is_type(s, "decorated_definition")) s = field(s, "definition");
    walk(field(s, "body"), [&](TSNode n) {
      if (use.stored_and_called || !is_type(n, "call")) return;
      TSNode f = field(n, "function");
      use.stored_and_called = is_type(f, "attribute") && m.view_of(field(f, "object")) == "self" &&
                              stored_as.count(m.text_of(field(f, "attribute")));
    });
  }
  return use;
}

}  // namespace mine::torch_module
