#pragma once
#include "include/mine/plugin.h"

namespace mine {

// Numba CUDA: functions decorated with `numba.cuda.jit` under any import alias (`@cuda.jit`,
// `@numba.cuda.jit("void(f4[:])")`, `from numba.cuda import jit`), kernels and
// `device=True` device functions alike, plus `@vectorize`/`@guvectorize(target="cuda")` ufuncs
// and the functional forms `k = cuda.jit(fn)` / `d = cuda.jit(device=True)(fn)`.
// `@numba.jit` / `@njit` compile for the CPU and are not reported: a corpus of GPU kernels
// should not fill up with NumPy loops. Speaks only include/mine/plugin.h.
const mine_plugin_info* numba_plugin();

}  // namespace mine
