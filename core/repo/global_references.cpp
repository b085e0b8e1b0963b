#include "core/repo/global_references.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "core/error.h"
#include "core/python/name_scopes.h"
#include "include/mine/ts_nodes.h"
#include "core/python/python_node_kinds.h"
#include "core/python/string_prefix.h"

namespace mine {
namespace {

using python_nodes::child;
using python_nodes::Grammar;
using python_nodes::grammar;
using python_nodes::Kind;

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
  ReferenceWalker(const SyntaxTree& tree, int max_depth) : tree_(tree), max_depth_(max_depth), g_(grammar()) {}

  void visit(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    deepest_ = std::max(deepest_, depth);
    if (depth > max_depth_)
      throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels at line " +
                  std::to_string(first_line(n)));
    // By grammar symbol, not type string: this walk runs over every kernel the closure rewrites.
    switch (g_.kind(n)) {
      case Kind::Identifier:
        s.pending.push_back(reference(n));
        break;
      case Kind::Attribute:
        visit_attribute(n, s, depth);
        break;
      case Kind::KeywordArgument:
        visit(child(n, g_.value), s, depth + 1);
        break;
      case Kind::DecoratedDefinition:
        ts::for_each_named_child(n, [&](TSNode c) {
          if (g_.kind(c) == Kind::Decorator) visit(c, s, depth + 1);
        });
        visit(child(n, g_.definition), s, depth + 1);
        break;
      case Kind::FunctionDefinition: {
        bind(child(n, g_.name), s);
        Scope inner;
        visit_parameters(child(n, g_.parameters), s, inner, depth);
        visit(child(n, g_.return_type), s, depth + 1);
        visit(child(n, g_.body), inner, depth + 1);
        close(inner, s);
        break;
      }
      case Kind::Lambda: {
        Scope inner;
        visit_parameters(child(n, g_.parameters), s, inner, depth);
        visit(child(n, g_.body), inner, depth + 1);
        close(inner, s);
        break;
      }
      case Kind::ClassDefinition: {
        bind(child(n, g_.name), s);
        visit(child(n, g_.superclasses), s, depth + 1);
        Scope inner;
        inner.is_class = true;
        visit(child(n, g_.body), inner, depth + 1);
        close(inner, s);
        break;
      }
      case Kind::Comprehension: {
        Scope inner;
        ts::for_each_named_child(n, [&](TSNode c) {
          if (g_.kind(c) == Kind::ForInClause) {
            bind_target(child(c, g_.left), inner, depth + 1);
            visit(child(c, g_.right), inner, depth + 1);
          } else {
            visit(c, inner, depth + 1);
          }
        });
        close(inner, s);
        break;
      }
      case Kind::Assignment:
        bind_target(child(n, g_.left), s, depth + 1);
        visit(child(n, g_.type), s, depth + 1);
        visit(child(n, g_.right), s, depth + 1);
        break;
      case Kind::AugmentedAssignment: {
        TSNode left = child(n, g_.left);
        if (g_.kind(left) == Kind::Identifier) {
          bind(left, s);
        } else {
          visit(left, s, depth + 1);
        }
        visit(child(n, g_.right), s, depth + 1);
        break;
      }
      case Kind::ForStatement:
        bind_target(child(n, g_.left), s, depth + 1);
        visit(child(n, g_.right), s, depth + 1);
        visit(child(n, g_.body), s, depth + 1);
        visit(child(n, g_.alternative), s, depth + 1);
        break;
      case Kind::AsPattern: {
        uint32_t count = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < count; ++i) {
          TSNode c = ts_node_named_child(n, i);
          if (g_.kind(c) == Kind::AsPatternTarget) {
            ts::for_each_named_child(c, [&](TSNode g) { bind_target(g, s, depth + 1); });
          } else {
            visit(c, s, depth + 1);
          }
        }
        break;
      }
      case Kind::NamedExpression:
        bind(child(n, g_.name), s);
        visit(child(n, g_.value), s, depth + 1);
        break;
      case Kind::Import:  // import_statement, import_from_statement
        visit_import(n, s);
        break;
      case Kind::FutureImport:
      case Kind::Comment:
      case Kind::StringContent:
        break;  // binds and reads nothing
      case Kind::String:
        // Only a format string's interpolations read names; any other string's children (its
        // start, content and end, one level down, none of them walked further) can only count
        // towards the depth reached, or throw past the limit: counted here without the walk.
        if (depth + 1 <= max_depth_ && !is_format_string(tree_.text_of(n))) {
          if (ts_node_named_child_count(n) > 0) deepest_ = std::max(deepest_, depth + 1);
          break;
        }
        ts::for_each_named_child(n, [&](TSNode c) { visit(c, s, depth + 1); });
        break;
      case Kind::Global: {  // global_statement, nonlocal_statement
        bool global = is_type(n, "global_statement");
        ts::for_each_named_child(n, [&](TSNode c) {
          if (g_.kind(c) != Kind::Identifier) return;
          s.not_local.insert(text(c));
          if (global) s.globals.push_back(reference(c));
        });
        break;
      }
      default:
        ts::for_each_named_child(n, [&](TSNode c) { visit(c, s, depth + 1); });
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
    if (g_.kind(identifier) != Kind::Identifier) return;
    s.bound.insert(text(identifier));
    s.pending.push_back(reference(identifier));
  }

