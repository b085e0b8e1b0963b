// What `mine check` does about kernels whose standalone is not the kernel's fault to fail:
// the kernel-only module (the @triton.jit function without its launch wrappers, plus the closure
// of its body) and the jitted helpers that are compiled inside their callers, not alone.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/check/kernel_only_module.h"
#include "corpus/check_store.h"
#include "test_check_corpus.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

const char* kWrappedStandalone = R"(import os
import triton
import triton.language as tl

from vendor_runtime import probe


def libentry():
    return lambda f: f


TUNED = probe("add")
SCALE = 2.0


@triton.jit
def _twice(x):
    return x * SCALE


@libentry()
@triton.autotune(configs=TUNED, key=["n"])
@triton.jit(do_not_specialize=["n"])
def add_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, _twice(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
)";

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

TEST_CASE("the kernel-only module keeps the jit and the body's closure, nothing the wrappers need",
          "[check][kernel_only]") {
  auto module = check::kernel_only_module(kWrappedStandalone, "add_kernel");
  REQUIRE(module);
  const std::string expected = R"(import triton
import triton.language as tl


SCALE = 2.0


@triton.jit
def _twice(x):
    return x * SCALE


@triton.jit(do_not_specialize=["n"])
def add_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, _twice(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
)";
  CHECK(*module == expected);
}

TEST_CASE("the kernel-only module drops jit options the standalone cannot bind", "[check][kernel_only]") {
  // A kernel a parametrized test defined inside itself, hoisted with `debug` unresolved.
  auto module = check::kernel_only_module(
      "import triton\nimport triton.language as tl\n\n\n@triton.jit(debug=debug)\ndef k(x_ptr):\n    tl.store(x_ptr, 1)\n",
      "k");
  REQUIRE(module);
  CHECK(module->find("@triton.jit\ndef k(x_ptr):") != std::string::npos);
  CHECK(module->find("debug") == std::string::npos);
  // Options it can bind stay, and then there is nothing to cut.
  CHECK_FALSE(check::kernel_only_module(
      "import triton\n\nDEBUG = True\n\n@triton.jit(debug=DEBUG)\ndef k(x):\n    pass\n", "k"));
}

TEST_CASE("no kernel-only module when there is nothing to cut or no jitted entry", "[check][kernel_only]") {
  CHECK_FALSE(check::kernel_only_module("import triton\n\n@triton.jit\ndef k(x):\n    pass\n", "k"));
  CHECK_FALSE(check::kernel_only_module("import triton\n\n@triton.jit\ndef k(x):\n    pass\n", "missing"));
  CHECK_FALSE(check::kernel_only_module("import functools\n\n@functools.cache\ndef k(x):\n    pass\n", "k"));
  CHECK_FALSE(check::kernel_only_module("def k(:\n", "k"));
  // `k = triton.jit(fn)`: the entry is no decorated function.
  CHECK_FALSE(check::kernel_only_module("import triton\n\ndef body(x):\n    pass\n\nk = triton.jit(body)\n", "k"));
}

TEST_CASE("jitted helpers are the kernels another kernel of the repository calls", "[check][helpers]") {
  fs::path dir = fs::temp_directory_path() / ("mine_helpers_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  write(dir / "pkg" / "__init__.py", "");
  write(dir / "pkg" / "math_helpers.py",
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef fast_exp(x):\n    return tl.exp(x)\n\n\n"
        "@triton.jit\ndef unused_helper(x):\n    return x\n");
  write(dir / "pkg" / "kernels.py",
        "import triton\nimport triton.language as tl\n\nfrom .math_helpers import fast_exp\n\n\n"
        "@triton.jit\ndef _square(x):\n    return x * x\n\n\n"
        "@triton.jit\ndef softplus_kernel(x_ptr, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n    x = tl.load(x_ptr + offs)\n"
        "    tl.store(x_ptr + offs, _square(fast_exp(x)))\n");
  {
    testing::CheckCorpus corpus(dir.string());
    auto ro = corpus.read_only();
    std::set<int64_t> helpers = jitted_helper_kernels(*ro);
    std::set<std::string> names;
    for (const auto& k : select_check_kernels(*ro, "", 0))
      if (helpers.count(k.id)) names.insert(k.name);
    CHECK(names == std::set<std::string>{"_square", "fast_exp"});
    CHECK(select_check_kernels(*ro, "", 0).size() == 4);
  }
  fs::remove_all(dir);
}

TEST_CASE("a jitted function that returns a value is a device function", "[check][helpers]") {
  auto m = PythonModule::build("k.py",
                               "import triton\n\n@triton.jit\ndef entry(x_ptr):\n    def inner():\n        return 1\n"
                               "    if inner():\n        return\n    tl.store(x_ptr, 1)\n\n"
                               "@triton.jit\ndef device(x):\n    if x > 0:\n        return x * 2\n    return -x\n");
  const FunctionSite* entry = check::entry_function(*m, "entry");
  const FunctionSite* device = check::entry_function(*m, "device");
  REQUIRE(entry);
  REQUIRE(device);
  CHECK_FALSE(check::returns_value(*m, *entry));  // a bare return and a nested def's return do not count
  CHECK(check::returns_value(*m, *device));
  CHECK(check::entry_function(*m, "inner") == nullptr);
}

TEST_CASE("a guarded block that calls the module's own functions comes after them in the kernel-only module",
          "[check][kernel_only]") {
  // FlagGems picks its math shim in `try: set_backend(device.vendor) / except ImportError:`;
  // hoisted above `def set_backend` with the plain import fallbacks, it raised NameError.
  const char* standalone = R"(import triton
import triton.language as tl
try:
    import fast_math as shim_lib
except ImportError:
    shim_lib = None


def set_backend(name):
    return getattr(tl, name)


class Detector:
    vendor = "math"


device = Detector()
try:
    shim = set_backend(device.vendor)
except ImportError:
    shim = tl.math
rsqrt = shim.rsqrt


def wrapper():
    return lambda f: f


@wrapper()
@triton.jit
def norm_kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, rsqrt(tl.load(x_ptr + offs)) if shim_lib is None else 0.0)
)";
  auto module = check::kernel_only_module(standalone, "norm_kernel");
  REQUIRE(module);
  size_t import_guard = module->find("import fast_math");
  size_t def_backend = module->find("def set_backend");
  size_t device = module->find("device = Detector()");
  size_t guarded = module->find("shim = set_backend(device.vendor)");
  size_t use = module->find("rsqrt = shim.rsqrt");
  REQUIRE(import_guard != std::string::npos);
  REQUIRE(def_backend != std::string::npos);
  REQUIRE(device != std::string::npos);
  REQUIRE(guarded != std::string::npos);
  REQUIRE(use != std::string::npos);
  CHECK(import_guard < def_backend);  // a guard of imports alone still goes first
  CHECK(def_backend < guarded);
  CHECK(device < guarded);
  CHECK(guarded < use);
  CHECK(module->find("def wrapper") == std::string::npos);
}
