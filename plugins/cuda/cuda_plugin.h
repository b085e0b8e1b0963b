#pragma once
#include "include/mine/plugin.h"

namespace mine {

// CUDA C++: `__global__` kernels of .cu/.cuh/.cuda files with the same-file `__device__` helpers,
// macros, constants, types and templates they reach, and every include; plus CUDA source held in
// Python strings handed to `cupy.RawKernel`, `cupy.RawModule` and
// `torch.utils.cpp_extension.load_inline(cuda_sources=...)`. Speaks only include/mine/plugin.h:
// it parses CUDA itself and reports assembled kernels.
const mine_plugin_info* cuda_plugin();

}  // namespace mine
