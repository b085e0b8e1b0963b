#include "core/python/dependency_closure.h"

#include <algorithm>
#include <deque>
#include <map>

namespace mine {
namespace {

std::string generic_kind(const ModuleStatement& s) {
  switch (s.kind) {
    case StatementKind::Function: return "function";
    case StatementKind::Class: return "class";
    case StatementKind::Assignment: return "constant";
    case StatementKind::Import:
    case StatementKind::Guarded: return s.imports.empty() ? "constant" : "import";
    case StatementKind::Other: break;
  }
  return "other";
}

std::string top_level_module(const ImportBinding& b) {
  const std::string& dotted = b.module.empty() || b.triton_reexport ? b.target : b.module;
  return dotted.substr(0, dotted.find('.'));
}

}  // namespace

std::string dependency_kind(const PythonModule& module, const ModuleStatement& s, const DependencyLabeler& labeler) {
  std::string kind = generic_kind(s);
  if (labeler && (s.kind == StatementKind::Function || s.kind == StatementKind::Class)) {
    std::string labelled = labeler(module, s);
    if (!labelled.empty()) kind = labelled;
  }
  return kind;
}

std::string render_import(const PythonModule& module, const ModuleStatement& statement,
                          const std::set<std::string>& needed) {
  bool all = std::all_of(statement.imports.begin(), statement.imports.end(),
                         [&](const ImportBinding& b) { return b.star || needed.count(b.local); });
  bool reexport = std::any_of(statement.imports.begin(), statement.imports.end(),
                              [&](const ImportBinding& b) { return b.triton_reexport && needed.count(b.local); });
  if (statement.kind != StatementKind::Import || (all && !reexport))
    return module.dedented_text(statement.node, statement.indent);
  std::string out;
  if (reexport) {  // Triton itself, and the package for whatever else it gives
    std::set<std::string> rest;
    for (const auto& b : statement.imports) {
      if (!needed.count(b.local)) continue;
      if (b.triton_reexport)
        out += (out.empty() ? "" : "\n") + direct_import(b);
      else
        rest.insert(b.local);
    }
    if (!rest.empty()) out += "\n" + render_import(module, statement, rest);
    return out;
  }
  if (is_type(statement.node, "import_statement")) {
    for (const auto& b : statement.imports) {
      if (!needed.count(b.local)) continue;
      out += out.empty() ? "import " : ", ";
      out += b.module;
      if (b.target == b.module && b.local != b.module) out += " as " + b.local;
    }
    return out;
  }
  std::string from = std::string(static_cast<size_t>(statement.imports.front().level), '.') +
                     statement.imports.front().module;
  for (const auto& b : statement.imports) {
    if (!needed.count(b.local)) continue;
    out += out.empty() ? "from " + from + " import " : ", ";
    out += b.imported;
    if (b.local != b.imported) out += " as " + b.local;
  }
  return out;
}

ClosureResult DependencyClosure::compute(const ClosureRoot& root) const {
  ClosureResult result;
  // A guarded block usually picks between imports (`try: import x / except: x = None`) and goes
  // first with them; one that calls or reads the module's own definitions
  // (`try: set_backend(device.name)`) must come after them instead, in source order.
  auto reads_definitions = [&](const ModuleStatement& s) {
    for (const auto& read : s.reads.names)
      for (const ModuleStatement* b : module_.bindings_of(read))
        if (b != &s && b->kind != StatementKind::Import && b->kind != StatementKind::Guarded) return true;
    return false;
  };
  std::set<std::string> visited(root.binds.begin(), root.binds.end());
  std::deque<std::string> work(root.reads.names.begin(), root.reads.names.end());
  std::set<size_t> included;                             // statement order
  std::map<size_t, std::set<std::string>> import_names;  // import statement order -> locals needed

  while (!work.empty()) {
    std::string name = work.front();
    work.pop_front();
    if (!visited.insert(name).second) continue;
    auto binders = module_.bindings_of(name);
    binders.erase(std::remove(binders.begin(), binders.end(), root.statement), binders.end());
    if (binders.empty()) {
      if (root.statement && root.statement->binds.count(name)) continue;
      if (is_python_builtin(name)) continue;
      result.dependencies.push_back({name, "unresolved", "", 0, ""});
      result.self_contained = false;
      continue;
    }
    for (const ModuleStatement* s : binders) {
      std::string kind = dependency_kind(module_, *s, labeler_);
      result.dependencies.push_back({name, kind, module_.path(), s->start_line, ""});
      if (s->kind == StatementKind::Import) {
        import_names[s->order].insert(name);
        continue;
      }
      if (!included.insert(s->order).second) continue;
      for (const auto& read : s->reads.names)
        if (!visited.count(read)) work.push_back(read);
      if (s->kind == StatementKind::Guarded && !reads_definitions(*s)) import_names[s->order];
    }
  }

  // Imports and import fallbacks first, then definitions in source order, then the kernel.
  std::string imports, definitions;
  const auto& statements = module_.statements();
  for (const auto& [order, names] : import_names) {
    const ModuleStatement& s = statements[order];
    imports += render_import(module_, s, names) + "\n";
    for (const auto& b : s.imports) {
      if (b.star || (s.kind == StatementKind::Import && !names.count(b.local))) continue;
      if (b.level > 0) {
        result.self_contained = false;  // points into the repository; resolved across files later
      } else {
        result.external_modules.insert(top_level_module(b));
      }
    }
  }
  for (size_t order : included) {
    const ModuleStatement& s = statements[order];
    if (import_names.count(order)) continue;
    for (const auto& b : s.imports) {  // a guarded block placed among the definitions
      if (b.star) continue;
      if (b.level > 0) result.self_contained = false;
      else result.external_modules.insert(top_level_module(b));
    }
    definitions += "\n\n" + module_.dedented_text(s.node, s.indent) + "\n";
  }
  result.standalone = imports + definitions + (imports.empty() && definitions.empty() ? "" : "\n\n") + root.text + "\n";
  return result;
}

std::string spliced_text(const PythonModule& module, const std::vector<ClosureRoot::Piece>& pieces) {
  std::string out;
  for (const auto& p : pieces) {
    out += p.before;
    out += module.dedented_text(p.node, p.indent);
    out += p.after;
  }
  return out;
}

}  // namespace mine
