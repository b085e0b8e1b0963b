#include "core/python/name_scopes.h"

#include <atomic>
#include <string_view>

#include "core/error.h"

namespace mine {
namespace {

std::atomic<int> nesting_limit{kDefaultMaxNesting};

void add_import_bindings(const SyntaxTree& tree, TSNode n, std::set<std::string>& out);

struct Scope {
  std::set<std::string> reads;
  std::set<std::string> bound;
  std::set<std::string> declared_global;  // `global x` / `nonlocal x`: x is not local here
  std::map<std::string, std::set<std::string>> attributes;
  // Free names of functions nested in a class body skip the class scope, as in Python.
  std::set<std::string> passthrough;
  std::map<std::string, std::set<std::string>> passthrough_attributes;
  bool is_class = false;
};

class FreeNameWalker {
 public:
  FreeNameWalker(const SyntaxTree& tree, int max_depth) : tree_(tree), max_depth_(max_depth) {}

  void visit(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    if (depth > max_depth_) {
      throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels at line " +
                  std::to_string(first_line(n)) + " (--max-nesting)");
    }
    std::string_view t = node_type(n);
    if (t == "identifier") {
      s.reads.insert(text(n));
    } else if (t == "attribute") {
      TSNode object = field(n, "object");
      TSNode attr = field(n, "attribute");
      if (is_type(object, "identifier") && !ts_node_is_null(attr)) s.attributes[text(object)].insert(text(attr));
      visit(object, s, depth + 1);
    } else if (t == "keyword_argument") {
      visit(field(n, "value"), s, depth + 1);
    } else if (t == "decorated_definition") {
      for_each_named_child(n, [&](TSNode c) {
        if (is_type(c, "decorator")) visit(c, s, depth + 1);
      });
      visit(field(n, "definition"), s, depth + 1);
    } else if (t == "function_definition") {
      visit_function(n, s, depth);
    } else if (t == "lambda") {
      Scope inner;
      visit_parameters(field(n, "parameters"), s, inner, depth);
      visit(field(n, "body"), inner, depth + 1);
      merge_free(inner, s);
    } else if (t == "class_definition") {
      TSNode name = field(n, "name");
      if (!ts_node_is_null(name)) s.bound.insert(text(name));
      visit(field(n, "superclasses"), s, depth + 1);
      Scope inner;
      inner.is_class = true;
      visit(field(n, "body"), inner, depth + 1);
      merge_free(inner, s);
    } else if (t == "list_comprehension" || t == "set_comprehension" || t == "dictionary_comprehension" ||
               t == "generator_expression") {
      Scope inner;
      for_each_named_child(n, [&](TSNode c) {
        if (is_type(c, "for_in_clause")) {
          bind_target(field(c, "left"), inner, depth + 1);
          visit(field(c, "right"), inner, depth + 1);
        } else {
          visit(c, inner, depth + 1);
        }
      });
      merge_free(inner, s);
    } else if (t == "assignment") {
      bind_target(field(n, "left"), s, depth + 1);
      visit(field(n, "type"), s, depth + 1);
      visit(field(n, "right"), s, depth + 1);
    } else if (t == "augmented_assignment") {
      TSNode left = field(n, "left");
      visit(left, s, depth + 1);
      if (is_type(left, "identifier")) s.bound.insert(text(left));
      visit(field(n, "right"), s, depth + 1);
    } else if (t == "for_statement") {
      bind_target(field(n, "left"), s, depth + 1);
      visit(field(n, "right"), s, depth + 1);
      visit(field(n, "body"), s, depth + 1);
      visit(field(n, "alternative"), s, depth + 1);
    } else if (t == "as_pattern") {
      // `with x as y`, `except E as e`: the first child is read, the alias is bound.
      uint32_t count = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < count; ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (is_type(c, "as_pattern_target")) {
          for_each_named_child(c, [&](TSNode g) { bind_target(g, s, depth + 1); });
        } else {
          visit(c, s, depth + 1);
        }
      }
    } else if (t == "named_expression") {
      TSNode name = field(n, "name");
      if (!ts_node_is_null(name)) s.bound.insert(text(name));
      visit(field(n, "value"), s, depth + 1);
    } else if (t == "import_statement" || t == "import_from_statement") {
      add_import_bindings(tree_, n, s.bound);
    } else if (t == "future_import_statement") {
      // binds no name
    } else if (t == "global_statement" || t == "nonlocal_statement") {
      for_each_named_child(n, [&](TSNode c) {
        if (is_type(c, "identifier")) s.declared_global.insert(text(c));
      });
    } else if (t == "comment") {
      // nothing to read
    } else {
      for_each_named_child(n, [&](TSNode c) { visit(c, s, depth + 1); });
    }
  }

  // Identifiers that an assignment target binds; attribute and subscript targets are reads.
  void bind_target(TSNode n, Scope& s, int depth) {
    if (ts_node_is_null(n)) return;
    if (depth > max_depth_) throw Error("nesting deeper than " + std::to_string(max_depth_) + " levels");
    std::string_view t = node_type(n);
    if (t == "identifier") {
      s.bound.insert(text(n));
    } else if (t == "attribute" || t == "subscript") {
      visit(n, s, depth + 1);
    } else {
      for_each_named_child(n, [&](TSNode c) { bind_target(c, s, depth + 1); });
    }
  }

