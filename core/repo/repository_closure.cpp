#include "core/repo/repository_closure.h"

#include <algorithm>
#include <deque>
#include <string_view>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "include/mine/ts_nodes.h"
#include "core/repo/global_references.h"
#include "core/repo/standard_library.h"

namespace mine {
namespace {

enum class EntityKind {
  Definition,  // module-level statements of a repository file, inlined
  External,    // an import of a module outside the repository, kept
  KeptImport,  // a relative import whose target the repository lacks: kept, not self-contained
  Module,      // a module of the repository used through attributes (`H.fast_exp`)
  Unresolved,
};

struct Entity {
  EntityKind kind = EntityKind::Unresolved;
  const PythonModule* module = nullptr;  // Definition: where defined; External/KeptImport: the importer
  std::string name;                      // Definition: name there; External/KeptImport: local name; Unresolved: as read
  std::vector<const ModuleStatement*> statements;  // Definition: binders; External/KeptImport: the import
  const ImportBinding* binding = nullptr;          // External/KeptImport
  ModuleLocation location;                         // Module
  std::string why;                                 // Unresolved
  mutable std::string signature;                   // External/KeptImport, once asked for (see signature())
};

std::string first_component(const std::string& dotted) { return dotted.substr(0, dotted.find('.')); }

// The same external import written in two files is one import in the standalone.
const std::string& signature(const Entity& e) {
  if (e.signature.empty()) {  // never empty once made; entities live as long as the scan
    const ImportBinding& b = *e.binding;
    std::string where = e.kind == EntityKind::KeptImport ? e.module->path() + "\n" : "";  // relative: per file
    e.signature = where + std::to_string(b.level) + b.module + "\n" + b.imported + "\n" + b.target + "\n" + b.local;
  }
  return e.signature;
}

const ImportBinding* binding_named(const ModuleStatement& s, const std::string& local) {
  const ImportBinding* found = nullptr;
  for (const auto& b : s.imports)
    if (!b.star && b.local == local) found = &b;
  return found;
}

// `pkg/ops/utils.py` -> `pkg_ops_utils`; `pkg/__init__.py` -> `pkg`: the suffix of a renamed name.
std::string module_tag(const std::string& path) {
  std::string p = path;
  if (p.size() >= 3 && p.compare(p.size() - 3, 3, ".py") == 0) p.resize(p.size() - 3);
  const std::string init = "/__init__";
  if (p.size() >= init.size() && p.compare(p.size() - init.size(), init.size(), init) == 0) p.resize(p.size() - init.size());
  std::string out;
  for (char c : p) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

// The `from __future__ import ...` features of a file. Each one changes how the file's code
// compiles (`annotations` leaves annotations unevaluated, so a file may annotate with classes it
// defines later), and the standalone is one file: it takes every feature of the files whose
// definitions it holds, written first as Python requires.
void add_future_features(const PythonModule& m, std::set<std::string>& out) {
  for (const auto& s : m.statements()) {
    if (s.kind != StatementKind::Import || !is_type(s.node, "future_import_statement")) continue;
    ts::for_each_named_child(s.node, [&](TSNode c) {
      if (is_type(c, "dotted_name")) out.insert(std::string(m.tree().text_of(c)));
      if (is_type(c, "aliased_import")) out.insert(std::string(m.tree().text_of(field(c, "name"))));
    });
  }
}

// `importlib.import_module(...)`, `__import__(...)`: a module nobody can follow statically.
bool dynamic_import(const FreeNames& reads) {
  auto importlib = reads.attributes.find("importlib");
  return reads.names.count("__import__") || reads.names.count("import_module") ||
         (importlib != reads.attributes.end() && importlib->second.count("import_module"));
}

constexpr int kReferenceDepth = 400;  // global_references' default nesting limit

struct Edit {
  uint32_t start, end;
  std::string text;
};

}  // namespace

// Resolutions and per-statement work shared by every kernel one worker closes over: they depend
// only on the (immutable, scan-long) modules, never on the kernel. Names in the standalone do,
// and stay with the kernel's ClosureBuilder.
struct ResolutionCache {
  // Looked up by every kernel for every name it reaches: hashed, never iterated. Values stay
  // where they are as the maps grow (callers hold references into them).
  struct PairHash {
    template <typename A, typename B>
    size_t operator()(const std::pair<A, B>& p) const {
      return std::hash<A>()(p.first) * 31 + std::hash<B>()(p.second);
    }
  };
  std::vector<std::unique_ptr<Entity>> entities;
  std::unordered_map<std::string, Entity*> by_key;
  // By (module, name), found by a view of the name: the resolution every name of every statement a
  // kernel reaches asks for, hundreds of thousands on a large repository, copied no name.
  struct ModuleNameHash {
    using is_transparent = void;
    template <typename Name>
    size_t operator()(const std::pair<const PythonModule*, Name>& p) const {
      return std::hash<const PythonModule*>()(p.first) * 31 + std::hash<std::string_view>()(p.second);
    }
  };
  struct ModuleNameEqual {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return a.first == b.first && std::string_view(a.second) == std::string_view(b.second);
    }
  };
  std::unordered_map<std::pair<const PythonModule*, std::string>, Entity*, ModuleNameHash, ModuleNameEqual> resolved;
  std::unordered_map<std::pair<std::string, std::string>, Entity*, PairHash> members;
  std::unordered_map<const PythonModule*, std::set<std::string>> public_names;
  // A statement's global references and the deepest nesting their walk reached (see
  // StatementReferences::fit): walked once for the closures that rewrite the statement and for a
  // kernel that is that statement.
  struct StatementReferences {
    std::vector<GlobalReference> refs;
    int deepest = 0;
    // Whether the walk stands for one under nesting limit `limit` (which gives the same references
    // when the walk never went deeper, and fails otherwise).
    bool fit(int limit) const { return deepest <= limit; }
  };
  std::unordered_map<const ModuleStatement*, StatementReferences> references;
  std::unordered_map<const ModuleStatement*, std::string> plain_text;
  std::unordered_map<const PythonModule*, std::string> module_tags;
  // Each module's `from __future__` features (add_future_features), read once: every kernel's
  // standalone asks for those of each module it inlines from.
  std::unordered_map<const PythonModule*, std::set<std::string>> future_features;
  // What each name a statement reads or binds resolves to (entity or nullptr).
  std::unordered_map<const ModuleStatement*, std::vector<std::pair<const std::string*, Entity*>>> statement_names;
};

std::shared_ptr<ResolutionCache> make_resolution_cache() { return std::make_shared<ResolutionCache>(); }

namespace {

class ClosureBuilder {
 public:
  ClosureBuilder(const Repository& repo, const PythonModule& root_module, const DependencyLabeler& labeler,
                 const ClosureRoot& root, ResolutionCache& cache)
      : repo_(repo), m0_(&root_module), labeler_(labeler), root_(root), c_(cache) {}

