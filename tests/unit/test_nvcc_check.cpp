// The CUDA C checker's readers of nvcc output: the entry's resource usage and the class of a
// failure (the same table as kernels/harness/cuda_kernel.py, checked on shared cases).
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/check/nvcc_check.h"

using namespace mine::check;

namespace {

const char* kUsage =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Compiling entry function 'cfun' for 'sm_90'\n"
    "ptxas info    : Function properties for cfun\n"
    "    2400 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
    "ptxas info    : Used 40 registers, used 0 barriers, 2400 bytes cumulative stack size\n"
    "ptxas info    : Compiling entry function '_ZN2ns4vaddEPKfS1_Pfi' for 'sm_90'\n"
    "ptxas info    : Function properties for _ZN2ns4vaddEPKfS1_Pfi\n"
    "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 14 registers, used 1 barriers, 1024 bytes smem\n";

}  // namespace

TEST_CASE("ptxas usage of an entry, mangled or extern C", "[check][nvcc]") {
  auto v = ptxas_usage(kUsage, "vadd");
  REQUIRE(v);
  CHECK(v->symbol == "_ZN2ns4vaddEPKfS1_Pfi");
  CHECK(v->registers == 14);
  CHECK(v->shared_bytes == 1024);
  CHECK(v->spill_store_bytes == 0);
  auto c = ptxas_usage(kUsage, "cfun");
  REQUIRE(c);
  CHECK(c->registers == 40);
  CHECK(c->shared_bytes == 0);
  CHECK(c->spill_store_bytes == 8);
  CHECK(c->stack_bytes == 2400);
  CHECK_FALSE(ptxas_usage(kUsage, "add"));  // "vadd" holds "add" but not as <3>add
  // nvcc names an anonymous namespace after the unit, ending in digits (`..._27404`), right
  // before the kernel's length: the name is read by the lengths the symbol spells.
  std::string anonymous = kUsage;
  const std::string vadd = "_ZN2ns4vaddEPKfS1_Pfi";
  for (size_t at = anonymous.find(vadd); at != std::string::npos; at = anonymous.find(vadd))
    anonymous.replace(at, vadd.size(), "_ZN45_GLOBAL__N__fa5324bc_7_k820_cu_1e626000_2740426_row_sparse_encode_2d_kernIfEEvPKT_Piiii");
  auto a = ptxas_usage(anonymous, "_row_sparse_encode_2d_kern");
  REQUIRE(a);
  CHECK(a->registers == v->registers);
  CHECK_FALSE(ptxas_usage(anonymous, "encode_2d_kern"));
}

TEST_CASE("nvcc failures are classified like the harness does", "[check][nvcc]") {
  std::ifstream in(std::string(MINE_FIXTURES_DIR) + "/cuda_check/nvcc_diagnostics.json");
  auto doc = nlohmann::json::parse(in);
  REQUIRE(doc["cases"].size() >= 8);
  for (const auto& c : doc["cases"]) {
    INFO(c[0].get<std::string>());
    CHECK(classify_nvcc_error("ptxas info : 0 bytes gmem\n" + c[0].get<std::string>()) == c[1].get<std::string>());
  }
}
