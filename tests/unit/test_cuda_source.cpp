// CudaSource and the embedded-source reader on inputs the fixtures do not cover: header
// classification, partly parsed kernels, hostile nesting, Python string values.
#include <catch2/catch.hpp>

#include "plugins/cuda/cuda_source.h"
#include "plugins/cuda/embedded_sources.h"

using namespace mine;

namespace {

const CudaKernelSite& only_kernel(const CudaSource& unit) {
  REQUIRE(unit.kernels().size() == 1);
  return unit.kernels()[0];
}

}  // namespace

TEST_CASE("only headers nvcc finds on its own go into a CUDA standalone", "[cuda]") {
  CudaSource unit(
      "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n#include <vector>\n"
      "#include <helper_cuda.h>\n#include \"kernels.h\"\n"
      "__global__ void k(float* x) { x[0] = 1; }\n");
  ExtractedKernel k = unit.extract(only_kernel(unit), "a.cu", 0);
  CHECK(k.standalone.find("cuda_runtime.h") != std::string::npos);
  CHECK(k.standalone.find("cooperative_groups.h") != std::string::npos);
  CHECK(k.standalone.find("<vector>") != std::string::npos);
  CHECK(k.standalone.find("helper_cuda.h") == std::string::npos);
  CHECK(k.standalone.find("kernels.h") == std::string::npos);
  CHECK_FALSE(k.self_contained);
  CHECK(k.meta["includes_left_out"] == nlohmann::json::array({"<helper_cuda.h>", "\"kernels.h\""}));
  CHECK(k.external_modules == std::set<std::string>{"cuda_runtime.h", "cooperative_groups.h", "vector"});
}

TEST_CASE("lines of an embedded CUDA source are those of the Python file", "[cuda]") {
  CudaSource unit("\n\n__global__ void k(int* x) {\n  x[0] = 1;\n}\n");
  ExtractedKernel k = unit.extract(only_kernel(unit), "a.py", 10);
  CHECK(k.start_line == 13);
  CHECK(k.end_line == 15);
}

TEST_CASE("hostile nesting neither crashes nor hangs the CUDA reader", "[cuda]") {
  std::string deep = "__global__ void k(int* x) { x[0] = " + std::string(20000, '(') + "1" + std::string(20000, ')') + "; }\n";
  std::string blocks;
  for (int i = 0; i < 3000; ++i) blocks += "namespace n" + std::to_string(i) + " {\n";
  blocks += "__global__ void inner(int* x) { x[0] = 2; }\n";
  for (int i = 0; i < 3000; ++i) blocks += "}\n";
  CudaSource a(deep);
  for (const auto& site : a.kernels()) a.extract(site, "deep.cu", 0);
  CudaSource b(blocks);
  for (const auto& site : b.kernels()) b.extract(site, "blocks.cu", 0);
  SUCCEED();
}

TEST_CASE("Python string literals read as Python would", "[cuda]") {
  std::string v;
  CHECK(python_string_value("r'a\\nb'", v));
  CHECK(v == "a\\nb");
  CHECK(python_string_value("'a\\nb\\\\c\\'d'", v));
  CHECK(v == "a\nb\\c'd");
  CHECK(python_string_value("\"\"\"x\n\"y\"\n\"\"\"", v));
  CHECK(v == "x\n\"y\"\n");
  CHECK(python_string_value("'printf(\"%d\\\\n\")'", v));
  CHECK(v == "printf(\"%d\\n\")");
  CHECK_FALSE(python_string_value("f'{x}'", v));
  CHECK_FALSE(python_string_value("b'abc'", v));
}

TEST_CASE("headers of libraries that ship outside the toolkit are not taken for toolkit ones", "[cuda]") {
  CudaSource unit(
      "#include <cupy/complex.cuh>\n#include <cub/block/block_reduce.cuh>\n#include <curand_kernel.h>\n"
      "__global__ void k(float* x) { x[0] = 1; }\n");
  ExtractedKernel k = unit.extract(only_kernel(unit), "a.cu", 0);
  CHECK(k.meta["includes_left_out"] == nlohmann::json::array({"<cupy/complex.cuh>"}));
  CHECK(k.standalone.find("cub/block/block_reduce.cuh") != std::string::npos);
  CHECK(k.standalone.find("curand_kernel.h") != std::string::npos);
}
