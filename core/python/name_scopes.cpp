#include "core/python/name_scopes.h"

#include <algorithm>
#include <atomic>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/error.h"
#include "include/mine/ts_nodes.h"
#include "core/python/python_node_kinds.h"
#include "core/python/string_prefix.h"

namespace mine {
namespace {

using python_nodes::child;
using python_nodes::Grammar;
using python_nodes::grammar;
using python_nodes::Kind;

std::atomic<int> nesting_limit{kDefaultMaxNesting};

// Names seen in a scope, as views into the tree's text (which outlives a walk), in the order seen
// and with repeats: appending is all a walk does per identifier (a tree set allocated a node and
// compared strings at each). Sorted once where asked whether it holds a name, and at the end.
class Names {
 public:
  void insert(std::string_view name) {
    names_.push_back(name);
    sorted_ = false;
  }
  template <typename It>
  void insert(It first, It last) {
    names_.insert(names_.end(), first, last);
    sorted_ = false;
  }
  // Distinct and in order from here on (until the next insert).
  const std::vector<std::string_view>& sorted() {
    if (!sorted_) {
      std::sort(names_.begin(), names_.end());
      names_.erase(std::unique(names_.begin(), names_.end()), names_.end());
      sorted_ = true;
    }
    return names_;
  }
  bool contains(std::string_view name) {
    const auto& all = sorted();
    return std::binary_search(all.begin(), all.end(), name);
  }
  auto begin() const { return names_.begin(); }
  auto end() const { return names_.end(); }

 private:
  std::vector<std::string_view> names_;
  bool sorted_ = true;
};
// `base.attribute` reads, in the order seen, with repeats.
using AttributeReads = std::vector<std::pair<std::string_view, std::string_view>>;

void add_import_bindings(const SyntaxTree& tree, TSNode n, Names& out);


struct Scope {
  Names reads;
  Names bound;
  Names declared_global;  // `global x` / `nonlocal x`: x is not local here
  AttributeReads attributes;
  // Free names of functions nested in a class body skip the class scope, as in Python.
  Names passthrough;
  AttributeReads passthrough_attributes;
  bool is_class = false;
};

class FreeNameWalker {
 public:
  FreeNameWalker(const SyntaxTree& tree, int max_depth) : tree_(tree), max_depth_(max_depth), g_(grammar()) {}

  void visit(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    if (depth > max_depth_) {
      throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels at line " +
                  std::to_string(first_line(n)) + " (--max-nesting)");
    }
    switch (g_.kind(n)) {
      case Kind::Identifier:
        s.reads.insert(text(n));
        break;
      case Kind::Attribute: {
        TSNode object = child(n, g_.object);
        TSNode attr = child(n, g_.attribute);
        if (g_.kind(object) == Kind::Identifier && !ts_node_is_null(attr)) s.attributes.emplace_back(text(object), text(attr));
        visit(object, s, depth + 1);
        break;
      }
      case Kind::KeywordArgument:
        visit(child(n, g_.value), s, depth + 1);
        break;
      case Kind::DecoratedDefinition:
        ts::for_each_named_child(n, [&](TSNode c) {
          if (g_.kind(c) == Kind::Decorator) visit(c, s, depth + 1);
        });
        visit(child(n, g_.definition), s, depth + 1);
        break;
      case Kind::FunctionDefinition:
        visit_function(n, s, depth);
        break;
      case Kind::Lambda: {
        Scope inner;
        visit_parameters(child(n, g_.parameters), s, inner, depth);
        visit(child(n, g_.body), inner, depth + 1);
        merge_free(inner, s);
        break;
      }
      case Kind::ClassDefinition: {
        TSNode name = child(n, g_.name);
        if (!ts_node_is_null(name)) s.bound.insert(text(name));
        visit(child(n, g_.superclasses), s, depth + 1);
        Scope inner;
        inner.is_class = true;
        visit(child(n, g_.body), inner, depth + 1);
        merge_free(inner, s);
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
        merge_free(inner, s);
        break;
      }
      case Kind::Assignment:
        bind_target(child(n, g_.left), s, depth + 1);
        visit(child(n, g_.type), s, depth + 1);
        visit(child(n, g_.right), s, depth + 1);
        break;
      case Kind::AugmentedAssignment: {
        TSNode left = child(n, g_.left);
        visit(left, s, depth + 1);
        if (g_.kind(left) == Kind::Identifier) s.bound.insert(text(left));
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
        // `with x as y`, `except E as e`: the first child is read, the alias is bound.
        uint32_t count = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < count; ++i) {
          TSNode c = ts_node_named_child(n, i);
          if (g_.kind(c) == Kind::AsPatternTarget) {
            ts::for_each_named_child(c, [&](TSNode gc) { bind_target(gc, s, depth + 1); });
          } else {
            visit(c, s, depth + 1);
          }
        }
        break;
      }
      case Kind::NamedExpression: {
        TSNode name = child(n, g_.name);
        if (!ts_node_is_null(name)) s.bound.insert(text(name));
        visit(child(n, g_.value), s, depth + 1);
        break;
      }
      case Kind::Import:
        add_import_bindings(tree_, n, s.bound);
        break;
      case Kind::FutureImport:  // binds no name
      case Kind::Comment:       // nothing to read
        break;
      case Kind::String:
        // Only a format string's interpolations read names. Below any other string lie its
        // start, content and end (depth + 1) and escape sequences (depth + 2): when neither is
        // past the limit, walking them could neither read a name nor throw.
        if (depth + 2 <= max_depth_ && !is_format_string(text(n))) break;
        ts::for_each_named_child(n, [&](TSNode c) { visit(c, s, depth + 1); });
        break;
      case Kind::Global:
        ts::for_each_named_child(n, [&](TSNode c) {
          if (g_.kind(c) == Kind::Identifier) s.declared_global.insert(text(c));
        });
        break;
      default:
        ts::for_each_named_child(n, [&](TSNode c) { visit(c, s, depth + 1); });
    }
  }

