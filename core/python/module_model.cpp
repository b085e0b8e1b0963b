#include "core/python/module_model.h"

#include <algorithm>

#include "core/error.h"
#include "core/python/python_type_set.h"
#include "include/mine/ts_nodes.h"

namespace mine {
namespace {

// Blocks of module-level statements; each level is several levels of the syntax tree.
int max_statement_depth() { return max_nesting() / 4; }

bool is_import(TSNode n) {
  static const PythonTypeSet imports{"import_statement", "import_from_statement", "future_import_statement"};
  return imports.has(n);
}

bool is_compound(TSNode n) {
  static const PythonTypeSet compound{"if_statement", "try_statement"};
  return compound.has(n);
}

// Sub-blocks of an if/try statement, in source order.
std::vector<TSNode> blocks_of(TSNode n) {
  std::vector<TSNode> out;
  std::vector<TSNode> stack{n};
  while (!stack.empty()) {
    TSNode x = stack.back();
    stack.pop_back();
    std::vector<TSNode> children;
    ts::for_each_named_child(x, [&](TSNode c) { children.push_back(c); });
    static const PythonTypeSet block{"block"};
    static const PythonTypeSet clauses{"elif_clause", "else_clause", "except_clause", "finally_clause",
                                       "except_group_clause"};
    for (auto it = children.rbegin(); it != children.rend(); ++it) {
      if (block.has(*it)) {
        out.push_back(*it);
      } else if (clauses.has(*it)) {
        stack.push_back(*it);
      }
    }
  }
  std::sort(out.begin(), out.end(),
            [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); });
  return out;
}

// A guarded block that holds only imports, assignments and expressions is kept whole:
// its branches are alternatives for the same names (`try: import x / except: x = None`). So is
// a `try` whose `except` defines plain fallback functions (`except ImportError: def x(...):
// raise ...`): split, the import would stand unguarded before the fallback.
bool only_simple_statements(TSNode n, int depth) {
  if (depth > max_statement_depth()) return false;
  for (TSNode block : blocks_of(n)) {
    bool simple = true;
    bool fallback = is_type(n, "try_statement") && is_type(ts_node_parent(block), "except_clause");
    ts::for_each_named_child(block, [&](TSNode c) {
      std::string_view t = node_type(c);
      if (is_import(c) || t == "expression_statement" || t == "pass_statement" || t == "comment" ||
          t == "raise_statement" || (fallback && t == "function_definition")) {
        return;
      }
      if (is_compound(c) && only_simple_statements(c, depth + 1)) return;
      simple = false;
    });
    if (!simple) return false;
  }
  return true;
}

// `os.environ.get("FLA_USE_FAST_OPS", "0") == "1"`: an opt-in through the environment, decided by
// its default (what runs where nobody set it); nullopt for any other condition.
std::optional<bool> environment_default(const SyntaxTree& tree, TSNode cond) {
  auto literal = [&](TSNode n) -> std::optional<std::string> {
    std::string text(tree.text_of(n));
    if (is_type(n, "integer")) return text;
    if (is_type(n, "string") && text.size() >= 2 && (text[0] == '"' || text[0] == '\'') && text.back() == text[0] &&
        text.find('\\') == std::string::npos && text.find('{') == std::string::npos)
      return text.substr(1, text.size() - 2);
    return std::nullopt;
  };
  // The value an environment lookup gives when the variable is unset: its default, or None.
  auto unset_value = [&](TSNode call, std::optional<std::string>& value) {
    if (!is_type(call, "call")) return false;
    std::string fn(tree.text_of(field(call, "function")));
    if (fn != "os.environ.get" && fn != "os.getenv" && fn != "environ.get" && fn != "getenv") return false;
    TSNode args = field(call, "arguments");
    if (ts_node_named_child_count(args) == 0 || ts_node_named_child_count(args) > 2) return false;
    if (ts_node_named_child_count(args) == 2) {
      value = literal(ts_node_named_child(args, 1));
      return value.has_value();
    }
    value.reset();
    return true;
  };
  std::optional<std::string> value;
  if (is_type(cond, "parenthesized_expression")) return environment_default(tree, ts_node_named_child(cond, 0));
  if (is_type(cond, "not_operator")) {
    auto inner = environment_default(tree, field(cond, "argument"));
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (unset_value(cond, value)) return value && !value->empty();
  if (is_type(cond, "comparison_operator") && ts_node_named_child_count(cond) == 2 &&
      unset_value(ts_node_named_child(cond, 0), value)) {
    std::string op(tree.text_of(ts_node_child(cond, 1)));
    auto other = literal(ts_node_named_child(cond, 1));
    if (!other || (op != "==" && op != "!=")) return std::nullopt;
    bool equal = value && *value == *other;
    return op == "==" ? equal : !equal;
  }
  return std::nullopt;
}

// `NAME.append(x)`, `NAME.update(...)`, `NAME[key] = x`: the name of a container an expression
// statement changes in place, else "".
std::string mutated_container(const SyntaxTree& tree, TSNode statement) {
  static const std::set<std::string_view> kMutators = {"append", "extend", "insert", "update", "add", "setdefault"};
  if (!is_type(statement, "expression_statement")) return "";
  TSNode e = ts_node_named_child(statement, 0);
  if (is_type(e, "call")) {
    TSNode fn = field(e, "function");
    if (!is_type(fn, "attribute") || !is_type(field(fn, "object"), "identifier")) return "";
    if (!kMutators.count(tree.text_of(field(fn, "attribute")))) return "";
    return std::string(tree.text_of(field(fn, "object")));
  }
  if (is_type(e, "assignment")) {
    TSNode left = field(e, "left");
    if (is_type(left, "subscript") && is_type(field(left, "value"), "identifier"))
      return std::string(tree.text_of(field(left, "value")));
  }
  return "";
}

void collect_mutations(const SyntaxTree& tree, TSNode n, std::set<std::string>& out, int depth) {
  if (depth > max_statement_depth()) return;
  std::string name = mutated_container(tree, n);
  if (!name.empty()) {
    out.insert(name);
    return;
  }
  if (!is_compound(n)) return;
  for (TSNode block : blocks_of(n))
    ts::for_each_named_child(block, [&](TSNode c) { collect_mutations(tree, c, out, depth + 1); });
}

// `NAME = []`, `NAME = {}`, `NAME = dict()`: a container the module builds up in place.
bool binds_container(const SyntaxTree& tree, const ModuleStatement& s) {
  if (s.kind != StatementKind::Assignment) return false;
  TSNode e = ts_node_named_child(s.node, 0);
  if (!is_type(e, "assignment")) return false;
  TSNode right = field(e, "right");
  if (is_type(right, "list") || is_type(right, "dictionary") || is_type(right, "set")) return true;
  if (!is_type(right, "call")) return false;
  std::string_view fn = tree.text_of(field(right, "function"));
  return fn == "list" || fn == "dict" || fn == "set" || fn == "OrderedDict" || fn == "collections.OrderedDict" ||
         fn == "defaultdict" || fn == "collections.defaultdict";
}

bool is_main_guard(const SyntaxTree& tree, TSNode n) {
  if (!is_type(n, "if_statement")) return false;
  std::string condition(tree.text_of(field(n, "condition")));
  return condition.find("__name__") != std::string::npos && condition.find("__main__") != std::string::npos;
}

void collect_imports_within(const SyntaxTree& tree, TSNode n, std::vector<ImportBinding>& out, int depth) {
  if (depth > max_statement_depth()) return;
  if (is_import(n)) {
    auto found = parse_import(tree, n);
    out.insert(out.end(), found.begin(), found.end());
    return;
  }
  for (TSNode block : blocks_of(n))
    ts::for_each_named_child(block, [&](TSNode c) { collect_imports_within(tree, c, out, depth + 1); });
}

}  // namespace

std::unique_ptr<PythonModule> PythonModule::build(std::string path, std::string text) {
  std::unique_ptr<PythonModule> m(new PythonModule());
  m->path_ = std::move(path);
  m->tree_ = SyntaxTree::parse(std::move(text));
  try {
    m->collect_statements(m->tree_->root(), 0);
    for (size_t i = 0; i < m->statements_.size(); ++i) {
      for (const auto& name : m->statements_[i].binds)
        if (!m->alternatives_.count({i, name})) m->binders_[name].push_back(i);
      // A statement that fills a container the module made (`proxy_list = []` ... `if
      // is_cuda(): proxy_list.append(...)`) is one more of its binders, in source order.
      for (const auto& name : m->statements_[i].mutates) {
        auto found = m->binders_.find(name);
        if (found == m->binders_.end() || m->statements_[i].binds.count(name)) continue;
        if (binds_container(*m->tree_, m->statements_[found->second.front()])) found->second.push_back(i);
      }
      m->statement_at_[ts_node_start_byte(m->statements_[i].node)] = i;
    }
    m->collect_functions(m->tree_->root(), "", false, false, 0);
    m->collect_aliases(m->tree_->root(), 0);
  } catch (const Error& e) {
    throw Error::in(m->path_, e.what());
  }
  return m;
}

void PythonModule::add_statement(TSNode node, StatementKind kind) {
  ModuleStatement s;
  s.kind = kind;
  s.node = node;
  s.order = statements_.size();
  s.start_line = first_line(node);
  s.end_line = last_line(node);
  s.indent = static_cast<int>(ts_node_start_point(node).column);
  if (kind == StatementKind::Import) {
    s.binds = bound_names(*tree_, node);
    s.imports = parse_import(*tree_, node);
  } else {
    // Both sets from one walk: bound_names walked assignments and guarded blocks as free_names does.
    StatementNames names = statement_names(*tree_, node);
    s.binds = std::move(names.binds);
    s.reads = std::move(names.reads);
    if (kind == StatementKind::Guarded) collect_imports_within(*tree_, node, s.imports, 0);
  }
  if (kind == StatementKind::Assignment || kind == StatementKind::Guarded || kind == StatementKind::Other)
    collect_mutations(*tree_, node, s.mutates, 0);
  statements_.push_back(std::move(s));
}

namespace {

bool runtime_package(const ImportBinding& b) {
  std::string top = b.module.substr(0, b.module.find('.'));
  return b.level == 0 && !b.star && (top == "triton" || top == "torch");
}

bool in_handler(TSNode n) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p))
    if (is_type(p, "except_clause") || is_type(p, "except_group_clause")) return true;
  return false;
}

}  // namespace

