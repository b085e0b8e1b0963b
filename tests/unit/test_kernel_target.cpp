// Kernels written for another accelerator: what the standalone imports, else the vendor backend
// folder it lives in (check/kernel_target.h).
#include <catch2/catch.hpp>

#include "core/check/kernel_target.h"

using mine::check::other_backend;

namespace {
const char* kPlain = "import triton\nimport triton.language as tl\n";
}

TEST_CASE("kernels in a vendor backend folder are written for that vendor", "[check][target]") {
  auto t = other_backend("src/pkg/runtime/backend/_ascend/ops/add.py", kPlain);
  REQUIRE(t);
  CHECK(t->backend == "ascend");
  CHECK(t->evidence == "in the folder _ascend/");
  CHECK(other_backend("fla/ops/backends/triton_ascend/chunk.py", kPlain)->backend == "ascend");
  CHECK(other_backend("ops/backend/_cambricon/x.py", kPlain)->backend == "cambricon");
  CHECK(other_backend("lib/kernels/camb/rotary.py", kPlain)->backend == "cambricon");
  CHECK(other_backend("ops/musa_backend/x.py", kPlain)->backend == "mthreads");
  // A package named for the vendor at either end of its name.
  CHECK(other_backend("python/sgl_kernel_npu/attention/decode.py", kPlain)->backend == "ascend");
  CHECK(other_backend("vllm-ascend/ops/x.py", kPlain)->backend == "ascend");
  CHECK_FALSE(other_backend("src/kernel_npus_like/x.py", kPlain));
}

TEST_CASE("a module-level vendor import decides wherever the file lives", "[check][target]") {
  auto t = other_backend("ops/rand.py", "import triton\nfrom triton.language.extra.mlu.libdevice import philox\n");
  REQUIRE(t);
  CHECK(t->backend == "cambricon");
  CHECK(t->evidence == "imports triton.language.extra.mlu");
  CHECK(other_backend("k.py", "import torch_npu\nimport triton\n")->backend == "ascend");
  // A kernel that imports helpers from ROCm's aiter library runs only where ROCm does.
  auto rocm = other_backend("mla/decode.py", "import triton\nfrom aiter.ops.triton.utils.pid_preprocessing import pid_grid\n");
  REQUIRE(rocm);
  CHECK(rocm->backend == "amd");
  CHECK(rocm->evidence == "imports aiter (ROCm's kernel library)");
  CHECK(other_backend("k.py", "import aiter\nimport triton\n")->backend == "amd");
  CHECK_FALSE(other_backend("k.py", "import aiterx\nfrom waiter import w\n"));
  // A vendor's Triton modules decide even where a `try:` falls back to plain Triton.
  auto cann = other_backend("k.py", "try:\n    import triton.language.extra.cann.extension as al\nexcept ImportError:\n"
                                    "    import triton.language as al\n");
  REQUIRE(cann);
  CHECK(cann->backend == "ascend");
  CHECK(cann->evidence == "imports triton.language.extra.cann");
  CHECK(other_backend("k.py", "import triton.language as tl\nimport triton.backends.ascend.runtime\n")->backend == "ascend");
  CHECK_FALSE(other_backend("k.py", "import triton.backends.nvidia.compiler\n"));
}

TEST_CASE("CUDA kernels and device probes are no other target", "[check][target]") {
  CHECK_FALSE(other_backend("ops/add.py", kPlain));
  // A file named for a vendor is no backend folder, nor are AMD's and Intel's (their Triton
  // backends compile the same kernels).
  CHECK_FALSE(other_backend("ops/npu.py", kPlain));
  CHECK_FALSE(other_backend("backends/amd/ops.py", kPlain));
  CHECK_FALSE(other_backend("backends/xpu/ops.py", kPlain));
  // Device detection that tries the vendor module inside a function decides nothing.
  CHECK_FALSE(other_backend("runtime/device.py",
                            "import torch\n\ndef probe():\n    try:\n        import torch_npu\n    except ImportError:\n        pass\n"));
  // Nor does a folder whose name only contains a vendor's letters.
  CHECK_FALSE(other_backend("src/mlutils/ops.py", kPlain));
}

TEST_CASE("Gluon kernels laid out for AMD's instructions are written for AMD", "[check][target]") {
  auto t = other_backend("ops/gluon/gemm.py",
                         "from triton.experimental import gluon\nimport triton.experimental.gluon.language as gl\n\n"
                         "@gluon.jit\ndef k(a):\n    layout: gl.constexpr = gl.amd.AMDMFMALayout(version=3)\n");
  REQUIRE(t);
  CHECK(t->backend == "amd");
  CHECK(t->evidence == "uses AMD Gluon layouts (AMDMFMALayout)");
  CHECK(other_backend("g.py", "import triton.experimental.gluon.language as gl\nx = gl.amd.gfx1250.async_copy\n")->backend == "amd");
  // A Gluon kernel in a folder named for an AMD GPU, whatever its standalone holds; a plain Triton
  // kernel there is not (AMD's backend compiles the same language).
  const char* gluon = "from triton.experimental import gluon\nimport triton.experimental.gluon.language as gl\n";
  auto arch = other_backend("aiter/ops/_gluon_kernels/gfx1250/attention/mla.py", gluon);
  REQUIRE(arch);
  CHECK(arch->backend == "amd");
  CHECK(arch->evidence == "a Gluon kernel in the folder gfx1250/");
  CHECK_FALSE(other_backend("aiter/ops/_triton_kernels/gfx942/gemm.py", kPlain));
  CHECK_FALSE(other_backend("kernels/sm90/attention.py", gluon));
  // NVIDIA's Gluon layouts, and the word in a name, are not.
  CHECK_FALSE(other_backend("g.py", "import triton.experimental.gluon.language as gl\nL = gl.NVMMASharedLayout(128, 16)\n"));
  CHECK_FALSE(other_backend("g.py", "import triton\namd_cdna = 3\n"));
}