  ClosureResult run() {
    uses_.push_back({m0_, nullptr, &root_.reads});
    while (!uses_.empty()) {
      Use use = uses_.front();
      uses_.pop_front();
      process(use);
    }
    name_entities();
    return render();
  }

 private:
  struct Use {
    const PythonModule* module;
    const ModuleStatement* statement;  // nullptr: the kernel itself
    const FreeNames* reads;
  };

  // ---- resolution ---------------------------------------------------------------------------

  Entity* make(const std::string& key, Entity e) {
    auto found = c_.by_key.find(key);
    if (found != c_.by_key.end()) return found->second;
    c_.entities.push_back(std::make_unique<Entity>(std::move(e)));
    return c_.by_key[key] = c_.entities.back().get();
  }

  Entity* unresolved(const std::string& where, const std::string& name, const std::string& why) {
    Entity e;
    e.kind = EntityKind::Unresolved;
    e.name = name;
    e.why = why;
    return make("U\n" + where + "\n" + name, std::move(e));
  }

  Entity* module_entity(const ModuleLocation& loc) {
    Entity e;
    e.kind = EntityKind::Module;
    e.location = loc;
    return make("M\n" + loc.file + "\n" + loc.dir, std::move(e));
  }

  Entity* import_entity(EntityKind kind, const PythonModule* m, const ModuleStatement& s, const ImportBinding& b) {
    Entity e;
    e.kind = kind;
    e.module = m;
    e.name = b.local;
    e.statements = {&s};
    e.binding = &b;
    return make((kind == EntityKind::External ? "E\n" : "K\n") + m->path() + "\n" + b.local, std::move(e));
  }

  const PythonModule* load(const std::string& path) {
    if (path == m0_->path()) return m0_;
    return repo_.module ? repo_.module(path) : nullptr;
  }

  bool never_inline(const ImportBinding& b) const {
    return b.level == 0 && repo_.never_inline.count(first_component(b.module)) > 0;
  }

  // The module `from X import ...` names; not found when X is outside the repository.
  ModuleLocation from_module(const PythonModule* m, const ImportBinding& b) const {
    if (b.level > 0) return repo_.index->relative(b.module, b.level, m->path());
    if (never_inline(b)) return {};
    return repo_.index->absolute(b.module, m->path());
  }

  // Whether `e` is this kernel's own definition. Another kernel's closure that reached this one
  // (an annotation under `if TYPE_CHECKING:` naming it, say) cached it as a dependency; for this
  // kernel it is resolved afresh, as its own name.
  bool is_root(const Entity* e) const {
    if (!e || e->kind != EntityKind::Definition || e->module != m0_ || !root_.statement) return false;
    return std::find(e->statements.begin(), e->statements.end(), root_.statement) != e->statements.end();
  }

  // What `name` means at module level in `m`; nullptr for builtins and the kernel's own names.
  Entity* resolve(const PythonModule* m, const std::string& name) {
    // The kernel's own statement is never its dependency: names it binds resolve without it.
    bool own = m == m0_ && root_.statement && root_.statement->binds.count(name);
    if (!own) {
      auto memo = c_.resolved.find(std::pair<const PythonModule*, std::string_view>(m, name));
      if (memo != c_.resolved.end() && !is_root(memo->second)) return memo->second;
    }
    auto key = std::make_pair(m, name);
    if (!resolving_.insert(key).second) {
      // Where a cycle closes depends on where its resolution began: kept for this kernel only, so
      // that what a kernel's closure says does not depend on the kernels resolved before it.
      ++taint_;
      return unresolved(m->path(), name, "import cycle through " + m->path());
    }
    // Whatever went through the kernel's own names depends on the kernel: not cached.
    size_t taint = taint_;
    Entity* e = resolve_uncached(m, name, own ? root_.statement : nullptr);
    if (own) ++taint_;
    resolving_.erase(key);
    if (taint_ == taint) c_.resolved[key] = e;
    return e;
  }

  Entity* resolve_uncached(const PythonModule* m, const std::string& name, const ModuleStatement* without) {
    auto binders = m->bindings_of(name);
    // `k = triton.jit(k)` reads the bindings before it; `k = triton.heuristics(...)(k)` after it
    // wraps the kernel and is none of its dependencies (taken, it ran before the jit).
    if (without)
      binders.erase(std::remove_if(binders.begin(), binders.end(),
                                   [&](const ModuleStatement* s) { return s->order >= without->order; }),
                    binders.end());
    if (binders.empty()) {
      if (without) return nullptr;
      std::string external_star;
      auto stars = m->star_imports();
      for (auto it = stars.rbegin(); it != stars.rend(); ++it) {
        const ImportBinding& b = *it->first;
        ModuleLocation loc = from_module(m, b);
        if (!loc.found() || loc.file.empty()) {
          if (b.level == 0 && external_star.empty()) external_star = b.module;
          continue;
        }
        const PythonModule* target = load(loc.file);
        if (target && public_names(target).count(name)) return resolve(target, name);
      }
      if (is_python_builtin(name)) return nullptr;
      std::string why = "not defined in " + m->path();
      if (!external_star.empty()) why += "; may come from `from " + external_star + " import *`";
      return unresolved(m->path(), name, why);
    }
    bool all_imports = std::all_of(binders.begin(), binders.end(),
                                   [](const ModuleStatement* s) { return s->kind == StatementKind::Import; });
    if (all_imports) {
      const ModuleStatement* s = binders.back();  // the binding that wins at module level
      const ImportBinding* b = binding_named(*s, name);
      if (b) return resolve_import(m, *s, *b);
    }
    Entity e;
    e.kind = EntityKind::Definition;
    e.module = m;
    e.name = name;
    e.statements = std::move(binders);
    std::string key = "D\n" + m->path() + "\n" + name;
    if (without) key += "\nwithout " + std::to_string(without->order);
    return make(key, std::move(e));
  }