void PythonModule::note_installed(TSNode statement) {
  if (is_import(statement)) {
    if (in_handler(statement)) return;
    for (const auto& b : parse_import(*tree_, statement))
      if (runtime_package(b)) installed_[b.local] = true;
    return;
  }
  if (!is_type(statement, "try_statement") || in_handler(statement)) return;
  TSNode body = field(statement, "body");
  bool imports_runtime = false;
  ts::for_each_named_child(body, [&](TSNode c) {
    if (!is_import(c)) return;
    for (const auto& b : parse_import(*tree_, c))
      if (runtime_package(b)) imports_runtime = true, installed_[b.local] = true;
  });
  if (!imports_runtime) return;
  ts::for_each_named_child(body, [&](TSNode c) {
    TSNode e = is_type(c, "expression_statement") ? ts_node_named_child(c, 0) : TSNode{};
    if (!is_type(e, "assignment") || !is_type(field(e, "left"), "identifier")) return;
    TSNode right = field(e, "right");
    if (is_type(right, "true") || is_type(right, "false")) installed_[text_of(field(e, "left"))] = is_type(right, "true");
  });
}

std::optional<bool> PythonModule::installed_condition(TSNode cond, int depth) const {
  if (ts_node_is_null(cond) || depth > 16) return std::nullopt;
  if (is_type(cond, "parenthesized_expression")) return installed_condition(ts_node_named_child(cond, 0), depth + 1);
  if (is_type(cond, "not_operator")) {
    auto inner = installed_condition(field(cond, "argument"), depth + 1);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (is_type(cond, "identifier")) {
    auto it = installed_.find(text_of(cond));
    return it == installed_.end() ? std::nullopt : std::optional<bool>(it->second);
  }
  if (is_type(cond, "boolean_operator")) {
    auto a = installed_condition(field(cond, "left"), depth + 1), b = installed_condition(field(cond, "right"), depth + 1);
    bool is_and = text_of(ts_node_child(cond, 1)) == "and";
    if (a && b) return is_and ? (*a && *b) : (*a || *b);
    for (auto known : {a, b})  // `False and x`, `True or x`
      if (known && *known != is_and) return *known;
    return std::nullopt;
  }
  // `triton is None` / `tl is not None`: a module (or a flag) is never None where it is installed.
  if (is_type(cond, "comparison_operator") && ts_node_named_child_count(cond) == 2) {
    TSNode a = ts_node_named_child(cond, 0), b = ts_node_named_child(cond, 1);
    if (is_type(a, "none")) std::swap(a, b);
    if (!is_type(a, "identifier") || !is_type(b, "none") || !installed_.count(text_of(a))) return std::nullopt;
    std::string op;  // the operator token between the operands: "is", "is not", "==", "!="
    for (uint32_t i = 0; i < ts_node_child_count(cond); ++i)
      if (!ts_node_is_named(ts_node_child(cond, i))) op += text_of(ts_node_child(cond, i));
    if (op == "is" || op == "==") return false;
    if (op == "is not" || op == "!=") return true;
  }
  return std::nullopt;
}

void PythonModule::collect_statements(TSNode block, int depth) {
  if (depth > max_statement_depth())
    throw Error("statements nested deeper than " + std::to_string(max_statement_depth()) + " (--max-nesting)");
  static const PythonTypeSet decorated{"decorated_definition"}, function{"function_definition"},
      class_definition{"class_definition"}, expression_statement{"expression_statement"};
  ts::for_each_named_child(block, [&](TSNode c) {
    note_installed(c);
    if (decorated.has(c)) {
      TSNode def = field(c, "definition");
      add_statement(c, class_definition.has(def) ? StatementKind::Class : StatementKind::Function);
    } else if (function.has(c)) {
      add_statement(c, StatementKind::Function);
    } else if (class_definition.has(c)) {
      add_statement(c, StatementKind::Class);
    } else if (is_import(c)) {
      add_statement(c, StatementKind::Import);
    } else if (expression_statement.has(c)) {
      TSNode e = ts_node_named_child(c, 0);
      if (is_type(e, "assignment") || is_type(e, "augmented_assignment")) add_statement(c, StatementKind::Assignment);
      else if (!mutated_container(*tree_, c).empty()) add_statement(c, StatementKind::Other);
    } else if (is_compound(c)) {
      if (is_main_guard(*tree_, c)) return;  // script code, never a kernel's dependency
      if (only_simple_statements(c, 0)) {
        add_statement(c, StatementKind::Guarded);
      } else if (is_type(c, "if_statement")) {
        // `if triton >= 3: tanh = libdevice.tanh / else: tanh = tl.math.tanh`: the branches are
        // alternatives, and a standalone that took both would run them in a row, the last one
        // winning. A name the first branches bind keeps those bindings; later branches' are not
        // its binders.
        std::vector<std::pair<size_t, size_t>> ranges;  // each block's statements, in source order
        for (TSNode b : blocks_of(c)) {
          size_t first = statements_.size();
          collect_statements(b, depth + 1);
          ranges.push_back({first, statements_.size()});
        }
        // An environment opt-in off by default: the other branches are the ones that run.
        // So is a test of Triton's absence (`if triton is None:` stubs): kernels run where it is.
        TSNode cond = field(c, "condition");
        bool off = environment_default(*tree_, cond) == std::optional<bool>(false) ||
                   installed_condition(cond) == std::optional<bool>(false);
        if (off && ranges.size() > 1)
          std::rotate(ranges.begin(), ranges.begin() + 1, ranges.end());
        std::set<std::string> bound_before;
        for (const auto& [first, last] : ranges) {
          std::set<std::string> bound_here;
          for (size_t i = first; i < last; ++i)
            for (const auto& name : statements_[i].binds) {
              bound_here.insert(name);
              if (bound_before.count(name)) alternatives_.insert({i, name});
            }
          bound_before.insert(bound_here.begin(), bound_here.end());
        }
      } else if (is_type(c, "try_statement")) {
        // `try: import triton / except ImportError: triton = _Dummy()` with more than simple
        // statements (stub classes): a handler stands in for a package where it is missing, and
        // kernels run where it is installed, so a name the body binds to a module it imports
        // keeps the body's binding, as for the branches of an `if` above. Other names keep every
        // binding in order: a fallback definition (`except AttributeError: def helper(...)`) is
        // what a standalone needs where the body's attribute is gone.
        std::vector<std::pair<size_t, size_t>> handlers;
        std::set<std::string> bound_by_body;
        for (TSNode b : blocks_of(c)) {
          size_t first = statements_.size();
          collect_statements(b, depth + 1);
          TSNode clause = ts_node_parent(b);
          if (is_type(clause, "except_clause") || is_type(clause, "except_group_clause")) {
            handlers.push_back({first, statements_.size()});
          } else if (!is_type(clause, "finally_clause")) {
            for (size_t i = first; i < statements_.size(); ++i)
              for (const auto& b : statements_[i].imports)
                if (!b.star && b.imported.empty()) bound_by_body.insert(b.local);
          }
        }
        for (const auto& [first, last] : handlers)
          for (size_t i = first; i < last; ++i)
            for (const auto& name : statements_[i].binds)
              if (bound_by_body.count(name)) alternatives_.insert({i, name});
      } else {
        for (TSNode b : blocks_of(c)) collect_statements(b, depth + 1);
      }
    }
  });
}

void PythonModule::collect_functions(TSNode n, const std::string& prefix, bool in_class, bool in_function,
                                     int depth) {
  if (depth > max_statement_depth()) return;
  static const PythonTypeSet decorated{"decorated_definition"}, decorator{"decorator"},
      function{"function_definition"}, class_definition{"class_definition"};
  // Statements that hold blocks whose functions are found too.
  static const PythonTypeSet holds_blocks{"block",         "if_statement",   "try_statement", "elif_clause",
                                          "else_clause",   "except_clause",  "finally_clause", "with_statement",
                                          "for_statement", "while_statement"};
  ts::for_each_named_child(n, [&](TSNode c) {
    TSNode def = c;
    std::vector<TSNode> decorators;
    if (decorated.has(c)) {
      def = field(c, "definition");
      ts::for_each_named_child(c, [&](TSNode d) {
        if (decorator.has(d)) decorators.push_back(ts_node_named_child(d, 0));
      });
    }
    if (function.has(def)) {
      FunctionSite site;
      site.node = c;
      site.definition = def;
      site.name = text_of(field(def, "name"));
      site.qualname = prefix + site.name;
      site.decorators = std::move(decorators);
      site.in_class = in_class;
      site.in_function = in_function;
      site.indent = static_cast<int>(ts_node_start_point(c).column);
      if (!in_class && !in_function) {
        auto found = statement_at_.find(ts_node_start_byte(c));
        if (found != statement_at_.end()) site.statement = &statements_[found->second];
      }
      if (auto scope = local_scope_with_imports(*tree_, def)) local_scopes_.push_back(std::move(*scope));
      functions_.push_back(site);
      collect_functions(field(def, "body"), site.qualname + ".<locals>.", false, true, depth + 1);
    } else if (class_definition.has(def)) {
      std::string name = text_of(field(def, "name"));
      collect_functions(field(def, "body"), prefix + name + ".", true, in_function, depth + 1);
    } else if (holds_blocks.has(c)) {
      if (is_main_guard(*tree_, c)) return;
      collect_functions(c, prefix, in_class, in_function, depth + 1);
    }
  });
}

std::vector<const ModuleStatement*> PythonModule::bindings_of(const std::string& name) const {
  std::vector<const ModuleStatement*> out;
  auto it = binders_.find(name);
  if (it == binders_.end()) return out;
  for (size_t i : it->second) out.push_back(&statements_[i]);
  return out;
}

namespace {

// `triton = None`: a module-level placeholder for an optional module that is missing.
bool binds_none(const SyntaxTree& tree, const ModuleStatement& s) {
  if (s.kind != StatementKind::Assignment) return false;
  TSNode assign = ts_node_named_child(s.node, 0);
  return is_type(assign, "assignment") && is_type(field(assign, "left"), "identifier") &&
         is_type(field(assign, "right"), "none");
}

}  // namespace

std::vector<const ImportBinding*> PythonModule::import_alternatives(const std::string& name) const {
  std::vector<const ImportBinding*> found;
  for (const ModuleStatement* s : bindings_of(name)) {
    size_t before = found.size();
    for (const auto& b : s->imports)
      if (!b.star && b.local == name) found.push_back(&b);
    if (found.size() == before && !binds_none(*tree_, *s)) return {};
  }
  return found;
}

bool PythonModule::placeholder_for_import(const ModuleStatement& s) const {
  if (!binds_none(*tree_, s) || s.binds.size() != 1) return false;
  const std::string& name = *s.binds.begin();
  for (const ModuleStatement* later : bindings_of(name))
    if (later->order > s.order)
      for (const auto& b : later->imports)
        if (!b.star && b.local == name) return true;
  return false;
}

const ImportBinding* PythonModule::import_of(const std::string& name) const {
  auto found = import_alternatives(name);
  return found.empty() ? nullptr : found.front();
}

std::vector<std::string> PythonModule::public_names() const {
  for (const auto& s : statements_) {
    if (s.kind != StatementKind::Assignment || !s.binds.count("__all__")) continue;
    TSNode assign = ts_node_named_child(s.node, 0);
    TSNode value = field(assign, "right");
    if (!is_type(value, "list") && !is_type(value, "tuple")) break;
    std::vector<std::string> names;
    ts::for_each_named_child(value, [&](TSNode item) {
      if (!is_type(item, "string")) return;
      std::string literal = text_of(item);
      if (literal.size() >= 2) names.push_back(literal.substr(1, literal.size() - 2));
    });
    return names;
  }
  std::vector<std::string> names;
  for (const auto& [name, _] : binders_)
    if (!name.empty() && name[0] != '_') names.push_back(name);
  return names;
}

std::vector<std::pair<const ImportBinding*, const ModuleStatement*>> PythonModule::star_imports() const {
  std::vector<std::pair<const ImportBinding*, const ModuleStatement*>> out;
  for (const auto& s : statements_)
    for (const auto& b : s.imports)
      if (b.star) out.emplace_back(&b, &s);
  return out;
}

std::optional<std::string> PythonModule::qualified_name(TSNode expression) const {
  TSNode n = expression;
  if (is_type(n, "call")) n = field(n, "function");
  return dotted_name(n, 0);
}

std::optional<std::string> PythonModule::dotted_name(TSNode n, int alias_depth) const {
  std::vector<std::string> chain;
  while (is_type(n, "attribute")) {
    chain.push_back(text_of(field(n, "attribute")));
    n = field(n, "object");
  }
  if (!is_type(n, "identifier")) return std::nullopt;
  std::string base = text_of(n);
  std::optional<std::string> target;
  if (const LocalScope* local = local_scope_binding(base, ts_node_start_byte(n))) {
    if (const ImportBinding* b = local->import_of(base)) target = b->target;
  } else if (const ImportBinding* b = import_of(base)) {
    target = b->target;
  } else if (!aliases_.empty()) {
    target = alias_target(base, alias_depth);
  }
  if (!target) return std::nullopt;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) *target += "." + *it;
  return target;
}

