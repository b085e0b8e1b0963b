#include "core/python/local_scopes.h"

#include "core/error.h"
#include "core/python/name_scopes.h"
#include "core/python/python_type_set.h"
#include "include/mine/ts_nodes.h"

namespace mine {
namespace {

bool is_import_statement(TSNode n) {
  static const PythonTypeSet imports{"import_statement", "import_from_statement"};
  return imports.has(n);
}

bool is_definition(TSNode n) {
  static const PythonTypeSet definitions{"function_definition", "class_definition", "decorated_definition"};
  return definitions.has(n);
}

// Parts of a compound statement that hold statements of the same scope.
bool holds_statements(TSNode n) {
  static const PythonTypeSet holders{"block",         "if_statement",        "elif_clause",    "else_clause",
                                     "try_statement", "except_clause",       "except_group_clause",
                                     "finally_clause", "with_statement",     "for_statement",  "while_statement",
                                     "match_statement", "case_clause"};
  return holders.has(n);
}

// Walks the statements of one function body (not into nested functions or classes) and records
// the imports, plain assignments and definitions among them.
class StatementWalk {
 public:
  StatementWalk(const SyntaxTree& tree, LocalScope& scope) : tree_(tree), scope_(scope) {}

  void block(TSNode n, bool direct, int depth) {
    if (depth > max_nesting())
      throw Error("statements nested deeper than " + std::to_string(max_nesting()) + " levels at line " +
                  std::to_string(first_line(n)) + " (--max-nesting)");
    ts::for_each_named_child(n, [&](TSNode c) {
      if (is_import_statement(c)) {
        for (auto& b : parse_import(tree_, c)) {
          if (b.star) continue;
          add(b.local, {LocalBinding::Kind::Import, c, direct});
          scope_.imports.emplace(b.local, std::move(b));
        }
      } else if (is_definition(c)) {
        TSNode def = is_type(c, "decorated_definition") ? field(c, "definition") : c;
        TSNode name = field(def, "name");
        if (!ts_node_is_null(name)) add(std::string(tree_.text_of(name)), {LocalBinding::Kind::Definition, c, direct});
      } else if (is_type(c, "expression_statement")) {
        TSNode e = ts_node_named_child(c, 0);
        TSNode left = field(e, "left");
        // `NAME = expr` only: chained, unpacking and augmented assignments stay Other.
        if (is_type(e, "assignment") && is_type(left, "identifier") && !is_type(field(e, "right"), "assignment"))
          add(std::string(tree_.text_of(left)), {LocalBinding::Kind::Assignment, c, direct});
      } else if (holds_statements(c) && !is_type(c, "block")) {
        ts::for_each_named_child(c, [&](TSNode part) {
          if (holds_statements(part)) block(part, false, depth + 1);
        });
      } else if (is_type(c, "block")) {
        block(c, false, depth + 1);
      }
    });
  }

 private:
  void add(const std::string& name, LocalBinding b) { scope_.names[name].push_back(b); }

  const SyntaxTree& tree_;
  LocalScope& scope_;
};

void add_parameters(const SyntaxTree& tree, TSNode params, LocalScope& scope) {
  if (ts_node_is_null(params)) return;
  auto add = [&](TSNode id) {
    if (is_type(id, "identifier")) scope.names[std::string(tree.text_of(id))].push_back({LocalBinding::Kind::Parameter, {}, true});
  };
  ts::for_each_named_child(params, [&](TSNode p) {
    std::string_view t = node_type(p);
    if (t == "identifier") {
      add(p);
    } else if (t == "default_parameter" || t == "typed_default_parameter") {
      add(field(p, "name"));
    } else {  // typed parameters, *args, **kwargs
      ts::for_each_named_child(p, [&](TSNode c) {
        add(c);
        if (is_type(c, "list_splat_pattern") || is_type(c, "dictionary_splat_pattern")) add(ts_node_named_child(c, 0));
      });
    }
  });
}

LocalScope statements_of(const SyntaxTree& tree, TSNode function_definition) {
  LocalScope scope;
  scope.function = function_definition;
  scope.name = std::string(tree.text_of(field(function_definition, "name")));
  TSNode body = field(function_definition, "body");
  scope.body_start = ts_node_start_byte(body);
  scope.body_end = ts_node_end_byte(body);
  if (!ts_node_is_null(body)) StatementWalk(tree, scope).block(body, true, 0);
  return scope;
}

// Every other name the body binds (loop targets, `with ... as`, walrus) and the parameters.
void complete(const SyntaxTree& tree, LocalScope& scope) {
  TSNode body = field(scope.function, "body");
  if (!ts_node_is_null(body))
    for (const auto& name : bound_names(tree, body))
      if (!scope.names.count(name)) scope.names[name].push_back({LocalBinding::Kind::Other, {}, false});
  add_parameters(tree, field(scope.function, "parameters"), scope);
}

}  // namespace

const ImportBinding* LocalScope::import_of(const std::string& name) const {
  auto found = imports.find(name);
  if (found == imports.end()) return nullptr;
  for (const auto& b : names.at(name))
    if (b.kind == LocalBinding::Kind::Parameter) return nullptr;
  return &found->second;
}

LocalScope local_scope(const SyntaxTree& tree, TSNode function_definition) {
  LocalScope scope = statements_of(tree, function_definition);
  complete(tree, scope);
  return scope;
}

std::optional<LocalScope> local_scope_with_imports(const SyntaxTree& tree, TSNode function_definition) {
  // Every import statement holds the keyword `import`: a function whose text has none imports
  // nothing, and its statements need no walk (most functions; the walk was 2% of a scan). The
  // nesting error this walk raises is raised before it by the free-name walk of the module
  // statement holding the function (every syntax level counts there, under the same limit);
  // only a function under a module-level `with`/`for`/`while`, which the module model takes for
  // no statement, nesting blocks past the limit without importing, now passes unrefused.
  if (tree.text_of(function_definition).find("import") == std::string_view::npos) return std::nullopt;
  LocalScope scope = statements_of(tree, function_definition);
  if (scope.imports.empty()) return std::nullopt;
  complete(tree, scope);
  return scope;
}

}  // namespace mine