  Entity* resolve_import(const PythonModule* m, const ModuleStatement& s, const ImportBinding& b) {
    // A package's re-export of Triton is Triton: its stand-ins for machines without Triton
    // (`triton = type('triton', ...)`) are no kernel's dependency.
    if (never_inline(b) || (b.triton_reexport && !repository_submodule(m, b)))
      return import_entity(EntityKind::External, m, s, b);
    if (b.imported.empty()) {  // `import a.b.c [as x]`
      if (b.level > 0) return import_entity(EntityKind::KeptImport, m, s, b);
      ModuleLocation top;
      ModuleLocation loc = repo_.index->absolute(b.module, m->path(), &top);
      if (!loc.found()) return import_entity(EntityKind::External, m, s, b);
      return module_entity(b.target == b.module ? loc : top);
    }
    ModuleLocation loc = from_module(m, b);
    if (!loc.found())
      return import_entity(b.level > 0 ? EntityKind::KeptImport : EntityKind::External, m, s, b);
    return member(loc, b.imported);
  }

  // `from pkg.sage import triton as qk` where the repository has pkg/sage/triton.py and the
  // package's __init__ binds no `triton`: Python imports that file, not a re-export of Triton.
  bool repository_submodule(const PythonModule* m, const ImportBinding& b) {
    if (b.imported.empty()) return false;
    ModuleLocation loc = from_module(m, b);
    if (loc.dir.empty() || !repo_.index->submodule(loc.dir, b.imported).found()) return false;
    const PythonModule* package = loc.file.empty() ? nullptr : load(loc.file);
    return !package || package->bindings_of(b.imported).empty();
  }

  // `from package import name` / `package.name`: what the package binds, else its submodule.
  Entity* member(const ModuleLocation& loc, const std::string& name) {
    auto key = std::make_pair(loc.file + "\n" + loc.dir, name);
    auto memo = c_.members.find(key);
    if (memo != c_.members.end() && !is_root(memo->second)) return memo->second;
    size_t taint = taint_;
    Entity* e = member_uncached(loc, name);
    if (taint_ == taint) c_.members[key] = e;
    return e;
  }

  Entity* member_uncached(const ModuleLocation& loc, const std::string& name) {
    Entity* found = nullptr;
    if (!loc.file.empty()) {
      const PythonModule* target = load(loc.file);
      if (!target) return unresolved(loc.file, name, "cannot read or analyse " + loc.file);
      found = resolve(target, name);
      if (found && found->kind != EntityKind::Unresolved) return found;
    }
    if (!loc.dir.empty()) {
      ModuleLocation sub = repo_.index->submodule(loc.dir, name);
      if (sub.found()) return module_entity(sub);
    }
    if (found) return found;
    if (loc.file.empty()) return unresolved(loc.dir, name, "no module " + name + " in namespace package " + loc.dir);
    return nullptr;  // a builtin re-exported by name: nothing to inline
  }

  // Names `from m import *` brings in, following the module's own star imports.
  const std::set<std::string>& public_names(const PythonModule* m) {
    auto found = c_.public_names.find(m);
    if (found != c_.public_names.end()) return found->second;
    std::set<std::string>& names = c_.public_names[m];  // empty while computing: star cycles end here
    std::vector<std::string> direct = m->public_names();
    names.insert(direct.begin(), direct.end());
    if (m->bindings_of("__all__").empty()) {
      for (const auto& [b, s] : m->star_imports()) {
        ModuleLocation loc = from_module(m, *b);
        if (loc.file.empty()) continue;
        if (const PythonModule* target = load(loc.file)) {
          const std::set<std::string>& more = public_names(target);
          names.insert(more.begin(), more.end());
        }
      }
    }
    return names;
  }

  // ---- discovery ----------------------------------------------------------------------------

  void process(const Use& use) {
    // `k = triton.jit(k)`: the kernel statement reads the binding it replaces.
    bool rebinds = !use.statement && use.module == m0_ && root_.statement &&
                   root_.statement->kind == StatementKind::Assignment;
    for (const auto& name : use.reads->names) {
      if (use.module == m0_ && root_.binds.count(name) && !rebinds) continue;
      Entity* e = resolve(use.module, name);
      if (!e) continue;
      if (e->kind == EntityKind::Module) {
        through_module(use, name, e);
      } else {
        need(e, use.module);
      }
    }
  }

  // `H.fast_exp`, `pkg.sub.f`: needs the member each attribute chain ends at.
  void through_module(const Use& use, const std::string& name, Entity* module) {
    for (const GlobalReference& ref : references(use.module, use.statement)) {
      if (ref.name != name) continue;
      if (ref.chain.empty()) {
        if (!ref.imported && !ref.dotted_import)
          need(unresolved(use.module->path(), name,
                          name + " is a module of the repository used as a value, not through its attributes"),
               use.module);
        continue;
      }
      Entity* at = module;
      std::string dotted = name;
      for (const auto& [attr, end] : ref.chain) {
        dotted += "." + attr;
        Entity* next = member(at->location, attr);
        if (!next) break;
        if (next->kind == EntityKind::Module) {
          at = next;
          if (&attr == &ref.chain.back().first)
            need(unresolved(use.module->path(), dotted, dotted + " is a module of the repository used as a value"),
                 use.module);
          continue;
        }
        if (next->kind == EntityKind::Unresolved) next = unresolved(use.module->path(), dotted, next->why);
        need(next, use.module);
        break;
      }
    }
  }

