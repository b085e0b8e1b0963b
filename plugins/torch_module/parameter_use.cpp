#include "plugins/torch_module/parameter_use.h"
#include "plugins/torch_module/tree_walk.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>

#include "plugins/torch_module/module_signature.h"

namespace mine::torch_module {
namespace {

using namespace sdk;

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

  // Every read of the parameter in `body` (__init__'s), from what encloses it; names of the
  // attributes it is stored in (`self.act = act`) go to `stored_as`.
  void read(TSNode body, std::set<std::string>& stored_as) {
    walk(body, [&](TSNode n) {
      if (is_type(n, "identifier") && m_.view_of(n) == name_) use_at(n, &stored_as);
    });
  }

  // Every read of `self.<attribute>` in `body` (the class's), for the attributes the parameter
  // is stored in: used the same way, the value is what the parameter had to be.
  void read_stored(TSNode body, const std::set<std::string>& stored_as) {
    walk(body, [&](TSNode n) {
      if (is_type(n, "attribute") && m_.view_of(field(n, "object")) == "self" &&
          stored_as.count(m_.text_of(field(n, "attribute"))))
        use_at(n, nullptr);
    });
  }

 private:
  // `stored_as` is null for a stored attribute: calling it then needs a callable object, and
  // assigning it is another method setting it, no guard of the parameter.
  void use_at(TSNode n, std::set<std::string>* stored_as) {
    TSNode parent = ts_node_parent(n);
    if (ts_node_is_null(parent)) return;
    std::string_view pt = node_type(parent);
    if (pt == "subscript" && same(field(parent, "value"), n)) {
      note_sequence(0);
      TSNode index = field(parent, "subscript");
      std::string k = is_type(index, "integer") ? m_.text_of(index) : "";
      if (!k.empty() && k.size() <= 2 && std::all_of(k.begin(), k.end(), ::isdigit)) note_sequence(std::stoi(k) + 1);
    } else if (pt == "call" && same(field(parent, "function"), n)) {
      (stored_as ? use_.called : use_.stored_and_called) = true;
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
        // Given another value before use: whatever it held, the code copes.
        if (stored_as) use_.guarded = true;
      } else if (same(field(parent, "right"), n)) {
        if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern"))
          note_sequence(static_cast<int>(ts_node_named_child_count(left)));
        if (stored_as && is_type(left, "attribute") && m_.view_of(field(left, "object")) == "self")
          stored_as->insert(m_.text_of(field(left, "attribute")));
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
  }

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
  // Its attributes' uses anywhere in the class's lineage of the file (forward, helpers).
  for (size_t statement : cls.lineage) {
    TSNode s = m.statement(statement).node;
    if (is_type(s, "decorated_definition")) s = field(s, "definition");
    UseReader(m, name, use).read_stored(field(s, "body"), stored_as);
  }
  return use;
}

}  // namespace mine::torch_module