 private:
  std::string text(TSNode n) const { return std::string(tree_.text_of(n)); }

  void visit_function(TSNode n, Scope& s, int depth) {
    TSNode name = field(n, "name");
    if (!ts_node_is_null(name)) s.bound.insert(text(name));
    Scope inner;
    visit_parameters(field(n, "parameters"), s, inner, depth);
    visit(field(n, "return_type"), s, depth + 1);
    visit(field(n, "body"), inner, depth + 1);
    merge_free(inner, s);
  }

  // Defaults and annotations are evaluated in the defining scope; parameter names bind inside.
  void visit_parameters(TSNode params, Scope& outer, Scope& inner, int depth) {
    if (ts_node_is_null(params)) return;
    for_each_named_child(params, [&](TSNode p) {
      std::string_view t = node_type(p);
      if (t == "identifier") {
        inner.bound.insert(text(p));
      } else if (t == "default_parameter" || t == "typed_default_parameter") {
        bind_target(field(p, "name"), inner, depth + 1);
        visit(field(p, "type"), outer, depth + 1);
        visit(field(p, "value"), outer, depth + 1);
      } else if (t == "typed_parameter") {
        for_each_named_child(p, [&](TSNode c) {
          if (is_type(c, "identifier") || is_type(c, "list_splat_pattern") || is_type(c, "dictionary_splat_pattern"))
            bind_target(c, inner, depth + 1);
        });
        visit(field(p, "type"), outer, depth + 1);
      } else {
        bind_target(p, inner, depth + 1);  // *args, **kwargs, tuple parameters
      }
    });
  }

  static void merge_free(Scope& inner, Scope& outer) {
    auto add = [&](const std::string& name) {
      if (outer.is_class) {
        outer.passthrough.insert(name);
      } else {
        outer.reads.insert(name);
      }
    };
    auto is_local = [&](const std::string& name) {
      return inner.bound.count(name) && !inner.declared_global.count(name);
    };
    for (const auto& name : inner.reads)
      if (!is_local(name)) add(name);
    for (const auto& name : inner.declared_global) add(name);
    for (const auto& [base, attrs] : inner.attributes) {
      if (is_local(base)) continue;
      auto& dest = outer.is_class ? outer.passthrough_attributes[base] : outer.attributes[base];
      dest.insert(attrs.begin(), attrs.end());
    }
    for (const auto& name : inner.passthrough) add(name);
    for (const auto& [base, attrs] : inner.passthrough_attributes) {
      auto& dest = outer.is_class ? outer.passthrough_attributes[base] : outer.attributes[base];
      dest.insert(attrs.begin(), attrs.end());
    }
  }

  const SyntaxTree& tree_;
  int max_depth_;
};

void add_import_bindings(const SyntaxTree& tree, TSNode n, std::set<std::string>& out) {
  std::string_view t = node_type(n);
  if (t == "import_statement") {
    for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "aliased_import")) {
        out.insert(std::string(tree.text_of(field(c, "alias"))));
      } else if (is_type(c, "dotted_name")) {
        // `import a.b.c` binds `a`.
        out.insert(std::string(tree.text_of(ts_node_named_child(c, 0))));
      }
    });
  } else if (t == "import_from_statement") {
    TSNode module = field(n, "module_name");
    for_each_named_child(n, [&](TSNode c) {
      if (ts_node_eq(c, module)) return;
      if (is_type(c, "aliased_import")) {
        out.insert(std::string(tree.text_of(field(c, "alias"))));
      } else if (is_type(c, "dotted_name")) {
        out.insert(std::string(tree.text_of(c)));
      }
    });
  }
}

}  // namespace

std::set<std::string> bound_names(const SyntaxTree& tree, TSNode statement) {
  std::set<std::string> out;
  std::string_view t = node_type(statement);
  if (t == "import_statement" || t == "import_from_statement" || t == "future_import_statement") {
    add_import_bindings(tree, statement, out);
    return out;
  }
  if (t == "decorated_definition") statement = field(statement, "definition");
  t = node_type(statement);
  if (t == "function_definition" || t == "class_definition") {
    TSNode name = field(statement, "name");
    if (!ts_node_is_null(name)) out.insert(std::string(tree.text_of(name)));
    return out;
  }
  // Assignments and compound statements: whatever their own scope binds.
  Scope s;
  FreeNameWalker walker(tree, max_nesting());
  walker.visit(statement, s, 0);
  return s.bound;
}

int max_nesting() { return nesting_limit.load(std::memory_order_relaxed); }

void set_max_nesting(int levels) {
  if (levels < 8 || levels > kMaxMaxNesting)
    throw Error("nesting limit " + std::to_string(levels) + " is outside 8.." + std::to_string(kMaxMaxNesting));
  nesting_limit.store(levels, std::memory_order_relaxed);
}

FreeNames free_names(const SyntaxTree& tree, TSNode node, int max_depth) {
  Scope s;
  FreeNameWalker walker(tree, max_depth < 0 ? max_nesting() : max_depth);
  walker.visit(node, s, 0);
  FreeNames out;
  out.names = std::move(s.reads);
  for (auto& name : s.passthrough) out.names.insert(name);
  out.attributes = std::move(s.attributes);
  return out;
}

bool is_python_builtin(const std::string& name) {
  static const std::set<std::string> builtins = {
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
  return builtins.count(name) > 0;
}

}  // namespace mine
