#include "plugins/torch_module/parameter_use.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <vector>

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

// What one use of a parameter (or of an attribute it is stored in) says of it.
class UseReader {
 public:
  UseReader(const PythonFile& m, ParameterUse& use) : m_(m), use_(use) {}

  // `n` reads the parameter (then `stored_as` collects the attributes it is stored in:
  // `self.act = act`) or, with `stored_as` null, one of those attributes (`self.act`): calling
  // it then needs a callable object, and assigning it is another method setting it, no guard of
  // the parameter.
  // `parent` and `grandparent` are n's (kept from the walk: ts_node_parent searches down from the
  // root at every call).
  void use_at(TSNode n, TSNode parent, TSNode grandparent, std::set<std::string>* stored_as) {
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
      std::string callee = m_.text_of(field(grandparent, "function"));
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

 private:
  void note_sequence(int length) {
    use_.sequence = true;
    use_.length = std::max(use_.length, length);
  }

  const PythonFile& m_;
  ParameterUse& use_;
};

// torch_module::walk's order (named nodes, pre-order), handing `visit` each node's parent and
// grandparent: the ancestors of `root` are asked of tree-sitter once.
void walk_with_ancestors(TSNode root, const std::function<void(TSNode, TSNode, TSNode)>& visit) {
  if (ts_node_is_null(root)) return;
  TSNode above = ts_node_parent(root);
  std::vector<TSNode> path{ts_node_is_null(above) ? TSNode{} : ts_node_parent(above), above};
  std::function<void(TSNode)> go = [&](TSNode n) {
    visit(n, path.back(), path[path.size() - 2]);
    path.push_back(n);
    for (uint32_t i = 0, c = ts_node_named_child_count(n); i < c; ++i) go(ts_node_named_child(n, i));
    path.pop_back();
  };
  go(root);
}

}  // namespace

ParameterUses::ParameterUses(const PythonFile& m, const ModuleClass& cls) : m_(m), cls_(cls) {
  auto init = method_of(m, cls, "__init__");
  if (!init) return;
  has_init_ = true;
  walk_with_ancestors(field(m.function(*init).definition, "body"), [&](TSNode n, TSNode parent, TSNode grandparent) {
    if (is_type(n, "identifier")) init_identifiers_.push_back({m.view_of(n), {n, parent, grandparent}});
  });
}

const std::vector<std::pair<std::string, ParameterUses::Place>>& ParameterUses::self_attributes() const {
  if (!self_attributes_) {
    // Every `self.<attribute>` of the class's lineage in the file (forward, helpers), in order.
    self_attributes_.emplace();
    for (size_t statement : cls_.lineage) {
      TSNode s = m_.statement(statement).node;
      if (is_type(s, "decorated_definition")) s = field(s, "definition");
      walk_with_ancestors(field(s, "body"), [&](TSNode n, TSNode parent, TSNode grandparent) {
        if (is_type(n, "attribute") && m_.view_of(field(n, "object")) == "self")
          self_attributes_->push_back({m_.text_of(field(n, "attribute")), {n, parent, grandparent}});
      });
    }
  }
  return *self_attributes_;
}

ParameterUse ParameterUses::of(const std::string& name) const {
  ParameterUse use;
  if (!has_init_) return use;
  UseReader reader(m_, use);
  // Every read of the parameter in __init__'s body, from what encloses it.
  std::set<std::string> stored_as;
  for (const auto& [text, at] : init_identifiers_)
    if (text == name) reader.use_at(at.node, at.parent, at.grandparent, &stored_as);
  if (stored_as.empty()) return use;
  // Used the same way, the attributes it is stored in say what the parameter had to be.
  for (const auto& [attribute, at] : self_attributes())
    if (stored_as.count(attribute)) reader.use_at(at.node, at.parent, at.grandparent, nullptr);
  return use;
}

ParameterUse parameter_use(const PythonFile& m, const ModuleClass& cls, const std::string& name) {
  return ParameterUses(m, cls).of(name);
}

}  // namespace mine::torch_module