  const std::vector<GlobalReference>& references(const PythonModule* m, const ModuleStatement* s) {
    if (!s) {
      if (!root_references_) {
        if (root_in_module()) {
          // The same references a parse of the kernel's text finds, one level shallower (that
          // parse starts at a module node), at their places in the module's text. A kernel that
          // is a whole module statement shares them with the closures that render it.
          if (root_.statement && ts_node_eq(root_.statement->node, root_.node)) {
            root_references_ = &statement_references(m0_, root_.statement, kReferenceDepth - 1);
          } else {
            root_walk_ = global_references(m0_->tree(), root_.node, kReferenceDepth - 1);
            root_references_ = &*root_walk_;
          }
        } else {
          root_tree_ = SyntaxTree::parse(root_.text);
          root_walk_ = global_references(*root_tree_, root_tree_->root());
          root_references_ = &*root_walk_;
        }
      }
      return **root_references_;
    }
    return statement_references(m, s, max_nesting());
  }

  // A statement's references as a walk under nesting limit `limit` finds them (or fails).
  const std::vector<GlobalReference>& statement_references(const PythonModule* m, const ModuleStatement* s, int limit) {
    auto found = c_.references.find(s);
    if (found != c_.references.end() && found->second.fit(limit)) return found->second.refs;
    // Not walked yet, or walked deeper than `limit` allows: then this walk fails, as it always did.
    ResolutionCache::StatementReferences walked;
    walked.refs = global_references(m->tree(), s->node, limit, &walked.deepest);
    auto& slot = c_.references[s];
    slot = std::move(walked);
    return slot.refs;
  }

  void need(Entity* e, const PythonModule* from) {
    // Reached back through another file (a cached resolution): the kernel itself is no dependency.
    if (e->kind == EntityKind::Definition && e->module == m0_ && root_.statement &&
        std::count(e->statements.begin(), e->statements.end(), root_.statement)) {
      e = resolve(m0_, e->name);
      if (!e) return;
    }
    if (e->kind == EntityKind::Definition && e->module != from) module_edges_[from].push_back(e->module);
    if (!needed_set_.insert(e).second) return;
    needed_.push_back(e);
    switch (e->kind) {
      case EntityKind::Definition:
        for (const ModuleStatement* s : e->statements) {
          deps_.push_back({e->name, dependency_kind(*e->module, *s, labeler_), e->module->path(), s->start_line, ""});
          if (s->kind == StatementKind::Import) {
            // `if ...: from .fast import f / else: def f()`: the import's target joins the standalone.
            const ImportBinding* b = binding_named(*s, e->name);
            if (!b) continue;
            Entity* target = resolve_import(e->module, *s, *b);
            if (target && target->kind != EntityKind::Module) {
              aliases_[s].emplace_back(e, target);
              need(target, e->module);
            }
            continue;
          }
          if (s->kind == StatementKind::Guarded) need_guarded_target(e, s);
          // A function that imports dynamically when called still has every name resolved; a
          // module-level name bound to a dynamically imported module does not.
          bool binds_value = s->kind == StatementKind::Assignment || s->kind == StatementKind::Guarded;
          if (binds_value && dynamic_import(s->reads))
            deps_.push_back({e->name, "unresolved", "", 0,
                             "bound by a dynamic import in " + e->module->path() + " line " + std::to_string(s->start_line)});
          uses_.push_back({e->module, s, &s->reads});
        }
        break;
      case EntityKind::External:
      case EntityKind::KeptImport:
        if (e->kind == EntityKind::External && !external_signatures_.insert(signature(*e)).second) break;
        deps_.push_back({e->name, "import", e->module->path(), e->statements.front()->start_line,
                         e->kind == EntityKind::KeptImport ? "relative import of a module the repository lacks" : ""});
        break;
      case EntityKind::Unresolved:
        deps_.push_back({e->name, "unresolved", "", 0, e->why});
        break;
      case EntityKind::Module:
        break;
    }
  }

  // `try: from pkg.fb.utils import f / except ImportError: from pkg.utils import f`: the first of
  // the block's imports of `f` that the repository's sources define joins the standalone, as an
  // unguarded import would; the block then binds `f` to it where it imported it (guarded_text), so
  // a branch importing a third-party module still wins wherever that module is installed.
  void need_guarded_target(Entity* e, const ModuleStatement* s) {
    for (const auto& b : s->imports) {
      if (b.star || b.local != e->name || !into_repo(e->module, b)) continue;
      Entity* target = resolve_import(e->module, *s, b);
      if (!target || target->kind != EntityKind::Definition) continue;
      guarded_targets_[{s, e->name}] = target;
      need(target, e->module);
      return;
    }
  }

  // ---- naming -------------------------------------------------------------------------------