  void bind_target(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    deepest_ = std::max(deepest_, depth);
    if (depth > max_depth_) throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    Kind k = g_.kind(n);
    if (k == Kind::Identifier) {
      bind(n, s);
    } else if (k == Kind::Attribute || k == Kind::Subscript) {
      visit(n, s, depth + 1);
    } else {
      ts::for_each_named_child(n, [&](TSNode c) { bind_target(c, s, depth + 1); });
    }
  }

  // `a.b.c`: one reference to `a` carrying the chain, so `H.fast_exp` can be rewritten whole.
  void visit_attribute(TSNode n, Scope& s, int depth) {
    std::vector<TSNode> attrs;
    TSNode base = n;
    while (g_.kind(base) == Kind::Attribute) {
      attrs.push_back(base);
      base = child(base, g_.object);
      deepest_ = std::max(deepest_, ++depth);
      if (depth > max_depth_) throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    }
    if (g_.kind(base) != Kind::Identifier) {
      visit(base, s, depth + 1);
      return;
    }
    GlobalReference r = reference(base);
    for (auto it = attrs.rbegin(); it != attrs.rend(); ++it) {
      TSNode attr = child(*it, g_.attribute);
      if (ts_node_is_null(attr)) break;
      r.chain.emplace_back(text(attr), ts_node_end_byte(*it));
    }
    s.pending.push_back(std::move(r));
  }

  void visit_parameters(TSNode params, Scope& outer, Scope& inner, int depth) {
    if (ts_node_is_null(params)) return;
    ts::for_each_named_child(params, [&](TSNode p) {
      Kind k = g_.kind(p);
      if (k == Kind::Identifier) {
        inner.bound.insert(text(p));
      } else if (k == Kind::DefaultParameter) {  // default_parameter, typed_default_parameter
        bind_target(child(p, g_.name), inner, depth + 1);
        visit(child(p, g_.type), outer, depth + 1);
        visit(child(p, g_.value), outer, depth + 1);
      } else if (k == Kind::TypedParameter) {
        ts::for_each_named_child(p, [&](TSNode c) {
          Kind ck = g_.kind(c);
          if (ck == Kind::Identifier || ck == Kind::Splat) bind_target(c, inner, depth + 1);
        });
        visit(child(p, g_.type), outer, depth + 1);
      } else {
        bind_target(p, inner, depth + 1);
      }
    });
  }

  // Only module-level imports are rewritten; inside functions they just bind locals.
  void visit_import(TSNode n, Scope& s) {
    bool from = is_type(n, "import_from_statement");
    TSNode module = field(n, "module_name");
    ts::for_each_named_child(n, [&](TSNode c) {
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
  const Grammar& g_;

 public:
  int deepest_ = 0;  // the deepest level visited so far
};

}  // namespace

std::vector<GlobalReference> global_references(const SyntaxTree& tree, TSNode statement, int max_depth,
                                               int* deepest) {
  Scope top;
  top.is_module = true;
  ReferenceWalker walker(tree, max_depth < 0 ? max_nesting() : max_depth);
  walker.visit(statement, top, 0);
  if (deepest) *deepest = walker.deepest_;
  return ReferenceWalker::finish(top);
}

}  // namespace mine
