#include "core/repo/global_references.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "core/error.h"
#include "core/python/name_scopes.h"
#include "core/python/named_children.h"

namespace mine {
namespace {

struct Scope {
  bool is_class = false;
  bool is_module = false;
  std::set<std::string> bound;
  std::set<std::string> not_local;  // `global` / `nonlocal` names
  std::vector<GlobalReference> pending;      // resolved when the scope closes
  std::vector<GlobalReference> passthrough;  // from functions nested in a class: skip the class
  std::vector<GlobalReference> globals;      // certainly global (`global x`)
};

class ReferenceWalker {
 public:
  ReferenceWalker(const SyntaxTree& tree, int max_depth) : tree_(tree), max_depth_(max_depth) {}

  void visit(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    if (depth > max_depth_)
      throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels at line " +
                  std::to_string(first_line(n)));
    std::string_view t = node_type(n);
    if (t == "identifier") {
      s.pending.push_back(reference(n));
    } else if (t == "attribute") {
      visit_attribute(n, s, depth);
    } else if (t == "keyword_argument") {
      visit(field(n, "value"), s, depth + 1);
    } else if (t == "decorated_definition") {
      visit_named_children(n, [&](TSNode c) {
        if (is_type(c, "decorator")) visit(c, s, depth + 1);
      });
      visit(field(n, "definition"), s, depth + 1);
    } else if (t == "function_definition") {
      bind(field(n, "name"), s);
      Scope inner;
      visit_parameters(field(n, "parameters"), s, inner, depth);
      visit(field(n, "return_type"), s, depth + 1);
      visit(field(n, "body"), inner, depth + 1);
      close(inner, s);
    } else if (t == "lambda") {
      Scope inner;
      visit_parameters(field(n, "parameters"), s, inner, depth);
      visit(field(n, "body"), inner, depth + 1);
      close(inner, s);
    } else if (t == "class_definition") {
      bind(field(n, "name"), s);
      visit(field(n, "superclasses"), s, depth + 1);
      Scope inner;
      inner.is_class = true;
      visit(field(n, "body"), inner, depth + 1);
      close(inner, s);
    } else if (t == "list_comprehension" || t == "set_comprehension" || t == "dictionary_comprehension" ||
               t == "generator_expression") {
      Scope inner;
      visit_named_children(n, [&](TSNode c) {
        if (is_type(c, "for_in_clause")) {
          bind_target(field(c, "left"), inner, depth + 1);
          visit(field(c, "right"), inner, depth + 1);
        } else {
          visit(c, inner, depth + 1);
        }
      });
      close(inner, s);
    } else if (t == "assignment") {
      bind_target(field(n, "left"), s, depth + 1);
      visit(field(n, "type"), s, depth + 1);
      visit(field(n, "right"), s, depth + 1);
    } else if (t == "augmented_assignment") {
      TSNode left = field(n, "left");
      if (is_type(left, "identifier")) {
        bind(left, s);
      } else {
        visit(left, s, depth + 1);
      }
      visit(field(n, "right"), s, depth + 1);
    } else if (t == "for_statement") {
      bind_target(field(n, "left"), s, depth + 1);
      visit(field(n, "right"), s, depth + 1);
      visit(field(n, "body"), s, depth + 1);
      visit(field(n, "alternative"), s, depth + 1);
    } else if (t == "as_pattern") {
      uint32_t count = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (is_type(c, "as_pattern_target")) {
          visit_named_children(c, [&](TSNode g) { bind_target(g, s, depth + 1); });
        } else {
          visit(c, s, depth + 1);
        }
      }
    } else if (t == "named_expression") {
      bind(field(n, "name"), s);
      visit(field(n, "value"), s, depth + 1);
    } else if (t == "import_statement" || t == "import_from_statement") {
      visit_import(n, s);
    } else if (t == "future_import_statement" || t == "comment" || t == "string_content") {
      // binds and reads nothing
    } else if (t == "global_statement" || t == "nonlocal_statement") {
      visit_named_children(n, [&](TSNode c) {
        if (!is_type(c, "identifier")) return;
        s.not_local.insert(text(c));
        if (t == "global_statement") s.globals.push_back(reference(c));
      });
    } else {
      visit_named_children(n, [&](TSNode c) { visit(c, s, depth + 1); });
    }
  }

  // Whatever is still pending at module level is global.
  static std::vector<GlobalReference> finish(Scope& top) {
    std::vector<GlobalReference> out = std::move(top.pending);
    for (auto& r : top.passthrough) out.push_back(std::move(r));
    for (auto& r : top.globals) out.push_back(std::move(r));
    std::sort(out.begin(), out.end(), [](const GlobalReference& a, const GlobalReference& b) { return a.start < b.start; });
    out.erase(std::unique(out.begin(), out.end(),
                          [](const GlobalReference& a, const GlobalReference& b) { return a.start == b.start; }),
              out.end());
    return out;
  }

