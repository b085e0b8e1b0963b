#pragma once
#include <string>

#include "include/mine/plugin.h"

namespace mine {

// Triton kernels: every function whose decorator resolves to `triton.jit` through the file's
// imports (`@triton.jit`, `@tt.jit(...)`, `from triton import jit`), under autotune/heuristics
// stacks, in classes and guarded blocks, and the functional form `k = triton.jit(fn)`.
// Speaks only include/mine/plugin.h.
const mine_plugin_info* triton_plugin();

// True when the dotted name (already resolved through imports) is Triton's jit decorator.
bool is_triton_jit(const std::string& qualified_name);

}  // namespace mine
