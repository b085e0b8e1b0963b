#pragma once
// The launch configuration a CUDA unit gives a kernel: `kernel<<<grid, block, ...>>>(...)` in its
// host code, evaluated where the unit fixes the values.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "plugins/cuda/cuda_source.h"

namespace mine {

struct LaunchConfig {
  std::vector<int64_t> block;  // x, y, z; empty when no launch in the unit fixes them
  std::vector<int64_t> grid;   // x, y, z where the launch's grid is constant too (rare: sizes decide it)
  int line = 0;                // the launch's line in the unit
};

// The first launch of `site` in `unit` (outside the kernel itself) whose block evaluates. Values
// are integer literals and arithmetic on them, `dim3(x, y, z)`, and names the unit binds before
// the launch: a declaration in the launching function (`const int threads = 256;`, `dim3
// block(32, 8);`), a constant at file scope, an object-like macro, or a build define
// (`defines`: name to value, from the repository's build call).
LaunchConfig launch_config(const CudaSource& unit, const CudaKernelSite& site,
                           const std::map<std::string, std::string>& defines);

}  // namespace mine
