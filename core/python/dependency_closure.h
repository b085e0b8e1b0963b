#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/python/module_model.h"

namespace mine {

// One thing a kernel's standalone module pulls in, or a name that could not be resolved.
struct Dependency {
  std::string name;
  std::string kind;  // function | jit_function | class | constant | import | unresolved
  std::string path;  // file the definition lives in; empty when unresolved
  int start_line = 0;
  // Unresolved: why. Resolved: the name it is defined under in the standalone when a clash
  // forced a rename. Not stored as a column; the scanner copies it into the kernel's meta.
  std::string note;
};

// Lets a plugin name the kind of a definition it recognises (e.g. 'jit_function'); an empty
// answer keeps the generic kind. The core knows nothing about any kernel language.
using DependencyLabeler = std::function<std::string(const PythonModule&, const ModuleStatement&)>;

// What the closure needs to know about the kernel itself.
struct ClosureRoot {
  std::string text;                 // the kernel's code as it will appear (already dedented)
  FreeNames reads;                  // names it reads from the module
  std::set<std::string> binds;      // names it defines itself (never looked up)
  const ModuleStatement* statement = nullptr;  // the module statement it is, if any (never emitted twice)
  // Where `text` was cut from the module's own source, when it was: each piece is a node's text
  // dedented by `indent` and framed by `before`/`after`, and `node` holds every piece. Lets a
  // closure that renames the kernel's globals edit the module's tree in place instead of parsing
  // `text` again (a parse per kernel); when the pieces do not spell `text`, it parses.
  struct Piece {
    TSNode node{};
    int indent = 0;
    std::string before, after;
  };
  std::vector<Piece> pieces;
  TSNode node{};
};

// The text `pieces` spell, cut from `module`'s source.
std::string spliced_text(const PythonModule& module, const std::vector<ClosureRoot::Piece>& pieces);

struct ClosureResult {
  std::string standalone;                  // imports, then helpers in source order, then the kernel
  std::vector<Dependency> dependencies;    // in the order they were found
  std::set<std::string> external_modules;  // top-level modules of the imports kept (torch, triton, ...)
  bool self_contained = true;              // nothing unresolved and no import left pointing into the repo
};

// Transitive set of module-level definitions a kernel needs within one file, and the standalone
// module built from it: only the imports actually used, only the definitions actually reached.
class DependencyClosure {
 public:
  explicit DependencyClosure(const PythonModule& module, DependencyLabeler labeler = {})
      : module_(module), labeler_(std::move(labeler)) {}

  ClosureResult compute(const ClosureRoot& root) const;

 private:
  const PythonModule& module_;
  DependencyLabeler labeler_;
};

// The kind a dependency row gets for statement `s`: the labeler's answer for functions and
// classes when it has one, else function | class | constant | import.
std::string dependency_kind(const PythonModule& module, const ModuleStatement& s, const DependencyLabeler& labeler);

// Renders the part of an import statement that binds `needed` names (all of it when all are needed).
std::string render_import(const PythonModule& module, const ModuleStatement& statement,
                          const std::set<std::string>& needed);

}  // namespace mine