  void name_entities() {
    // Views of texts that outlive the naming: the kernel's names, entities' names and signatures,
    // the names given (each entity is named once), `firsts` below. Hashed: only ever asked for.
    std::unordered_set<std::string_view> taken(root_.binds.begin(), root_.binds.end());
    std::deque<std::string> firsts;
    auto claim = [&](Entity* e, const std::string& wanted, const std::string& suffix) {
      std::string name = wanted;
      if (taken.count(name) && !suffix.empty()) name = wanted + "__" + suffix;
      for (int k = 2; taken.count(name); ++k) name = wanted + (suffix.empty() ? "_" : "__" + suffix + "_") + std::to_string(k);
      std::string& given = emitted_[e];
      given = std::move(name);
      taken.insert(given);
    };
    // The kernel's own file keeps its names, so its text changes least; then the kept imports;
    // names left unresolved stay as written; inlined definitions from other files come last.
    for (Entity* e : needed_)
      if (e->kind == EntityKind::Definition && e->module == m0_) {
        if (root_.binds.count(e->name)) {
          emitted_[e] = e->name;  // the binding the kernel statement replaces
        } else {
          claim(e, e->name, "");
        }
      }
    // `try: from .ops import k / except ImportError: from ops import k`: the definition the
    // body's import brings in keeps the name the guarded statement binds (its handler, which only
    // runs where the package did not import, rebinds it as written), as a plain import's would.
    std::set<std::string> shared_names;
    for (Entity* e : needed_) {
      if (e->kind != EntityKind::Definition || e->module == m0_ || shared_names.count(e->name)) continue;
      auto binders = m0_->bindings_of(e->name);
      const ImportBinding* b = m0_->import_of(e->name);
      if (binders.size() == 1 && binders.front()->kind == StatementKind::Guarded && !root_.binds.count(e->name) &&
          b && b->imported == e->name) {
        emitted_[e] = e->name;
        taken.insert(e->name);
        shared_names.insert(e->name);
      }
    }
    std::unordered_map<std::string_view, std::string> by_signature;
    // The kernel's own file keeps the names of its imports too: one it rebinds later
    // (`from triton.language import topk as tl_topk`, then `if ...: from ... import sort_impl as
    // tl_topk`) is the same variable in the file's order, and what reads it between (`sig =
    // inspect.signature(tl_topk)`) reads the import. Renamed, the import would be left unread.
    for (Entity* e : needed_)
      if ((e->kind == EntityKind::External || e->kind == EntityKind::KeptImport) && e->module == m0_ &&
          !by_signature.count(signature(*e))) {
        by_signature[signature(*e)] = e->name;
        emitted_[e] = e->name;
        taken.insert(e->name);
      }
    for (Entity* e : needed_)
      if (e->kind == EntityKind::External || e->kind == EntityKind::KeptImport) {
        auto same = by_signature.find(signature(*e));
        if (same != by_signature.end()) {
          emitted_[e] = same->second;
          continue;
        }
        by_signature[signature(*e)] = e->name;
        bool renamable = !(e->binding->imported.empty() && e->binding->target != e->binding->module);
        if (!renamable) {
          emitted_[e] = e->name;
          taken.insert(e->name);
        } else {
          claim(e, e->name, "");
          by_signature[signature(*e)] = emitted(e);
        }
      }
    for (Entity* e : needed_)
      if (e->kind == EntityKind::Unresolved) taken.insert(firsts.emplace_back(first_component(e->name)));
    for (Entity* e : needed_)
      if (e->kind == EntityKind::Definition && e->module != m0_ && !shared_names.count(emitted(e))) {
        // A builtin's name would shadow the builtin for the kernel's own file.
        if (is_python_builtin(e->name)) taken.insert(e->name);
        auto tag = c_.module_tags.find(e->module);
        if (tag == c_.module_tags.end()) tag = c_.module_tags.emplace(e->module, module_tag(e->module->path())).first;
        claim(e, e->name, tag->second);
        if (emitted(e) != e->name)
          for (auto& d : deps_)
            if (d.path == e->module->path() && d.name == e->name && d.kind != "unresolved") d.note = "renamed to " + emitted(e);
      }
  }

  // ---- rendering ----------------------------------------------------------------------------

  Entity* lookup(const PythonModule* m, const std::string& name) {
    if (m == m0_ && root_.binds.count(name)) return nullptr;
    return resolve(m, name);
  }

  bool differs(Entity* e, const std::string& name) const {
    return e && (e->kind == EntityKind::Module || (!emitted(e).empty() && emitted(e) != name));
  }

  bool needs_rewrite(const PythonModule* m, const FreeNames& reads, const std::set<std::string>& binds) {
    for (const auto& n : reads.names)
      if (differs(lookup(m, n), n)) return true;
    for (const auto& n : binds)
      if (differs(lookup(m, n), n)) return true;
    return false;
  }

  // The same for a module statement, from the resolutions of its names kept across kernels.
  bool needs_rewrite(const PythonModule* m, const ModuleStatement& s) {
    auto found = c_.statement_names.find(&s);
    if (found == c_.statement_names.end()) {
      size_t taint = taint_;
      std::vector<std::pair<const std::string*, Entity*>> names;
      for (const auto& n : s.reads.names) names.emplace_back(&n, lookup(m, n));
      for (const auto& n : s.binds) names.emplace_back(&n, lookup(m, n));
      if (taint_ != taint) return needs_rewrite(m, s.reads, s.binds);
      found = c_.statement_names.emplace(&s, std::move(names)).first;
    }
    for (const auto& [name, e] : found->second) {
      if (m == m0_ && root_.binds.count(*name)) continue;
      if (differs(e, *name)) return true;
    }
    return false;
  }

  std::vector<Edit> edits_for(const PythonModule* m, const std::vector<GlobalReference>& refs, const std::string& text) {
    std::vector<Edit> edits;
    for (const GlobalReference& ref : refs) {
      Entity* e = lookup(m, ref.name);
      if (!e) continue;
      if (e->kind == EntityKind::Module) {
        Entity* at = e;
        for (const auto& [attr, end] : ref.chain) {
          Entity* next = member(at->location, attr);
          if (!next || next->kind == EntityKind::Unresolved) break;
          if (next->kind == EntityKind::Module) {
            at = next;
            continue;
          }
          if (!emitted(next).empty()) edits.push_back({ref.start, end, emitted(next)});
          break;
        }
        continue;
      }
      const std::string& name = emitted(e);
      if (name.empty() || name == ref.name || ref.dotted_import) continue;
      std::string replacement = name;
      if (ref.imported) replacement = text.substr(ref.start, ref.end - ref.start) + " as " + name;
      edits.push_back({ref.start, ref.end, replacement});
    }
    return edits;
  }

  static std::string apply(const std::string& text, uint32_t base, uint32_t end, const std::vector<Edit>& edits) {
    std::string out;
    uint32_t at = base;
    for (const Edit& e : edits) {
      if (e.start < at || e.end > end) continue;  // overlapping or outside: leave as written
      out.append(text, at, e.start - at);
      out += e.text;
      at = e.end;
    }
    out.append(text, at, end - at);
    return out;
  }

  const std::string& emitted(const Entity* e) const {
    static const std::string none;
    auto found = emitted_.find(e);
    return found == emitted_.end() ? none : found->second;
  }

