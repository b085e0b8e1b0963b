#pragma once
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mine::inductor {

// What one Inductor-generated kernel module (the source string of `async_compile.triton`, or a
// one-kernel file of the torchinductor cache) says about its kernel.
struct KernelModule {
  std::string name;      // the @triton.jit function
  int start_line = 0;    // of that function in the module, decorators included (1-based)
  int end_line = 0;
  std::string category;  // pointwise, reduction, persistent_reduction, template, foreach, ...; empty when unknown
  std::string decorator; // the heuristics decorator as written, e.g. `triton_heuristics.pointwise`
  std::vector<std::string> parameters;
  nlohmann::json signature = nlohmann::json::object();  // parameter name -> Triton type
  nlohmann::json constants = nlohmann::json::object();
  nlohmann::json size_hints;        // list (2024-era) or dict by axis (current); null when absent
  std::set<std::string> external_modules;
};

// A module that could not be read as a kernel; `kind` is the scan_errors kind.
struct KernelModuleProblem {
  int line = 0;  // within the module, 0 when not tied to a line
  std::string kind;
  std::string message;
};

struct KernelModuleReading {
  bool ok = false;
  KernelModule kernel;
  int jit_functions = 0;  // @triton.jit functions at the module's top level (a cache file has one)
  // Those of them under a heuristics decorator: one in a cache file, also in a template's, whose
  // other @triton.jit functions are its kernel's helpers (flex attention's `forward_inner`).
  int heuristics_functions = 0;
  // Fatal when !ok ('not_python', 'no_kernel'); otherwise warnings ('unknown_decorator', 'bad_meta')
  // about a kernel that is still stored.
  std::vector<KernelModuleProblem> problems;
};

// Parses `source` as Python and reads its kernel. `preferred_name` (the name Inductor registered
// the kernel under) picks among several @triton.jit functions; may be empty.
KernelModuleReading read_kernel_module(std::string source, const std::string& preferred_name);

// Decorator names Inductor's heuristics use, by their last dotted component.
bool is_known_category(std::string_view name);

}  // namespace mine::inductor
