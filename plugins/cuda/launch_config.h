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

// The launches of one unit's kernels, read once per unit (its macros, constants and every
// `<<<...>>>` call), for each of its kernels to look up.
class UnitLaunches {
 public:
  // `defines`: the build's macros for the unit, name to value (define_values).
  UnitLaunches(const CudaSource& unit, std::map<std::string, std::string> defines);

  // The first launch of `site` (outside the kernel itself) whose block evaluates. Values are
  // integer literals and arithmetic on them, `dim3(x, y, z)`, and names the unit binds before the
  // launch: a declaration in the launching function (`const int threads = 256;`, `dim3
  // block(32, 8);`), a constant at file or namespace scope, an object-like macro, or a build
  // define.
  LaunchConfig of(const CudaKernelSite& site) const;

 private:
  const CudaSource& unit_;
  std::map<std::string, std::string> defines_;
  std::map<std::string, std::string> unit_values_;  // macros, then constants: the first definition
  // The `<<<grid, block, ...>>>` of each launch (its call is the parent), by kernel name, in
  // source order.
  std::map<std::string, std::vector<TSNode>> launches_;
};

}  // namespace mine