  bool into_repo(const PythonModule* m, const ImportBinding& b) const {
    return b.level > 0 || (!never_inline(b) && repo_.index->absolute(b.module, m->path()).found());
  }

  // A guarded block's text, less the imports of the repository's own sources that bind only names
  // nothing in the standalone reads: `try: import triton / from ..tuning import autotune / except: triton =
  // None` would fail on the module the standalone lacks and leave a kernel that never uses
  // `autotune` with `triton = None`. Each such import becomes `pass`; `dropped` gets their names.
  // An import of a name whose definition joined the standalone (need_guarded_target) becomes
  // `name = <its definition>`, and `binds_inlined` is set: the block then follows the definitions.
  // Valid until the next call.
  const std::string& guarded_text(const PythonModule* m, const ModuleStatement& s, std::set<std::string>& dropped,
                                  bool& binds_inlined) {
    // Most guarded blocks import only third-party modules: nothing to drop, no walks.
    if (std::none_of(s.imports.begin(), s.imports.end(), [&](const ImportBinding& b) { return !b.star && into_repo(m, b); }))
      return statement_text(m, s);
    // Names the block itself uses besides importing them (`import x.extra as extra` then
    // `registry.append(extra)`): such an import stays.
    std::set<std::string> used_here;
    {
      std::vector<TSNode> work{s.node};
      while (!work.empty()) {
        TSNode n = work.back();
        work.pop_back();
        if (is_type(n, "import_statement") || is_type(n, "import_from_statement")) continue;
        if (is_type(n, "identifier")) used_here.insert(m->text_of(n));
        if (is_type(n, "assignment")) {  // `x = None` in the fallback binds x; it does not use it
          TSNode left = field(n, "left"), right = field(n, "right");
          bool binds_only = is_type(left, "identifier") || is_type(left, "pattern_list") || is_type(left, "tuple_pattern");
          if (!binds_only) work.push_back(left);
          if (!ts_node_is_null(right)) work.push_back(right);
          continue;
        }
        ts::for_each_named_child(n, [&](TSNode c) { work.push_back(c); });
      }
    }
    std::vector<Edit> drops;
    std::vector<TSNode> work{s.node};
    while (!work.empty()) {
      TSNode n = work.back();
      work.pop_back();
      if (is_type(n, "import_statement") || is_type(n, "import_from_statement")) {
        auto bindings = parse_import(m->tree(), n);
        bool replaceable = !bindings.empty();
        std::string assignments;
        for (const auto& b : bindings) {
          if (!replaceable || b.star || !into_repo(m, b) || used_here.count(b.local)) {
            replaceable = false;
            continue;
          }
          // Only an import the repository's sources satisfy: one of a compiled extension
          // (`from pkg import c_ops`) fails there too, and its fallback is what runs.
          Entity* target = resolve_import(m, s, b);
          if (!target || (target->kind != EntityKind::Definition && target->kind != EntityKind::Module)) {
            replaceable = false;
            continue;
          }
          Entity* e = lookup(m, b.local);
          auto inlined = guarded_targets_.find({&s, b.local});
          if (e && inlined != guarded_targets_.end() && target->kind == EntityKind::Definition) {
            assignments += (assignments.empty() ? "" : "; ") + emitted(e) + " = " + emitted(inlined->second);
          } else if (e && needed_set_.count(e)) {
            replaceable = false;
          }
        }
        if (!replaceable) continue;
        if (!assignments.empty()) binds_inlined = true;
        drops.push_back({ts_node_start_byte(n), ts_node_end_byte(n), assignments.empty() ? "pass" : assignments});
        for (const auto& b : bindings) dropped.insert(b.local);
        continue;
      }
      if (is_type(n, "function_definition") || is_type(n, "class_definition")) continue;  // their own scopes
      ts::for_each_named_child(n, [&](TSNode c) { work.push_back(c); });
    }
    if (drops.empty()) return statement_text(m, s);
    return rewritten_text(m, s, drops);
  }

  // Valid until the next call.
  const std::string& statement_text(const PythonModule* m, const ModuleStatement& s) {
    if (!needs_rewrite(m, s)) {
      auto found = c_.plain_text.find(&s);
      if (found != c_.plain_text.end()) return found->second;
      return c_.plain_text[&s] = m->dedented_text(s.node, s.indent);
    }
    return rewritten_text(m, s, {});
  }

  // A statement with its references renamed and `replaced` spans (sorted, apart) written over;
  // a rename inside a replaced span goes with it. Valid until the next call.
  const std::string& rewritten_text(const PythonModule* m, const ModuleStatement& s, const std::vector<Edit>& replaced) {
    const std::string& text = m->tree().text();
    std::vector<Edit> edits = edits_for(m, references(m, &s), text);
    if (!replaced.empty()) {
      edits.erase(std::remove_if(edits.begin(), edits.end(), [&](const Edit& e) {
                    return std::any_of(replaced.begin(), replaced.end(),
                                       [&](const Edit& d) { return e.start < d.end && d.start < e.end; });
                  }), edits.end());
      edits.insert(edits.end(), replaced.begin(), replaced.end());
      std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.start < b.start; });
    }
    rewritten_ = dedent_lines(apply(text, ts_node_start_byte(s.node), ts_node_end_byte(s.node), edits), s.indent);
    return rewritten_;
  }

  std::string root_text() {
    if (!needs_rewrite(m0_, root_.reads, {})) return root_.text;
    const auto& refs = references(m0_, nullptr);
    if (root_in_module()) {  // edited in the module's tree, piece by piece
      const std::string& text = m0_->tree().text();
      auto edits = edits_for(m0_, refs, text);
      std::string out;
      for (const auto& p : root_.pieces) {
        out += p.before;
        out += dedent_lines(apply(text, ts_node_start_byte(p.node), ts_node_end_byte(p.node), edits), p.indent);
        out += p.after;
      }
      return out;
    }
    auto edits = edits_for(m0_, refs, root_tree_->text());
    return apply(root_tree_->text(), 0, static_cast<uint32_t>(root_tree_->text().size()), edits);
  }

