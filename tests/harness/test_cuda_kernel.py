"""CUDA C kernels in the harness: argument synthesis, nvcc diagnostics, and the driver-API launch
code run against a stand-in driver (no GPU needed); with nvcc present, real compiles of
tests/fixtures/cuda_check through run_bundle.py, and a whole run through the pool with the
stand-in driver in the workers."""
import ctypes
import struct
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

from util import ROOT, RUN_BUNDLE, STANDIN, run_standin

import cuda_kernel as ck

# Loaded from its file: putting the stand-in folder on sys.path would hide the real Triton (or
# its absence) from the other harness tests of this process.
_spec = importlib.util.spec_from_file_location("fake_cuda_driver", os.path.join(STANDIN, "fake_cuda_driver.py"))
_fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fake)
FakeDriver = _fake.FakeDriver

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "cuda_check")
NVCC = ck.find_nvcc()

# `nvcc --resource-usage` output as CUDA 13 prints it for two entries.
USAGE = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'cfun' for 'sm_90'
ptxas info    : Function properties for cfun
    2400 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 2400 bytes cumulative stack size
ptxas info    : Compiling entry function '_ZN2ns4vaddEPKfS1_Pfi' for 'sm_90'
ptxas info    : Function properties for _ZN2ns4vaddEPKfS1_Pfi
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 1024 bytes smem
"""


class Parameters(unittest.TestCase):
    def test_declarations(self):
        self.assertEqual(ck.parse_param("const float* __restrict__ x"),
                         {"name": "x", "type": "float", "pointer": True, "reference": False})
        self.assertEqual(ck.parse_param("unsigned long long n")["type"], "unsigned long long")
        self.assertTrue(ck.parse_param("int out[]")["pointer"])
        self.assertTrue(ck.parse_param("const Params& p")["reference"])

    def test_torch_headers_found_where_torch_is_installed(self):
        # A PyTorch extension's kernel includes torch's headers: nvcc gets torch's include folders
        # (found without importing torch); any other unit gets no extra flag.
        with tempfile.TemporaryDirectory() as d:
            pkg = os.path.join(d, "site", "torch")
            os.makedirs(os.path.join(pkg, "include", "torch", "csrc", "api", "include"))
            open(os.path.join(pkg, "__init__.py"), "w").close()
            ext, plain = os.path.join(d, "ext.cu"), os.path.join(d, "plain.cu")
            with open(ext, "w") as f:
                f.write("#include <torch/extension.h>\n__global__ void k(float* x) {}\n")
            with open(plain, "w") as f:
                f.write("#include <cuda_runtime.h>\n__global__ void k(float* x) {}\n")
            sys.path.insert(0, os.path.join(d, "site"))
            saved = sys.modules.pop("torch", None)
            ck.torch_include_flags.cache_clear()
            try:
                flags = ck.include_flags(ext)
                self.assertIn("-I" + os.path.join(pkg, "include"), flags)
                self.assertIn("-I" + os.path.join(pkg, "include", "torch", "csrc", "api", "include"), flags)
                self.assertIn("-std=c++17", flags)
                self.assertEqual(ck.include_flags(plain), [])
            finally:
                sys.path.remove(os.path.join(d, "site"))
                if saved is not None:
                    sys.modules["torch"] = saved
                ck.torch_include_flags.cache_clear()

    def test_buffers_hold_products_of_sizes(self):
        # `dout[(b * T + t) * C + c]`: an index made of three sizes must stay inside the buffers.
        spec = {"params": ["const float* dout", "float* dwte", "int B", "int T", "int C"]}
        p = ck.plan_launch(spec)
        self.assertGreaterEqual(p["elements"], ck.INT_DEFAULT ** 3)
        given = ck.plan_launch(dict(spec, args={"B": 8, "T": 1024, "C": 768}))
        self.assertEqual(given["elements"], min(ck.MAX_ELEMENTS, 8 * 1024 * 768))
        self.assertEqual(ck.largest_product([3, 0, 5, 2, 7, 1], 3), 105)

    def test_many_sizes_shrink_so_their_product_fits(self):
        # A deformable im2col indexes channels x kernel_h x kernel_w x height x width: five or more
        # guessed sizes each of 64 would index past any buffer; each shrinks to a power of two
        # whose product the buffers hold. Strides, offsets and floats are no sizes.
        sizes = ["int n", "int channels", "int kernel_h", "int kernel_w", "int height", "int width"]
        spec = {"params": ["const float* im", "float* col"] + sizes + ["int stride_h", "float scale"]}
        p = ck.plan_launch(spec)
        values = {name: v for kind, name, d in p["args"] if kind == "scalar" for _, v in [d]}
        self.assertEqual([values[s.split()[1]] for s in sizes], [16] * 6)
        self.assertEqual((values["stride_h"], values["scale"]), (1, 1.0))
        self.assertGreaterEqual(p["elements"], 16 ** 6)
        self.assertLessEqual(p["elements"], ck.MAX_ELEMENTS)
        # Four or fewer keep INT_DEFAULT; a given size is no guess and does not count.
        four = ck.plan_launch({"params": ["float* x"] + sizes[:4]})
        self.assertEqual({d[1] for kind, _, d in four["args"] if kind == "scalar"}, {ck.INT_DEFAULT})
        given = ck.plan_launch(dict(spec, args={"n": 2, "channels": 3}))
        self.assertEqual({d[1] for kind, name, d in given["args"] if kind == "scalar" and name in ("height", "width")},
                         {ck.INT_DEFAULT})
        self.assertEqual([ck.int_stand_in(k) for k in (4, 5, 6, 7, 12)], [64, 32, 16, 8, 8])

    def test_plan(self):
        spec = {"params": ["const float* a", "double* b", "int n", "float eps", "int stride"],
                "launch_bounds": "__launch_bounds__(128)"}
        p = ck.plan_launch(spec)
        self.assertEqual([a[0] for a in p["args"]], ["pointer", "pointer", "scalar", "scalar", "scalar"])
        self.assertEqual(p["args"][1][2], 8)  # double elements
        self.assertEqual(p["args"][2][2], ("int", ck.INT_DEFAULT))
        self.assertEqual(p["args"][3][2], ("float", 1e-5))
        self.assertEqual(p["args"][4][2], ("int", 1))
        self.assertEqual(p["block"], [128, 1, 1])
        self.assertEqual(p["grid"], [-(-ck.INT_DEFAULT // 128), 1, 1])
        self.assertEqual(p["guessed"], ["n", "eps", "stride"])
        self.assertEqual(ck.plan_launch(dict(spec, args={"n": 4096}))["grid"], [32, 1, 1])
        # The block of the unit's own launch (`<<<g, dim3(64, 2)>>>`): the grid covers n by its x.
        launched = ck.plan_launch(dict(spec, args={"n": 4096}, block=[64, 2, 1]))
        self.assertEqual((launched["block"], launched["grid"]), ([64, 2, 1], [64, 1, 1]))

    def test_struct_by_value_is_refused(self):
        with self.assertRaises(ck.UnsupportedArgument):
            ck.plan_launch({"params": ["Params p"]})

    def test_tensor_info_arguments(self):
        # PyTorch extensions pass `at::cuda::detail::TensorInfo<T, IndexType>` by value: a buffer
        # laid out as the struct, one dimension over the whole buffer.
        p = ck.plan_launch({"params": ["at::cuda::detail::TensorInfo<int64_t, int> index_info",
                                       "TensorInfo<float, int64_t> src", "int n"]})
        self.assertEqual(p["args"][0][0], "tensor_info")
        self.assertEqual(p["args"][0][2], (8, ctypes.c_int32))
        self.assertEqual(p["args"][1][2], (4, ctypes.c_int64))
        info = ck.tensor_info_value(4096, 100, ctypes.c_int32)
        self.assertEqual(ctypes.sizeof(info), 216)  # 8 + 2 * 25 * 4 + 4, aligned to the pointer
        self.assertEqual((info.data, info.sizes[0], info.strides[0], info.dims), (4096, 100, 1, 1))
        self.assertEqual(ctypes.sizeof(ck.tensor_info_value(0, 1, ctypes.c_int64)), 416)
        with self.assertRaises(ck.UnsupportedArgument):
            ck.plan_launch({"params": ["TensorInfo<float, float> bad"]})


    def test_packed_accessor_arguments(self):
        # `tensor.packed_accessor64<scalar_t, 3, at::RestrictPtrTraits>()` by value: a data pointer,
        # then the sizes and strides of each dimension, one side for every accessor of the launch.
        p = ck.plan_launch({"params": ["const at::PackedTensorAccessor64<scalar_t, 3, at::RestrictPtrTraits> p1",
                                       "torch::PackedTensorAccessor32<float, 1, torch::RestrictPtrTraits> lengths",
                                       "at::GenericPackedTensorAccessor<int, 2, at::DefaultPtrTraits, int32_t> idx",
                                       "const int64_t K"]})
        self.assertEqual([a[0] for a in p["args"]], ["accessor", "accessor", "accessor", "scalar"])
        self.assertEqual(p["args"][0][2], (8, ctypes.c_int64, 3))
        self.assertEqual(p["args"][1][2], (4, ctypes.c_int32, 1))
        self.assertEqual(p["args"][2][2], (4, ctypes.c_int32, 2))
        side = p["accessor_side"]
        self.assertLessEqual(side ** 3, p["elements"])
        self.assertEqual(side, min(ck.INT_DEFAULT, 101))  # (2^20)^(1/3) is about 101.6
        acc = ck.packed_accessor_value(4096, 5, ctypes.c_int64, 3)
        self.assertEqual(ctypes.sizeof(acc), 8 + 2 * 3 * 8)
        self.assertEqual((acc.data, list(acc.sizes), list(acc.strides)), (4096, [5, 5, 5], [25, 5, 1]))
        self.assertEqual(ctypes.sizeof(ck.packed_accessor_value(0, 5, ctypes.c_int32, 1)), 16)  # 8 + 4 + 4
        self.assertIsNone(ck.packed_accessor({"type": "PackedTensorAccessor64<float, 2>", "pointer": True,
                                              "reference": False}))


class ToolkitPorts(unittest.TestCase):
    def test_cuda_align_is_defined_again_before_its_first_use(self):
        unit = ("#include <cuda_fp16.h>\n#define PAIR(a) \\\n  __CUDA_ALIGN__(a)\n"
                "typedef struct __CUDA_ALIGN__(8) {\n  __half x, y, z, w;\n} half4_t;\n")
        ported, names = ck.toolkit_ports(unit)
        self.assertEqual(names, ["__CUDA_ALIGN__"])
        # Not inside the multi-line #define, but before the typedef that uses it.
        self.assertIn("#define PAIR(a) \\\n  __CUDA_ALIGN__(a)\n#ifndef __CUDA_ALIGN__\n"
                      "#define __CUDA_ALIGN__(n) __align__(n)\n#endif\ntypedef struct __CUDA_ALIGN__(8) {", ported)
        # Before each use: a toolkit header included between two uses #undefs it again.
        twice, _ = ck.toolkit_ports("struct __CUDA_ALIGN__(4) A { int x; };\n#include <cuda_bf16.h>\n"
                                    "struct __CUDA_ALIGN__(8) B { int y; };\n")
        self.assertEqual(twice.count("#define __CUDA_ALIGN__(n) __align__(n)"), 2)
        self.assertTrue(twice.startswith("#ifndef __CUDA_ALIGN__\n"))
        self.assertIn("#include <cuda_bf16.h>\n#ifndef __CUDA_ALIGN__\n", twice)
        self.assertEqual(ck.toolkit_ports("struct __align__(8) A { int x; };\n"), ("struct __align__(8) A { int x; };\n", []))
        own = "#define __CUDA_ALIGN__(n) alignas(n)\nstruct __CUDA_ALIGN__(8) B { int x; };\n"
        self.assertEqual(ck.toolkit_ports(own), (own, []))


    def test_cub_operators_are_given_back_after_the_last_cub_include(self):
        unit = ("#include <cub/block/block_reduce.cuh>\n#ifndef USE_ROCM\n#include <cub/cub.cuh>\n#endif\n"
                "__global__ void k(float* x) {\n  using R = cub::BlockReduce<float, 128>;\n"
                "  __shared__ typename R::TempStorage t;\n  x[0] = R(t).Reduce(x[threadIdx.x], cub::Sum());\n"
                "  x[1] = R(t).Reduce(x[threadIdx.x], cub::Max{});\n}\n")
        ported, names = ck.cub_operator_ports(unit)
        self.assertEqual(names, ["cub::Sum", "cub::Max"])
        self.assertIn("#include <cub/cub.cuh>\n#if defined(CCCL_MAJOR_VERSION) && CCCL_MAJOR_VERSION >= 3\n", ported)
        self.assertIn("namespace cub { using Sum = ::cuda::std::plus<>; using Max = ::cuda::maximum<>; }\n#endif\n#endif\n",
                      ported)
        self.assertEqual(ck.cub_operator_ports("x = cub::Sum();\n"), ("x = cub::Sum();\n", []))  # no CUB include
        plain = "#include <cub/cub.cuh>\nusing S = cub::BlockScan<int, 32>;\n"
        self.assertEqual(ck.cub_operator_ports(plain), (plain, []))

    def test_a_units_ports_are_rewrites_as_triton_ports_are(self):
        unit = ("#include <cub/cub.cuh>\ntypedef struct __CUDA_ALIGN__(8) { float x, y; } f2_t;\n"
                "__global__ void k(float* x) { x[0] = cub::Sum()(x[1], x[2]); }\n")
        text, rewrites = ck.cuda_ports(unit)
        self.assertEqual(rewrites, [
            {"move": "cuda.toolkit_macro", "old": "__CUDA_ALIGN__", "new": "#define __CUDA_ALIGN__(n) __align__(n)",
             "count": 1},
            {"move": "cuda.cub_operator", "old": "cub::Sum", "new": "::cuda::std::plus<>", "count": 1}])
        self.assertEqual(text, ck.cub_operator_ports(ck.toolkit_ports(unit)[0])[0])
        self.assertEqual(ck.cuda_ports("__global__ void k() {}\n"), ("__global__ void k() {}\n", []))

    @unittest.skipUnless(ck.find_nvcc(), "nvcc not installed")
    def test_cub_operators_compile_with_the_installed_toolkit(self):
        unit = ("#include <cub/cub.cuh>\n__global__ void k(float* x) {\n  using R = cub::BlockReduce<float, 128>;\n"
                "  __shared__ typename R::TempStorage t;\n  float v = R(t).Reduce(x[threadIdx.x], cub::Sum());\n"
                "  if (threadIdx.x == 0) x[0] = v + R(t).Reduce(x[threadIdx.x], cub::Max());\n}\n")
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "k.cu")
            with open(src, "w") as f:
                f.write(ck.cub_operator_ports(unit)[0])
            code, output, _, _ = ck.compile_cubin(ck.find_nvcc(), src, "sm_90", tmp, 120)
        self.assertEqual(code, 0, output)

    @unittest.skipUnless(ck.find_nvcc(), "nvcc not installed")
    def test_device_lambdas_compile(self):
        # A kernel template applying a `[] __device__` functor, as extensions pass them.
        unit = ("template <typename F>\n__global__ void apply(float* x, F f) { x[threadIdx.x] = f(x[threadIdx.x]); }\n"
                "__global__ void twice(float* x) {\n  auto f = [] __host__ __device__ (float v) { return 2.0f * v; };\n"
                "  x[threadIdx.x] = f(x[threadIdx.x]);\n}\n"
                "void launch(float* x) { apply<<<1, 32>>>(x, [] __device__ (float v) { return v + 1.0f; }); }\n")
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "k.cu")
            with open(src, "w") as f:
                f.write(unit)
            code, output, _, _ = ck.compile_cubin(ck.find_nvcc(), src, "sm_90", tmp, 120)
        self.assertEqual(code, 0, output)


class Diagnostics(unittest.TestCase):
    def test_usage_of_mangled_and_extern_c_entries(self):
        u = ck.ptxas_usage(USAGE, "vadd")
        self.assertEqual((u["symbol"], u["n_regs"], u["shared_bytes"], u["n_spills"]),
                         ("_ZN2ns4vaddEPKfS1_Pfi", 14, 1024, 0))
        u = ck.ptxas_usage(USAGE, "cfun")
        self.assertEqual((u["n_regs"], u["shared_bytes"], u["n_spills"], u["stack_bytes"]), (40, 0, 8, 2400))
        self.assertIsNone(ck.ptxas_usage(USAGE, "add"))

    def test_entries_in_anonymous_namespaces(self):
        # nvcc names an anonymous namespace after the unit, ending in digits: the kernel's name
        # is found by the lengths the symbol spells, not by a digit-free text before it.
        sym = "_ZN45_GLOBAL__N__fa5324bc_7_k820_cu_1e626000_2740426_row_sparse_encode_2d_kernIfEEvPKT_Piiii"
        usage = USAGE.replace("_ZN2ns4vaddEPKfS1_Pfi", sym)
        self.assertEqual(ck.ptxas_usage(usage, "_row_sparse_encode_2d_kern")["n_regs"], 14)
        self.assertIsNone(ck.ptxas_usage(usage, "encode_2d_kern"))
        self.assertEqual(ck.mangled_names("_ZN3pyg3ops23scatter_sum_cuda_kernelIfEEvPKT_"),
                         ["pyg", "ops", "scatter_sum_cuda_kernel"])
        self.assertEqual(ck.mangled_names("_Z4vaddPKfS0_Pfi"), ["vadd"])
        self.assertEqual(ck.mangled_names("cfun"), [])

    def test_classes(self):
        # The same cases core/check/nvcc_check.cpp is tested on.
        with open(os.path.join(FIXTURES, "nvcc_diagnostics.json")) as f:
            cases = json.load(f)["cases"]
        self.assertGreaterEqual(len(cases), 8)
        for text, cls in cases:
            self.assertEqual(ck.classify_nvcc("ptxas info : 0 bytes gmem\n" + text), cls, text)


class LaunchWithStandIn(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.cubin = os.path.join(self.tmp.name, "k.cubin")
        with open(self.cubin, "wb") as f:
            f.write(b"\x7fELF cubin bytes")

    def tearDown(self):
        self.tmp.cleanup()

    def test_arguments_reach_cuLaunchKernel(self):
        driver = FakeDriver()
        row = {}
        spec = {"params": ["const float* x", "int* y", "int n", "float scale"], "args": {"scale": 2.5}}
        ck.load_and_run(driver, self.cubin, "_Z1kPKfPiif", spec, "run", row)
        self.assertEqual(driver.loaded, [b"\x7fELF cubin bytes"])
        self.assertEqual(driver.functions, ["_Z1kPKfPiif"])
        (fn, grid, block, shared, values), = driver.launches
        self.assertEqual((grid, block, shared), ([-(-ck.INT_DEFAULT // 256), 1, 1], [256, 1, 1], 0))
        x, y, n, scale = values
        # room for an n x n matrix, and at least MIN_ELEMENTS
        elements = max(ck.MIN_ELEMENTS, 4 * ck.INT_DEFAULT ** 2)
        self.assertEqual((driver.allocations[x], driver.allocations[y]), (elements * 4, elements * 4))
        self.assertEqual((n, scale), (ck.INT_DEFAULT, 2.5))
        self.assertEqual(sorted(driver.freed), sorted(driver.allocations))
        self.assertEqual(driver.unloaded, 1)
        self.assertEqual((row["n_regs"], row["stage_reached"]), (FakeDriver.REGS, "run"))
        self.assertIsNotNone(row["run_ms"])

    def test_accessors_reach_cuLaunchKernel_as_their_bytes(self):
        driver = FakeDriver()
        spec = {"params": ["at::PackedTensorAccessor32<float, 2, at::RestrictPtrTraits> a", "int n"]}
        ck.load_and_run(driver, self.cubin, "k", spec, "run", {})
        (_, _, _, _, (a, n)), = driver.launches
        data, size0, size1, stride0, stride1 = struct.unpack("<Qiiii", a)
        self.assertEqual(driver.allocations[data], ck.MIN_ELEMENTS * 4)
        self.assertEqual((size0, size1, stride0, stride1), (ck.INT_DEFAULT, ck.INT_DEFAULT, ck.INT_DEFAULT, 1))
        self.assertEqual(n, ck.INT_DEFAULT)

    def test_block_shrinks_to_the_kernels_thread_limit(self):
        # __launch_bounds__(THREADBLOCK_SIZE) of a macro the plan cannot read: the driver's limit
        # (128 here) bounds the block, and the derived grid grows to cover the same threads.
        driver = FakeDriver(max_threads=128)
        row = {}
        spec = {"params": ["float* x", "int n"], "args": {"n": 4096}}
        ck.load_and_run(driver, self.cubin, "k", spec, "run", row)
        (_, grid, block, _, _), = driver.launches
        self.assertEqual((grid, block), ([32, 1, 1], [128, 1, 1]))
        self.assertEqual(row["block"], [128, 1, 1])
        # A grid the bundle states stays.
        driver = FakeDriver(max_threads=128)
        ck.load_and_run(driver, self.cubin, "k", dict(spec, grid=[7, 1, 1]), "run", {})
        self.assertEqual(driver.launches[0][1:3], ([7, 1, 1], [128, 1, 1]))

    def test_extern_shared_memory_gets_what_the_default_limit_leaves(self):
        self.assertTrue(ck.uses_dynamic_shared("__global__ void k() { extern __shared__ float s[]; }"))
        self.assertTrue(ck.uses_dynamic_shared("extern __shared__ __align__(16) char smem[];"))
        self.assertFalse(ck.uses_dynamic_shared("__global__ void k() { __shared__ float s[256]; }"))
        driver = FakeDriver(static_shared=1024)
        row = {}
        ck.load_and_run(driver, self.cubin, "k", {"params": ["float* x"], "dynamic_shared": True}, "run", row)
        self.assertEqual(driver.launches[0][3], ck.DEFAULT_SHARED_LIMIT - 1024)
        self.assertEqual(row["dynamic_shared_bytes"], ck.DEFAULT_SHARED_LIMIT - 1024)
        driver = FakeDriver(static_shared=1024)
        ck.load_and_run(driver, self.cubin, "k", {"params": ["float* x"]}, "run", {})
        self.assertEqual(driver.launches[0][3], 0)

    def test_load_stage_launches_nothing(self):
        driver = FakeDriver()
        row = {}
        ck.load_and_run(driver, self.cubin, "k", {"params": ["float* x"]}, "load", row)
        self.assertEqual(driver.launches, [])
        self.assertEqual(row["stage_reached"], "load")

    def test_a_fault_is_reported_and_memory_freed(self):
        driver = FakeDriver(fault="CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered")
        with self.assertRaises(ck.CudaError):
            ck.load_and_run(driver, self.cubin, "k", {"params": ["float* x", "int n"]}, "run", {})
        self.assertEqual(len(driver.freed), 1)

    def test_real_packing_of_kernel_params(self):
        """CudaDriver.launch hands cuLaunchKernel an array of pointers to the argument values."""
        seen = {}

        class Lib:
            def cuLaunchKernel(self, fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
                seen["grid"] = (gx, gy, gz, bx, by, bz)
                seen["x"] = ctypes.cast(params[0], ctypes.POINTER(ctypes.c_uint64)).contents.value
                seen["n"] = ctypes.cast(params[1], ctypes.POINTER(ctypes.c_int32)).contents.value
                seen["f"] = ctypes.cast(params[2], ctypes.POINTER(ctypes.c_float)).contents.value
                return 0

        driver = ck.CudaDriver.__new__(ck.CudaDriver)
        driver.cu = Lib()
        driver.launch(None, [2, 1, 1], [64, 1, 1], 0,
                      [ctypes.c_uint64(0xDEAD0000), ctypes.c_int32(77), ctypes.c_float(0.5)])
        self.assertEqual(seen, {"grid": (2, 1, 1, 64, 1, 1), "x": 0xDEAD0000, "n": 77, "f": 0.5})


def cuda_bundle(directory, sources):
    """A bundle of CUDA units: {id: (entry, file in FIXTURES or source text, params)}."""
    specs = []
    for kid, (entry, source, params) in sources.items():
        module = "k%d.cu" % kid
        with open(os.path.join(directory, module), "w") as f:
            f.write(source)
        specs.append({"id": kid, "entry": entry, "module": module, "language": "cuda", "params": params})
    with open(os.path.join(directory, "bundle.json"), "w") as f:
        json.dump({"version": 1, "kernels": specs}, f)


PASS = open(os.path.join(FIXTURES, "pass_kernels.cu")).read()
UNKNOWN = "__global__ void unknown_name(float* x) { x[0] = not_declared_anywhere(x[1]); }\n"
TEMPLATE = "template <typename T> __global__ void scale(T* x, T s) { x[threadIdx.x] *= s; }\n"
# Value parameters of types only the compiler resolves: a template parameter, a macro naming a
# type of it, a typedef; instantiated by the unit as cuda_source.cpp writes it.
PROBED = """#include <cstdint>
#define opmath_t double
typedef float real;
namespace ns {
template <typename scalar_t, int N>
__global__ void axpy(const int n, const opmath_t scale, scalar_t alpha, real beta, scalar_t* y, int64_t* idx,
                     unsigned short u) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * y[i] * (scalar_t)scale + beta + N + idx[0] + u;
}
}  // namespace ns
static void* const mine_instantiation_axpy = (void*)&ns::axpy<float, 4>;
"""
# A plain kernel whose pointers come through a typedef (nothing instantiates it; its own name is
# its type), and one under __launch_bounds__.
TYPEDEF_PARAMS = """typedef float* __restrict__ F_;
__global__ void copy_rows(int n, F_ dst, F_ src) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dst[i] = src[i];
}
__global__ void __launch_bounds__(128) bounded(F_ x) { x[threadIdx.x] = 0.f; }
enum reduce_t { SUM = 0, MEAN = 1, MAX = 2 };
enum class Wide : long long { A, B };
__global__ void reduce_rows(F_ x, const reduce_t how, Wide w) { if (how == MAX && w == Wide::B) x[0] = 1.f; }
"""
PROBED_PARAMS = ["const int n", "const opmath_t scale", "scalar_t alpha", "real beta", "scalar_t* y", "int64_t* idx",
                 "unsigned short u"]


class ParameterProbe(unittest.TestCase):
    def test_only_units_that_instantiate_the_entry_get_a_probe(self):
        params = [ck.parse_param(d) for d in PROBED_PARAMS]
        self.assertEqual([p["type"] for p in ck.unknown_scalars(params)], ["opmath_t", "scalar_t", "real"])
        self.assertIn("decltype(&ns::axpy<float, 4>)", ck.param_probe(PROBED, "axpy", 7))
        self.assertIsNone(ck.param_probe(PROBED, "other", 7))
        self.assertIsNone(ck.param_probe(TEMPLATE, "scale", 2))

    def test_a_plain_kernel_of_typedef_parameters_is_probed_by_its_name(self):
        self.assertIn("decltype(&copy_rows)", ck.param_probe(TYPEDEF_PARAMS, "copy_rows", 3))
        self.assertIn("decltype(&bounded)", ck.param_probe(TYPEDEF_PARAMS, "bounded", 1))

    def test_resolved_types_become_arguments(self):
        params = [ck.parse_param(d) for d in ["opmath_t s", "idx_t i", "ptr_t p", "Info info"]]
        kinds = [8 | 1 << 32, 4 | 3 << 32, 8 | 4 << 32, 24]
        resolved = ck.resolve_types(params, kinds)
        self.assertEqual([(p["type"], p["pointer"]) for p in resolved],
                         [("double", False), ("uint32_t", False), ("ptr_t", True), ("Info", False)])
        # A struct stays refused: made-up bytes would be addresses the kernel follows.
        with self.assertRaises(ck.UnsupportedArgument):
            ck.plan_launch({"params": ["opmath_t s", "Info info"], "param_kinds": [8 | 1 << 32, 24]})
        plan = ck.plan_launch({"params": ["opmath_t s", "idx_t i"], "param_kinds": [8 | 1 << 32, 4 | 3 << 32]})
        self.assertEqual([d for _, _, d in plan["args"]], [("double", 1.0), ("uint32_t", ck.INT_DEFAULT)])
        # An enumeration passes as an integer of its size, its first enumerator (0).
        plan = ck.plan_launch({"params": ["float* x", "const reduce_t how", "Wide w"],
                               "param_kinds": [8 | 4 << 32, 4 | 5 << 32, 8 | 5 << 32]})
        self.assertEqual([d for kind, _, d in plan["args"] if kind == "scalar"], [("int32_t", 0), ("int64_t", 0)])

    def probed_kinds(self, source, entry, count):
        """(size, kind) of each parameter, as nvcc writes the probe's table into the cubin."""
        with tempfile.TemporaryDirectory() as tmp:
            unit = os.path.join(tmp, "k.cu")
            with open(unit, "w") as f:
                f.write(source + ck.param_probe(source, entry, count))
            code, output, _, cubin = ck.compile_cubin(NVCC, unit, "sm_90", tmp, 300)
            self.assertEqual(code, 0, output)
            with open(cubin, "rb") as f:
                raw = _fake.elf_symbol_bytes(f.read(), ck.PARAM_KINDS)
        kinds = [int.from_bytes(raw[i:i + 8], "little") for i in range(0, len(raw), 8)]
        return [(k & 0xFFFFFFFF, k >> 32) for k in kinds]

    @unittest.skipUnless(NVCC, "nvcc not found: the probe's compile is skipped")
    def test_nvcc_states_each_parameter_in_the_cubin(self):
        # int, double (the macro), float (scalar_t), float (the typedef), two pointers, unsigned short
        self.assertEqual(self.probed_kinds(PROBED, "axpy", len(PROBED_PARAMS)),
                         [(4, 2), (8, 1), (4, 1), (4, 1), (8, 4), (8, 4), (2, 3)])

    @unittest.skipUnless(NVCC, "nvcc not found: the probe's compile is skipped")
    def test_nvcc_resolves_a_plain_kernels_typedefs(self):
        self.assertEqual(self.probed_kinds(TYPEDEF_PARAMS, "copy_rows", 3), [(4, 2), (8, 4), (8, 4)])

    @unittest.skipUnless(NVCC, "nvcc not found: the probe's compile is skipped")
    def test_nvcc_states_enumerations_with_their_size(self):
        self.assertEqual(self.probed_kinds(TYPEDEF_PARAMS, "reduce_rows", 3), [(8, 4), (4, 5), (8, 5)])


