#pragma once
#include <string>
#include <vector>

#include "core/python/syntax_tree.h"

namespace mine {

// One name bound by an import statement.
struct ImportBinding {
  std::string local;     // the name bound in the module: `tl` for `import triton.language as tl`
  std::string module;    // dotted module after any leading dots: `triton.language`, `utils` for `from .utils import x`
  int level = 0;         // leading dots of a relative import
  std::string imported;  // `from m import imported [as local]`; empty for `import m`
  bool star = false;     // `from m import *` (binds nothing nameable)
  // Dotted name the local refers to: `triton.jit` for `from triton import jit`, `a` for
  // `import a.b`, `triton.language` for `import triton.language as tl`. Relative imports keep
  // their dots: `.utils.silu`.
  std::string target;
  // `from vllm.triton_utils import tl, triton`: a package handing on Triton under Triton's own
  // names. The target is then Triton's (`triton`, `triton.language`), so that `@triton.jit` reads
  // as Triton's wherever the package lives; a standalone that cannot have the package imports
  // Triton itself (direct_import).
  bool triton_reexport = false;
};

// `import triton`, `import triton.language as tl`: what a standalone writes for a re-exported
// Triton name it cannot import from its package.
std::string direct_import(const ImportBinding& b);

// The names one `import` or `from ... import` statement binds; empty for any other node.
// Shared by the module model (module-level imports) and local scopes (imports inside functions).
std::vector<ImportBinding> parse_import(const SyntaxTree& tree, TSNode n);

}  // namespace mine
