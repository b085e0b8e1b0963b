#pragma once
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/python/import_binding.h"
#include "core/python/local_scopes.h"
#include "core/python/name_scopes.h"
#include "core/python/syntax_tree.h"

namespace mine {

enum class StatementKind { Function, Class, Assignment, Import, Guarded, Other };

// A statement that binds names at module level. Definitions nested in module-level `if`/`try`
// blocks are their own statements (`indent` > 0; emitted dedented); a guarded block made only of
// imports and assignments (`try: import x / except ImportError: x = None`) stays whole (Guarded).
struct ModuleStatement {
  StatementKind kind = StatementKind::Other;
  TSNode node{};
  size_t order = 0;      // source order
  int start_line = 0;    // 1-based, decorators included
  int end_line = 0;
  int indent = 0;        // column of the first line
  std::set<std::string> binds;
  // Module-level containers it changes in place (`REGISTRY.append(f)`, `TABLE[key] = f`): a
  // standalone that needs the container needs these statements too.
  std::set<std::string> mutates;
  FreeNames reads;
  std::vector<ImportBinding> imports;  // for Import and Guarded statements
};

// A function definition anywhere in the file (module level, class body, nested, under if/try).
struct FunctionSite {
  TSNode node{};         // decorated_definition when decorated, else function_definition
  TSNode definition{};   // the function_definition
  std::string name;
  std::string qualname;  // `Cls.method`, `outer.<locals>.inner`
  std::vector<TSNode> decorators;  // decorator expressions, top to bottom
  bool in_class = false;
  bool in_function = false;
  int indent = 0;
  const ModuleStatement* statement = nullptr;  // the module statement it is (nullptr if nested deeper)
};

// The module-level view of one Python file that extractors and the dependency closure work on.
class PythonModule {
 public:
  // `path` is the repository-relative path, used in messages. Throws mine::Error on nesting too deep.
  static std::unique_ptr<PythonModule> build(std::string path, std::string text);

  const std::string& path() const { return path_; }
  const SyntaxTree& tree() const { return *tree_; }
  const std::vector<ModuleStatement>& statements() const { return statements_; }
  const std::vector<FunctionSite>& functions() const { return functions_; }

  // Statements binding `name` at module level, in source order.
  std::vector<const ModuleStatement*> bindings_of(const std::string& name) const;
  // The import bindings for `name`, in source order, when every module-level binding of it is an
  // import, or a `name = None` that stands for the optional module being absent (`triton = None`
  // before `try: import triton`). `try: from .ops import k / except ImportError: from ops import
  // k` gives both: the first is what runs where the package imports; a resolver may try the next.
  std::vector<const ImportBinding*> import_alternatives(const std::string& name) const;
  // The first of them, or nullptr.
  const ImportBinding* import_of(const std::string& name) const;
  // `triton = None` before a later statement imports `triton` (`try: import triton`): a
  // placeholder for the module where the import fails, written before it.
  bool placeholder_for_import(const ModuleStatement& s) const;
  // Names a `from this_module import *` would bring in (respects __all__ when it is a literal list).
  std::vector<std::string> public_names() const;
  // Names bound by `from x import *` statements: (binding, statement).
  std::vector<std::pair<const ImportBinding*, const ModuleStatement*>> star_imports() const;

  // Dotted name an expression refers to after resolving its base through the imports:
  // `tt.jit` -> `triton.jit` when `import triton as tt`; `jit(...)` -> `triton.jit` when
  // `from triton import jit`. nullopt when the base is defined in this file or unbound.
  // A function's own imports count where they are in scope: `@triton.jit` on a function nested
  // in one that runs `import triton` resolves, as Python resolves it when the outer one runs.
  std::optional<std::string> qualified_name(TSNode expression) const;
  // The innermost function scope that holds `byte` and binds `name`, among functions whose
  // bodies import something; nullptr when the name is the module's (or unbound).
  const LocalScope* local_scope_binding(const std::string& name, uint32_t byte) const;

  std::string text_of(TSNode n) const { return std::string(tree_->text_of(n)); }
  // Source of a statement with its indentation removed, so a nested definition reads as top level.
  std::string dedented_text(TSNode n, int indent) const;

 private:
  PythonModule() = default;
  void collect_statements(TSNode block, int depth);
  void add_statement(TSNode node, StatementKind kind);
  void collect_functions(TSNode n, const std::string& prefix, bool in_class, bool in_function, int depth);
  void collect_aliases(TSNode n, int depth);
  // What a module-level alias of an import names (`tl_lang = tl`, `ConstExpr = tl.constexpr`):
  // nullopt unless every such assignment of `name` resolves, and to one target.
  std::optional<std::string> alias_target(const std::string& name, int depth) const;
  // qualified_name of an identifier or attribute chain, following aliases `alias_depth` deep so far.
  std::optional<std::string> dotted_name(TSNode n, int alias_depth) const;

  std::string path_;
  std::unique_ptr<SyntaxTree> tree_;
  std::vector<ModuleStatement> statements_;
  std::vector<FunctionSite> functions_;
  std::map<std::string, std::vector<size_t>> binders_;
  std::map<uint32_t, size_t> statement_at_;  // start byte -> index in statements_
  // (statement, name): a later branch of an `if` rebinding what an earlier branch bound.
  std::set<std::pair<size_t, std::string>> alternatives_;
  std::vector<LocalScope> local_scopes_;     // functions that import something, in source order
  // Right-hand sides of module-level `name = other_name` / `name = pkg.attr` assignments (in
  // if/try blocks too, not under `if TYPE_CHECKING:`), by name.
  std::map<std::string, std::vector<TSNode>> aliases_;
  // Names whose truth where a kernel runs is known, since Triton and PyTorch are installed
  // there: modules of either imported outside an `except` handler (true), and flags a `try` that
  // imports one sets in its body (`HAS_TRITON = True`).
  std::map<std::string, bool> installed_;
  void note_installed(TSNode statement);
  // `triton is None`, `not HAS_TRITON`, `tl is not None and HAS_TORCH`: the condition's value
  // where the kernel runs, read from installed_; nullopt when it depends on anything else.
  std::optional<bool> installed_condition(TSNode cond, int depth = 0) const;
};

// `text` with up to `indent` columns of leading blanks removed from every line but the first
// (the first starts where its statement does): a nested statement's text, as at module level.
std::string dedent_lines(const std::string& text, int indent);

}  // namespace mine