@unittest.skipUnless(NVCC, "nvcc not found ($NVCC, $CUDA_HOME/bin, $PATH, /usr/local/cuda/bin): CUDA compiles skipped")
class ThroughThePool(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.bundle = os.path.join(self.tmp.name, "b")
        os.makedirs(self.bundle)
        cuda_bundle(self.bundle, {
            1: ("tile_sum", PASS, ["const float* __restrict__ in", "float* out", "int n"]),
            2: ("add_one", PASS, ["int* x", "unsigned long long n"]),
            3: ("unknown_name", UNKNOWN, ["float* x"]),
            4: ("scale", TEMPLATE, ["T* x", "T s"]),
            5: ("axpy", PROBED, PROBED_PARAMS),
        })

    def tearDown(self):
        self.tmp.cleanup()

    def test_compile_stage_needs_no_triton(self):
        out = os.path.join(self.tmp.name, "r.jsonl")
        env = dict(os.environ, PYTHONPATH="")  # not even the Triton stand-in
        proc = subprocess.run([sys.executable, RUN_BUNDLE, self.bundle, "--out", out, "--stage", "compile",
                               "--jobs", "2"], env=env, capture_output=True, text=True, timeout=600)
        with open(out) as f:
            rows = {r["id"]: r for r in map(json.loads, f)}
        self.assertEqual(sorted(rows), [1, 2, 3, 4, 5], proc.stderr)
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        self.assertEqual(rows[1]["shared_bytes"], 1024)
        self.assertGreater(rows[1]["n_regs"], 0)
        self.assertEqual(rows[2]["symbol"], "add_one")
        self.assertEqual((rows[3]["status"], rows[3]["error_class"]), ("fail", "missing_name"))
        self.assertIn("not_declared_anywhere", rows[3]["message"])
        self.assertEqual(rows[4]["status"], "ok")  # compiles; nothing to load without an instantiation

    def test_run_stage_with_the_stand_in_driver(self):
        out = os.path.join(self.tmp.name, "r.jsonl")
        os.environ["MINE_CUDA_DRIVER"] = "fake_cuda_driver:FakeDriver"
        try:
            proc, rows = run_standin(self.bundle, out, "--stage", "run", "--devices", "0", "--jobs", "1")
        finally:
            os.environ.pop("MINE_CUDA_DRIVER")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        self.assertEqual((rows[1]["stage_reached"], rows[1]["grid"], rows[1]["block"]),
                         ("run", [-(-ck.INT_DEFAULT // 256), 1, 1], [256, 1, 1]))
        self.assertEqual(rows[1]["gpu_name"], "stand-in")
        self.assertEqual(rows[2]["status"], "ok", rows[2]["message"])
        self.assertEqual((rows[3]["stage_reached"], rows[3]["error_class"]), ("compile", "missing_name"))
        self.assertEqual((rows[4]["stage_reached"], rows[4]["error_class"]), ("load", "missing_name"))
        self.assertRegex(rows[4]["message"], r"uninstantiated template")
        # Arguments of types nvcc resolved (through the probe the harness compiled into the unit).
        self.assertEqual(rows[5]["status"], "ok", rows[5]["message"])
        self.assertEqual(rows[5]["guessed"], ["n", "scale", "alpha", "beta", "u"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
