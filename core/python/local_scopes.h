#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/python/import_binding.h"
#include "core/python/syntax_tree.h"

namespace mine {

// How a function binds one of its local names. Libraries that keep Triton optional import it
// inside the function that defines the kernel; a nested kernel then reads its enclosing
// function's locals, and only some of them can be moved to module level.
struct LocalBinding {
  enum class Kind {
    Import,      // `import triton` anywhere in the body (also under if/try)
    Assignment,  // `NAME = expr`
    Definition,  // `def NAME` / `class NAME`
    Parameter,   // a parameter of the function: known only when it is called
    Other,       // loop targets, `with ... as`, augmented assignments, walrus, ...
  };
  Kind kind = Kind::Other;
  TSNode statement{};   // the binding statement; null for Parameter and Other
  bool direct = false;  // written directly in the function's body, not under if/for/try/with
};

// The names one function binds in its own scope (not those of the functions nested in it).
struct LocalScope {
  TSNode function{};                 // the function_definition
  std::string name;                  // the function's name, for messages
  uint32_t body_start = 0, body_end = 0;
  std::map<std::string, std::vector<LocalBinding>> names;
  std::map<std::string, ImportBinding> imports;  // first import binding of each imported name

  bool binds(const std::string& name) const { return names.count(name) != 0; }
  // The import `name` refers to in this scope: an import binds it (a `try: import x / except:
  // x = None` fallback still counts as the import) and no parameter does. nullptr otherwise.
  const ImportBinding* import_of(const std::string& name) const;
  bool contains(uint32_t byte) const { return byte >= body_start && byte < body_end; }
};

// The scope of `function_definition`. Throws mine::Error when its statements nest deeper than
// max_nesting().
LocalScope local_scope(const SyntaxTree& tree, TSNode function_definition);

// The same, but only when the body imports something (the cheap statement walk runs first, the
// full walk of the body's names only then): the module model keeps these to resolve decorators
// such as `@triton.jit` through a function's own `import triton`.
std::optional<LocalScope> local_scope_with_imports(const SyntaxTree& tree, TSNode function_definition);

}  // namespace mine
