#pragma once
#include "core/plugin.h"

namespace mine {

// Numba CUDA: functions decorated with `numba.cuda.jit` under any import alias (`@cuda.jit`,
// `@numba.cuda.jit("void(f4[:])")`, `from numba.cuda import jit`), kernels and
// `device=True` device functions alike, plus `@vectorize`/`@guvectorize(target="cuda")` ufuncs
// and the functional forms `k = cuda.jit(fn)` / `d = cuda.jit(device=True)(fn)`.
// `@numba.jit` / `@njit` compile for the CPU and are not reported: a corpus of GPU kernels
// should not fill up with NumPy loops.
class NumbaPlugin : public ExtractorPlugin {
 public:
  std::string name() const override { return "numba"; }
  std::string description() const override {
    return "Numba @cuda.jit kernels and device functions, CUDA-target (gu)vectorize ufuncs, with their helpers";
  }
  std::vector<std::string> file_suffixes() const override { return {".py"}; }
  std::vector<std::string> prefilter_patterns() const override { return {"numba"}; }
  void extract(const FileView& file, KernelSink& sink) const override;
};

// What a decorator or jit call (already resolved through the imports) makes of a function:
// "kernel", "device_function", "ufunc", or "" when it is no Numba CUDA compilation.
std::string numba_cuda_role(const PythonModule& m, TSNode decorator);

}  // namespace mine