  // Whether the kernel's text is cut from its module's tree (then no parse of it is needed).
  bool root_in_module() {
    if (!root_spliced_) root_spliced_ = !root_.pieces.empty() && spliced_text(*m0_, root_.pieces) == root_.text;
    return *root_spliced_;
  }

  std::string render_external(const ModuleStatement& s, const std::vector<Entity*>& group, const PythonModule* m) {
    bool renamed = std::any_of(group.begin(), group.end(), [&](Entity* e) { return emitted(e) != e->name; });
    if (!renamed) {
      std::set<std::string> names;
      for (Entity* e : group) names.insert(e->name);
      return render_import(*m, s, names);
    }
    std::string out;
    for (Entity* e : group) {
      const ImportBinding& b = *e->binding;
      if (!out.empty()) out += "\n";
      if (b.triton_reexport) {
        ImportBinding direct = b;
        direct.local = emitted(e);
        out += direct_import(direct);
      } else if (b.imported.empty()) {
        out += "import " + b.module;
        if (b.target == b.module && emitted(e) != b.module) out += " as " + emitted(e);
      } else {
        out += "from " + std::string(static_cast<size_t>(b.level), '.') + b.module + " import " + b.imported;
        if (emitted(e) != b.imported) out += " as " + emitted(e);
      }
    }
    return out;
  }

  std::vector<const PythonModule*> module_order() {
    std::vector<const PythonModule*> order;
    std::set<const PythonModule*> seen;
    // Depth first, dependencies first: the order Python finishes executing imported modules in.
    std::vector<std::pair<const PythonModule*, size_t>> stack{{m0_, 0}};
    seen.insert(m0_);
    while (!stack.empty()) {
      auto& [m, next] = stack.back();
      const auto& edges = module_edges_[m];
      if (next < edges.size()) {
        const PythonModule* to = edges[next++];
        if (seen.insert(to).second) stack.push_back({to, 0});
        continue;
      }
      order.push_back(m);
      stack.pop_back();
    }
    return order;
  }