  // Identifiers that an assignment target binds; attribute and subscript targets are reads.
  void bind_target(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    if (depth > max_depth_) throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    Kind k = g_.kind(n);
    if (k == Kind::Identifier) {
      s.bound.insert(text(n));
    } else if (k == Kind::Attribute || k == Kind::Subscript) {
      visit(n, s, depth + 1);
    } else {
      ts::for_each_named_child(n, [&](TSNode c) { bind_target(c, s, depth + 1); });
    }
  }

 private:
  std::string_view text(TSNode n) const { return tree_.text_of(n); }

  void visit_function(TSNode n, Scope& s, int depth) {
    TSNode name = child(n, g_.name);
    if (!ts_node_is_null(name)) s.bound.insert(text(name));
    Scope inner;
    visit_parameters(child(n, g_.parameters), s, inner, depth);
    visit(child(n, g_.return_type), s, depth + 1);
    visit(child(n, g_.body), inner, depth + 1);
    merge_free(inner, s);
  }

  // Defaults and annotations are evaluated in the defining scope; parameter names bind inside.
  void visit_parameters(TSNode params, Scope& outer, Scope& inner, int depth) {
    if (ts_node_is_null(params)) return;
    ts::for_each_named_child(params, [&](TSNode p) {
      Kind k = g_.kind(p);
      if (k == Kind::Identifier) {
        inner.bound.insert(text(p));
      } else if (k == Kind::DefaultParameter) {
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
        bind_target(p, inner, depth + 1);  // *args, **kwargs, tuple parameters
      }
    });
  }

  static void merge_free(Scope& inner, Scope& outer) {
    auto add = [&](std::string_view name) {
      if (outer.is_class) {
        outer.passthrough.insert(name);
      } else {
        outer.reads.insert(name);
      }
    };
    auto is_local = [&](std::string_view name) {
      return inner.bound.contains(name) && !inner.declared_global.contains(name);
    };
    for (const auto& name : inner.reads.sorted())
      if (!is_local(name)) add(name);
    for (const auto& name : inner.declared_global.sorted()) add(name);
    AttributeReads& dest = outer.is_class ? outer.passthrough_attributes : outer.attributes;
    for (const auto& [base, attr] : inner.attributes)
      if (!is_local(base)) dest.emplace_back(base, attr);
    for (const auto& name : inner.passthrough.sorted()) add(name);
    dest.insert(dest.end(), inner.passthrough_attributes.begin(), inner.passthrough_attributes.end());
  }

  const SyntaxTree& tree_;
  int max_depth_;
  const Grammar& g_;
};

void add_import_bindings(const SyntaxTree& tree, TSNode n, Names& out) {
  std::string_view t = node_type(n);
  if (t == "import_statement") {
    ts::for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "aliased_import")) {
        out.insert(tree.text_of(field(c, "alias")));
      } else if (is_type(c, "dotted_name")) {
        // `import a.b.c` binds `a`.
        out.insert(tree.text_of(ts_node_named_child(c, 0)));
      }
    });
  } else if (t == "import_from_statement") {
    TSNode module = field(n, "module_name");
    ts::for_each_named_child(n, [&](TSNode c) {
      if (ts_node_eq(c, module)) return;
      if (is_type(c, "aliased_import")) {
        out.insert(tree.text_of(field(c, "alias")));
      } else if (is_type(c, "dotted_name")) {
        out.insert(tree.text_of(c));
      }
    });
  }
}

std::set<std::string> owned(Names& names) {
  std::set<std::string> out;
  for (std::string_view n : names.sorted()) out.emplace_hint(out.end(), n);
  return out;
}

}  // namespace