void PythonModule::collect_aliases(TSNode n, int depth) {
  if (depth > 64) return;
  ts::for_each_named_child(n, [&](TSNode c) {
    std::string_view type = ts_node_type(c);
    if (type == "function_definition" || type == "class_definition" || type == "decorated_definition") return;
    if (type == "if_statement" && text_of(field(c, "condition")).find("TYPE_CHECKING") != std::string::npos) {
      // Only what type checkers see: the alternatives (`else:`) are what runs.
      ts::for_each_named_child(c, [&](TSNode part) {
        if (is_type(part, "else_clause") || is_type(part, "elif_clause")) collect_aliases(part, depth + 1);
      });
      return;
    }
    if (type == "assignment") {
      TSNode left = field(c, "left"), right = field(c, "right");
      if (is_type(left, "identifier") && (is_type(right, "identifier") || is_type(right, "attribute")))
        aliases_[text_of(left)].push_back(right);
      return;
    }
    if (type == "expression_statement" || type == "block" || type == "if_statement" || type == "else_clause" ||
        type == "elif_clause" || type == "try_statement" || type == "except_clause" || type == "finally_clause")
      collect_aliases(c, depth + 1);
  });
}

std::optional<std::string> PythonModule::alias_target(const std::string& name, int depth) const {
  auto found = aliases_.find(name);
  if (found == aliases_.end() || depth > 4) return std::nullopt;
  std::optional<std::string> agreed;
  for (TSNode right : found->second) {
    auto t = dotted_name(right, depth + 1);
    if (!t || (agreed && *agreed != *t)) return std::nullopt;
    agreed = t;
  }
  return agreed;
}

const LocalScope* PythonModule::local_scope_binding(const std::string& name, uint32_t byte) const {
  const LocalScope* innermost = nullptr;
  for (const auto& scope : local_scopes_)
    if (scope.contains(byte) && scope.binds(name) && (!innermost || scope.body_start > innermost->body_start))
      innermost = &scope;
  return innermost;
}

std::string PythonModule::dedented_text(TSNode n, int indent) const { return dedent_lines(text_of(n), indent); }

std::string dedent_lines(const std::string& text, int indent) {
  if (indent <= 0) return text;
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  bool first = true;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    size_t skip = 0;
    if (!first) {
      while (skip < static_cast<size_t>(indent) && pos + skip < end && (text[pos + skip] == ' ' || text[pos + skip] == '\t'))
        ++skip;
    }
    out.append(text, pos + skip, end - pos - skip);
    if (end < text.size()) out.push_back('\n');
    pos = end + 1;
    first = false;
  }
  return out;
}

}  // namespace mine