 private:
  std::string text(TSNode n) const { return std::string(tree_.text_of(n)); }

  GlobalReference reference(TSNode identifier) const {
    GlobalReference r;
    r.name = text(identifier);
    r.start = ts_node_start_byte(identifier);
    r.end = ts_node_end_byte(identifier);
    return r;
  }

  void bind(TSNode identifier, Scope& s) {
    if (!is_type(identifier, "identifier")) return;
    s.bound.insert(text(identifier));
    s.pending.push_back(reference(identifier));
  }

  void bind_target(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    if (depth > max_depth_) throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    std::string_view t = node_type(n);
    if (t == "identifier") {
      bind(n, s);
    } else if (t == "attribute" || t == "subscript") {
      visit(n, s, depth + 1);
    } else {
      visit_named_children(n, [&](TSNode c) { bind_target(c, s, depth + 1); });
    }
  }

  // `a.b.c`: one reference to `a` carrying the chain, so `H.fast_exp` can be rewritten whole.
  void visit_attribute(TSNode n, Scope& s, int depth) {
    std::vector<TSNode> attrs;
    TSNode base = n;
    while (is_type(base, "attribute")) {
      attrs.push_back(base);
      base = field(base, "object");
      if (++depth > max_depth_) throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    }
    if (!is_type(base, "identifier")) {
      visit(base, s, depth + 1);
      return;
    }
    GlobalReference r = reference(base);
    for (auto it = attrs.rbegin(); it != attrs.rend(); ++it) {
      TSNode attr = field(*it, "attribute");
      if (ts_node_is_null(attr)) break;
      r.chain.emplace_back(text(attr), ts_node_end_byte(*it));
    }
    s.pending.push_back(std::move(r));
  }

  void visit_parameters(TSNode params, Scope& outer, Scope& inner, int depth) {
    if (ts_node_is_null(params)) return;
    visit_named_children(params, [&](TSNode p) {
      std::string_view t = node_type(p);
      if (t == "identifier") {
        inner.bound.insert(text(p));
      } else if (t == "default_parameter" || t == "typed_default_parameter") {
        bind_target(field(p, "name"), inner, depth + 1);
        visit(field(p, "type"), outer, depth + 1);
        visit(field(p, "value"), outer, depth + 1);
      } else if (t == "typed_parameter") {
        visit_named_children(p, [&](TSNode c) {
          if (is_type(c, "identifier") || is_type(c, "list_splat_pattern") || is_type(c, "dictionary_splat_pattern"))
            bind_target(c, inner, depth + 1);
        });
        visit(field(p, "type"), outer, depth + 1);
      } else {
        bind_target(p, inner, depth + 1);
      }
    });
  }

  // Only module-level imports are rewritten; inside functions they just bind locals.
  void visit_import(TSNode n, Scope& s) {
    bool from = is_type(n, "import_from_statement");
    TSNode module = field(n, "module_name");
    visit_named_children(n, [&](TSNode c) {
      if (from && ts_node_eq(c, module)) return;
      GlobalReference r;
      if (is_type(c, "aliased_import")) {
        r = reference(field(c, "alias"));
      } else if (is_type(c, "dotted_name")) {
        if (from) {
          r = reference(c);
          r.imported = true;
        } else {
          r = reference(ts_node_named_child(c, 0));
          r.dotted_import = ts_node_named_child_count(c) > 1;
          r.imported = !r.dotted_import;
          if (r.imported) r.end = ts_node_end_byte(c);
        }
      } else {
        return;
      }
      s.bound.insert(r.name);
      if (s.is_module) s.pending.push_back(std::move(r));
    });
  }

  static void close(Scope& inner, Scope& outer) {
    auto local = [&](const std::string& name) { return inner.bound.count(name) && !inner.not_local.count(name); };
    auto& dest = outer.is_class ? outer.passthrough : outer.pending;
    for (auto& r : inner.pending)
      if (!local(r.name)) dest.push_back(std::move(r));
    for (auto& r : inner.passthrough) dest.push_back(std::move(r));
    for (auto& r : inner.globals) outer.globals.push_back(std::move(r));
  }

  const SyntaxTree& tree_;
  int max_depth_;
};

}  // namespace

std::vector<GlobalReference> global_references(const SyntaxTree& tree, TSNode statement, int max_depth) {
  Scope top;
  top.is_module = true;
  ReferenceWalker walker(tree, max_depth < 0 ? max_nesting() : max_depth);
  walker.visit(statement, top, 0);
  return ReferenceWalker::finish(top);
}

}  // namespace mine
