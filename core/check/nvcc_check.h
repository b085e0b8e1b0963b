#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace mine::check {

// nvcc for the CUDA checker: $NVCC when set (and nothing else then), else $CUDA_HOME/bin/nvcc,
// nvcc on $PATH, /usr/local/cuda/bin/nvcc. Empty when there is none.
std::string find_nvcc();

// Where find_nvcc looked, for the message that says CUDA kernels were skipped.
std::string nvcc_search_description();

struct NvccLimits {
  std::string arch = "sm_90";
  double timeout_s = 60;         // wall clock, for nvcc and every process it starts
  int64_t mem_limit_mb = 8192;   // address space of each of them (0: none)
};

// One CUDA kernel's standalone translation unit.
struct CudaUnit {
  int64_t id = 0;
  std::string name;        // the kernel's own name, as in the source
  std::string standalone;
  // Macros the repository's build defines with values its code does not fix, which the plugin
  // left out (meta.build_defines_left_out): named with a failure, whose cause they likely are.
  nlohmann::json build_defines_left_out = nlohmann::json::array();
};

// What ptxas reported for one entry function (`--resource-usage`).
struct PtxasUsage {
  std::string symbol;  // mangled name of the entry
  std::optional<int64_t> registers, spill_store_bytes, spill_load_bytes, shared_bytes, stack_bytes, cmem_bytes;
};

// The entry function of kernel `name` in nvcc's --resource-usage output: the unmangled name
// (extern "C") or an Itanium-mangled name holding `<length><name>`. Templates without an
// instantiation have no entry: nullopt.
std::optional<PtxasUsage> ptxas_usage(const std::string& output, const std::string& name);

// Class of a failed compile from nvcc's diagnostics (same vocabulary as kernels/harness/classify.py;
// kernels/harness/cuda_kernel.py reads them the same way): syntax, missing_name, type_error,
// unsupported_op, resource_limit or other.
std::string classify_nvcc_error(const std::string& output);

// `nvcc -cubin -arch=<arch> --resource-usage` of the unit, in a private folder under `work_dir`,
// as a child in its own process group under the limits. Returns a result row in
// run_bundle.py's results format (kernels/harness/BUNDLE.md), stage compile, ready for
// read_check_results. Never throws for the kernel's own failures; throws mine::Error when the
// work folder cannot be written.
nlohmann::json nvcc_check(const std::string& nvcc, const CudaUnit& unit, const NvccLimits& limits,
                          const std::string& work_dir);

// "release 13.0, V13.0.88" from `nvcc --version`, or empty.
std::string nvcc_version(const std::string& nvcc);

}  // namespace mine::check
