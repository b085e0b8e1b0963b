#include "core/python/local_hoist.h"

#include <algorithm>
#include <set>

#include "core/error.h"

namespace mine {
namespace {

enum class Where { Module, Hoisted, RunTime };

struct Answer {
  Where where = Where::Module;
  std::string why;  // RunTime: why the name is known only when the enclosing function runs
};

std::string kind_of(const LocalBinding& b) {
  if (b.kind == LocalBinding::Kind::Import) return "import";
  if (b.kind == LocalBinding::Kind::Assignment) return "constant";
  TSNode def = is_type(b.statement, "decorated_definition") ? field(b.statement, "definition") : b.statement;
  return is_type(def, "class_definition") ? "class" : "function";
}

// Decides, name by name, where each read of the nested function comes from. Scopes are the
// enclosing functions, innermost first; a name is looked up from a given scope outward, as
// Python does for a closure.
class Hoister {
 public:
  Hoister(const PythonModule& m, std::vector<LocalScope> scopes) : m_(m), scopes_(std::move(scopes)) {}

  Answer resolve(const std::string& name, size_t from, int depth) {
    for (size_t i = from; i < scopes_.size(); ++i)
      if (scopes_[i].binds(name)) return bound_in(i, name, depth);
    return {Where::Module, ""};
  }

  // The binding statement a hoistable name is taken from (resolve() said Hoisted).
  std::pair<size_t, LocalBinding> binding(const std::string& name, size_t from) const {
    for (size_t i = from; i < scopes_.size(); ++i) {
      if (!scopes_[i].binds(name)) continue;
      const auto& all = scopes_[i].names.at(name);
      for (const auto& b : all)
        if (b.kind == LocalBinding::Kind::Import) return {i, b};
      return {i, all.front()};
    }
    return {scopes_.size(), {}};
  }

  // Free names of a hoisted statement, cached.
  const FreeNames& reads_of(TSNode statement) {
    auto [it, added] = reads_.try_emplace(ts_node_start_byte(statement));
    if (added && !is_type(statement, "import_statement") && !is_type(statement, "import_from_statement"))
      it->second = free_names(m_.tree(), statement);
    return it->second;
  }

 private:
  Answer bound_in(size_t i, const std::string& name, int depth) {
    if (depth > max_nesting()) return {Where::RunTime, "locals depend on each other deeper than --max-nesting"};
    auto key = std::make_pair(i, name);
    auto memo = memo_.find(key);
    if (memo != memo_.end()) return memo->second;
    const LocalScope& s = scopes_[i];
    const std::string where = " of the enclosing function " + s.name;
    if (const ImportBinding* b = s.import_of(name)) {
      // A relative import resolves against the package of the module, which the standalone is not.
      if (b->level > 0) return memo_[key] = {Where::RunTime, "relative import inside the enclosing function " + s.name};
      return memo_[key] = {Where::Hoisted, ""};
    }
    const auto& bindings = s.names.at(name);
    const LocalBinding& first = bindings.front();
    if (first.kind == LocalBinding::Kind::Parameter) return memo_[key] = {Where::RunTime, "parameter" + where};
    bool plain = bindings.size() == 1 && first.direct &&
                 (first.kind == LocalBinding::Kind::Assignment || first.kind == LocalBinding::Kind::Definition);
    if (!plain) return memo_[key] = {Where::RunTime, "local" + where + " bound at run time"};
    memo_[key] = {Where::Hoisted, ""};  // while in progress: mutually recursive helpers are fine
    for (const auto& read : reads_of(first.statement).names) {
      if (read == name) continue;
      Answer a = resolve(read, i, depth + 1);
      if (a.where == Where::RunTime)
        return memo_[key] = {Where::RunTime, "local" + where + " computed from " + read + " (" + a.why + ")"};
    }
    return memo_[key];
  }

  const PythonModule& m_;
  std::vector<LocalScope> scopes_;
  std::map<std::pair<size_t, std::string>, Answer> memo_;
  std::map<uint32_t, FreeNames> reads_;
};

std::vector<LocalScope> enclosing_scopes(const PythonModule& m, TSNode node) {
  std::vector<LocalScope> out;
  for (TSNode n = ts_node_parent(node); !ts_node_is_null(n); n = ts_node_parent(n))
    if (is_type(n, "function_definition")) out.push_back(local_scope(m.tree(), n));
  return out;
}

}  // namespace

LocalHoist hoist_from_enclosing_functions(const PythonModule& module, TSNode node, const FreeNames& reads) {
  LocalHoist out;
  std::vector<LocalScope> scopes = enclosing_scopes(module, node);
  if (scopes.empty()) {
    out.reads = reads;
    return out;
  }
  Hoister hoister(module, std::move(scopes));
  std::map<uint32_t, size_t> statement_at;  // start byte -> index in out.statements
  std::set<std::pair<size_t, std::string>> seen;
  struct Item {
    std::string name;
    size_t from;
    const FreeNames* reads;
  };
  std::vector<Item> work;
  for (const auto& name : reads.names) work.push_back({name, 0, &reads});
  bool kernel_level = true;
  size_t kernel_items = work.size();
  for (size_t w = 0; w < work.size(); ++w) {
    kernel_level = w < kernel_items;
    Item item = work[w];
    if (!seen.insert({item.from, item.name}).second) continue;
    Answer a = hoister.resolve(item.name, item.from, 0);
    if (a.where == Where::Module) {
      out.reads.names.insert(item.name);
      auto attrs = item.reads->attributes.find(item.name);
      if (attrs != item.reads->attributes.end())
        out.reads.attributes[item.name].insert(attrs->second.begin(), attrs->second.end());
      continue;
    }
    if (a.where == Where::RunTime) {
      if (kernel_level) out.run_time[item.name] = a.why;
      continue;
    }
    auto [scope, b] = hoister.binding(item.name, item.from);
    uint32_t at = ts_node_start_byte(b.statement);
    auto found = statement_at.find(at);
    if (found != statement_at.end()) {
      auto& names = out.statements[found->second].names;
      if (std::find(names.begin(), names.end(), item.name) == names.end()) names.push_back(item.name);
      continue;
    }
    statement_at[at] = out.statements.size();
    out.statements.push_back({b.statement, static_cast<int>(ts_node_start_point(b.statement).column), kind_of(b),
                              {item.name}});
    for (const auto& bound : bound_names(module.tree(), b.statement)) out.binds.insert(bound);
    const FreeNames& more = hoister.reads_of(b.statement);
    for (const auto& name : more.names) work.push_back({name, scope, &more});
  }
  std::sort(out.statements.begin(), out.statements.end(), [](const HoistedStatement& x, const HoistedStatement& y) {
    return ts_node_start_byte(x.node) < ts_node_start_byte(y.node);
  });
  for (const auto& name : out.binds) {
    out.reads.names.erase(name);
    out.reads.attributes.erase(name);
  }
  return out;
}

std::string hoisted_text(const PythonModule& module, const LocalHoist& hoist) {
  std::string imports, definitions;
  for (const auto& s : hoist.statements) {
    std::string text = module.dedented_text(s.node, s.indent);
    if (s.kind == "import") {
      imports += text + "\n";
    } else {
      definitions += (definitions.empty() ? "" : "\n\n") + text + "\n";
    }
  }
  if (!imports.empty() && !definitions.empty()) imports += "\n";
  return imports + definitions;
}

}  // namespace mine