  ClosureResult render() {
    ClosureResult result;
    std::vector<const PythonModule*> modules = module_order();
    std::unordered_map<const PythonModule*, size_t> rank;
    for (size_t i = 0; i < modules.size(); ++i) rank[modules[i]] = i;
    // Modules that only contribute imports go last, in the order they were reached.
    for (Entity* e : needed_)
      if (e->module && !rank.count(e->module)) rank.emplace(e->module, rank.size());

    using Position = std::pair<size_t, size_t>;  // (module rank, statement order)
    auto position = [&](const PythonModule* m, const ModuleStatement* s) { return Position{rank.at(m), s->order}; };
    std::unordered_set<std::string_view> rendered_signatures;  // views of the entities' signatures
    std::map<Position, std::pair<const PythonModule*, std::vector<Entity*>>> imports;
    std::map<Position, std::pair<const PythonModule*, const ModuleStatement*>> definitions;
    // The same import reached from several modules is written once, at the earliest place any
    // of them has it: a guarded block placed among the imports (`if hasattr(torch.amp, ...)`)
    // may read it, and must not come before it.
    std::unordered_map<std::string_view, Position> earliest;
    for (Entity* e : needed_) {
      if (e->kind != EntityKind::External && e->kind != EntityKind::KeptImport) continue;
      Position p = position(e->module, e->statements.front());
      auto [it, fresh] = earliest.try_emplace(signature(*e), p);
      if (!fresh && p < it->second) it->second = p;
    }
    for (Entity* e : needed_) {
      switch (e->kind) {
        case EntityKind::External:
        case EntityKind::KeptImport: {
          const ModuleStatement* s = e->statements.front();
          const std::string& sig = signature(*e);
          if (earliest.at(sig) != position(e->module, s) || !rendered_signatures.insert(sig).second) break;
          auto& slot = imports[position(e->module, s)];
          slot.first = e->module;
          slot.second.push_back(e);
          if (e->kind == EntityKind::KeptImport) {
            result.self_contained = false;
          } else if (e->binding->triton_reexport) {
            result.external_modules.insert("triton");
          } else if (!is_standard_library(first_component(e->binding->module))) {
            result.external_modules.insert(first_component(e->binding->module));
          }
          break;
        }
        case EntityKind::Definition:
          for (const ModuleStatement* s : e->statements)
            definitions[position(e->module, s)] = {e->module, s};
          break;
        case EntityKind::Unresolved:
          result.self_contained = false;
          break;
        case EntityKind::Module:
          break;
      }
    }

    std::string import_text, after_text;
    std::set<std::string> late(root_.binds.begin(), root_.binds.end());  // names defined at or after the kernel
    // The definitions' texts, in order, as views of texts that outlive the rendering (statements'
    // cached texts, or `kept` here): the standalone is assembled once at its final size, instead of
    // growing a copy of the whole runtime and copying it again.
    std::vector<std::string_view> definitions_text;
    std::deque<std::string> kept;
    auto add_definition = [&](const std::string& text) {
      definitions_text.push_back("\n\n");
      definitions_text.push_back(&text == &rewritten_ ? std::string_view(kept.emplace_back(text)) : std::string_view(text));
      definitions_text.push_back("\n");
    };
    // Guarded import blocks (`try: import x / except: x = None`) sit with the imports, as written.
    std::map<Position, std::string> top;
    for (auto& [pos, slot] : imports) {
      const ModuleStatement& s = *slot.second.front()->statements.front();
      top[pos] = render_external(s, slot.second, slot.first);
    }
    for (auto& [pos, slot] : definitions) {
      // Not a structured binding: clang before 16 (the fuzz build) cannot capture one in a lambda.
      auto m = slot.first;
      auto s = slot.second;
      if (s->kind == StatementKind::Guarded) {
        // Hoisted with the imports unless its condition needs an inlined definition
        // (`if compare_version("triton", ...): from ... import rsqrt`): then it keeps its place.
        bool reads_definition = std::any_of(s->reads.names.begin(), s->reads.names.end(), [&](const std::string& n) {
          Entity* e = lookup(m, n);
          return e && e->kind == EntityKind::Definition && needed_set_.count(e);
        });
        std::set<std::string> dropped;
        bool binds_inlined = false;
        const std::string& text = guarded_text(m, *s, dropped, binds_inlined);
        if (reads_definition || binds_inlined) {
          add_definition(text);
        } else {
          top[pos] = text;
        }
        for (const auto& b : s->imports) {
          if (b.star || dropped.count(b.local)) continue;
          if (into_repo(m, b)) {
            result.self_contained = false;
            deps_.push_back({b.local, "unresolved", "", 0,
                             "guarded import of " + std::string(static_cast<size_t>(b.level), '.') + b.module +
                                 " from the repository in " + m->path()});
          } else if (!is_standard_library(first_component(b.module))) {
            result.external_modules.insert(first_component(b.module));
          }
        }
        continue;
      }
      if (s->kind == StatementKind::Import) {
        // One branch of a name that is also defined here: kept imports render with the imports;
        // an inlined target is bound to the name the branch gave it.
        // (`from ..constants import A, B` binds each name the standalone needs: one line each.)
        auto alias = aliases_.find(s);
        if (alias == aliases_.end()) continue;
        auto position = [&](const Entity* e) {
          for (size_t i = 0; i < s->imports.size(); ++i)
            if (s->imports[i].local == e->name) return i;
          return s->imports.size();
        };
        std::stable_sort(alias->second.begin(), alias->second.end(),
                         [&](const auto& a, const auto& b) { return position(a.first) < position(b.first); });
        for (auto [group, target] : alias->second)
          if (target->kind == EntityKind::Definition && emitted(group) != emitted(target))
            definitions_text.push_back(kept.emplace_back("\n\n" + emitted(group) + " = " + emitted(target) + "\n"));
        continue;
      }
      // A definition of the kernel's own file that follows the kernel there and reads it
      // (`class CrossAttender(AttentionLayers)`, which a function of the kernel instantiates)
      // follows it here too, as does one reading such a definition: before it, its class
      // statement would name a class not yet defined.
      if (m == m0_ && root_.statement && s->order > root_.statement->order &&
          std::any_of(s->reads.names.begin(), s->reads.names.end(), [&](const std::string& n) { return late.count(n); })) {
        late.insert(s->binds.begin(), s->binds.end());
        after_text += "\n\n" + statement_text(m, *s) + "\n";
        continue;
      }
      // `triton = None` before `try: import triton`: the import block is hoisted, and so is its
      // placeholder, which must stay before it (after it, it would undo the import).
      if (m->placeholder_for_import(*s)) {
        top[pos] = statement_text(m, *s);
        continue;
      }
      add_definition(statement_text(m, *s));
    }
    for (auto& [pos, text] : top) import_text += text + "\n";

    std::set<std::string> future;
    std::unordered_set<const PythonModule*> inlined_from{m0_};
    for (const auto& [pos, slot] : definitions) inlined_from.insert(slot.first);
    for (const PythonModule* m : inlined_from) {
      auto [features, fresh] = c_.future_features.try_emplace(m);
      if (fresh) add_future_features(*m, features->second);
      future.insert(features->second.begin(), features->second.end());
    }
    std::string future_text;
    for (const auto& f : future) future_text += (future_text.empty() ? "from __future__ import " : ", ") + f;
    if (!future_text.empty()) future_text += "\n";

    std::string kernel = root_text();
    // Built in place: standalones reaching a whole runtime are tens of KB, one per kernel.
    size_t definitions_size = 0;
    for (std::string_view piece : definitions_text) definitions_size += piece.size();
    std::string& out = result.standalone;
    out.reserve(future_text.size() + import_text.size() + definitions_size + kernel.size() + after_text.size() + 3);
    out += future_text;
    out += import_text;
    for (std::string_view piece : definitions_text) out += piece;
    if (!import_text.empty() || definitions_size > 0) out += "\n\n";
    out += kernel;
    out += "\n";
    out += after_text;
    result.dependencies = std::move(deps_);
    for (const auto& d : result.dependencies)
      if (d.kind == "unresolved") result.self_contained = false;
    return result;
  }

  const Repository& repo_;
  const PythonModule* m0_;
  const DependencyLabeler& labeler_;
  const ClosureRoot& root_;

  ResolutionCache& c_;
  std::set<std::pair<const PythonModule*, std::string>> resolving_;
  size_t taint_ = 0;  // counts resolutions that went through the kernel's own names or a cycle
  std::unique_ptr<SyntaxTree> root_tree_;
  std::optional<const std::vector<GlobalReference>*> root_references_;
  std::optional<std::vector<GlobalReference>> root_walk_;  // the kernel's own walk, when not shared
  std::optional<bool> root_spliced_;
  std::unordered_map<const Entity*, std::string> emitted_;
  std::string rewritten_;

  std::deque<Use> uses_;
  std::vector<Entity*> needed_;
  std::unordered_set<Entity*> needed_set_;
  std::vector<Dependency> deps_;
  std::unordered_set<std::string_view> external_signatures_;  // views of the entities' signatures
  std::unordered_map<const PythonModule*, std::vector<const PythonModule*>> module_edges_;
  std::map<const ModuleStatement*, std::vector<std::pair<Entity*, Entity*>>> aliases_;
  std::map<std::pair<const ModuleStatement*, std::string>, Entity*> guarded_targets_;  // need_guarded_target
};

}  // namespace

ClosureResult RepositoryClosure::compute(const ClosureRoot& root) const {
  // Only modules that outlive this call (the repository's, parsed once per scan) may be cached;
  // a notebook's module lives as long as its file is being extracted.
  bool lasting = repo_.cache && repo_.module && repo_.index && repo_.index->has_file(module_.path()) &&
                 repo_.module(module_.path()) == &module_;
  if (lasting) return ClosureBuilder(repo_, module_, labeler_, root, *repo_.cache).run();
  ResolutionCache local;
  return ClosureBuilder(repo_, module_, labeler_, root, local).run();
}

}  // namespace mine