std::set<std::string> bound_names(const SyntaxTree& tree, TSNode statement) {
  std::string_view t = node_type(statement);
  if (t == "import_statement" || t == "import_from_statement" || t == "future_import_statement") {
    Names out;
    add_import_bindings(tree, statement, out);
    return owned(out);
  }
  if (t == "decorated_definition") statement = field(statement, "definition");
  t = node_type(statement);
  if (t == "function_definition" || t == "class_definition") {
    std::set<std::string> out;
    TSNode name = field(statement, "name");
    if (!ts_node_is_null(name)) out.insert(std::string(tree.text_of(name)));
    return out;
  }
  // Assignments and compound statements: whatever their own scope binds.
  Scope s;
  FreeNameWalker walker(tree, max_nesting());
  walker.visit(statement, s, 0);
  return owned(s.bound);
}

int max_nesting() { return nesting_limit.load(std::memory_order_relaxed); }

void set_max_nesting(int levels) {
  if (levels < 8 || levels > kMaxMaxNesting)
    throw Error("nesting limit " + std::to_string(levels) + " is outside 8.." + std::to_string(kMaxMaxNesting));
  nesting_limit.store(levels, std::memory_order_relaxed);
}

namespace {

// What a finished walk read, as FreeNames.
FreeNames free_of_walk(Scope& s) {
  s.reads.insert(s.passthrough.begin(), s.passthrough.end());
  FreeNames out;
  out.names = owned(s.reads);
  std::sort(s.attributes.begin(), s.attributes.end());
  s.attributes.erase(std::unique(s.attributes.begin(), s.attributes.end()), s.attributes.end());
  std::set<std::string>* attrs = nullptr;  // of the base last seen: the pairs come sorted
  std::string_view last_base;
  for (const auto& [base, attr] : s.attributes) {
    if (!attrs || base != last_base) {
      attrs = &out.attributes.emplace_hint(out.attributes.end(), std::string(base), std::set<std::string>())->second;
      last_base = base;
    }
    attrs->emplace_hint(attrs->end(), attr);
  }
  return out;
}

}  // namespace

FreeNames free_names(const SyntaxTree& tree, TSNode node, int max_depth) {
  Scope s;
  FreeNameWalker walker(tree, max_depth < 0 ? max_nesting() : max_depth);
  walker.visit(node, s, 0);
  return free_of_walk(s);
}

StatementNames statement_names(const SyntaxTree& tree, TSNode statement) {
  std::string_view t = node_type(statement);
  TSNode definition = t == "decorated_definition" ? field(statement, "definition") : statement;
  std::string_view d = node_type(definition);
  if (t == "import_statement" || t == "import_from_statement" || t == "future_import_statement" ||
      d == "function_definition" || d == "class_definition")
    return {bound_names(tree, statement), free_names(tree, statement)};
  // bound_names walks these with the very walk free_names makes (same limit, same first throw).
  Scope s;
  FreeNameWalker walker(tree, max_nesting());
  walker.visit(statement, s, 0);
  std::set<std::string> bound = owned(s.bound);
  return {std::move(bound), free_of_walk(s)};
}

bool is_python_builtin(const std::string& name) {
  // Hashed: asked for every name a kernel's standalone inlines (a tree set compared strings).
  static const std::unordered_set<std::string_view> builtins = {
      "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
      "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir",
      "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr",
      "globals", "hasattr", "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter",
      "len", "license", "list", "locals", "map", "max", "memoryview", "min", "next", "object", "oct", "open",
      "ord", "pow", "print", "property", "quit", "range", "repr", "reversed", "round", "set", "setattr",
      "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple", "type", "vars", "zip", "__import__",
      "__name__", "__file__", "__doc__", "__spec__", "__package__", "__loader__", "__builtins__", "__debug__",
      "__annotations__", "__dict__", "__class__", "True", "False", "None", "NotImplemented", "Ellipsis",
      "BaseException", "BaseExceptionGroup", "Exception", "ExceptionGroup", "ArithmeticError", "AssertionError",
      "AttributeError", "BlockingIOError", "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError",
      "ConnectionAbortedError", "ConnectionError", "ConnectionRefusedError", "ConnectionResetError",
      "DeprecationWarning", "EOFError", "EncodingWarning", "EnvironmentError", "FileExistsError",
      "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
      "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError",
      "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError",
      "NotADirectoryError", "NotImplementedError", "OSError", "OverflowError", "PendingDeprecationWarning",
      "PermissionError", "ProcessLookupError", "RecursionError", "ReferenceError", "ResourceWarning",
      "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration", "SyntaxError", "SyntaxWarning",
      "SystemError", "SystemExit", "TabError", "TimeoutError", "TypeError", "UnboundLocalError",
      "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError", "UnicodeWarning",
      "UserWarning", "ValueError", "Warning", "ZeroDivisionError"};
  return builtins.count(std::string_view(name)) > 0;
}

}  // namespace mine
