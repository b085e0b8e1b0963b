#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/check/signature_inference.h"
#include "core/python/module_model.h"

namespace mine::check {

// Inductor kernels checked, and exported, independently of the Inductor runtime that wrote them.
//
// A 2024 Inductor module opens with `from triton.compiler.compiler import AttrsDescriptor` and
// wraps its kernel in `@triton_heuristics.pointwise(size_hints=[...], triton_meta={...})`. Today's
// Triton has no AttrsDescriptor and today's heuristics take other arguments, so the module no
// longer imports; the @triton.jit function inside it is plain Triton all the same. Its
// kernel-only form is that function with the imports its body really uses (triton,
// triton.language, triton_helpers, libdevice, ...), without the header and the decorator;
// helpers imported from where torch <= 2.3 kept them come from torch._inductor.runtime.
// nullopt when the standalone cannot be read or holds no module-level @triton.jit `entry`.
std::optional<std::string> inductor_kernel_only(const PythonModule& standalone, const std::string& entry);
std::optional<std::string> inductor_kernel_only(const std::string& standalone, const std::string& entry);

// What triton_meta['configs'] promised about the arguments, by parameter name: divisible by 16
// (pointers and sizes) and equal to 1. Read from every layout Inductor wrote:
// `instance_descriptor(divisible_by_16=(0, 1), equal_to_1=())` (2023),
// `AttrsDescriptor(divisible_by_16=(...), equal_to_1=(...))` (2024),
// `AttrsDescriptor.from_dict({'arg_properties': {'tt.divisibility': (...), 'tt.equal_to': (...)}})`
// and `{(0,): [['tt.divisibility', 16]], ...}` (2025 on). Indices count the kernel's parameters.
struct InductorSpecialization {
  std::vector<std::string> divisible_by_16;
  std::vector<std::string> equal_to_1;
};
InductorSpecialization inductor_specialization(const std::string& standalone, const std::vector<std::string>& params);

// Carries a specialization into a kernel's launch description the way the Triton of the
// kernel's era did: equal_to_1 parameters become constexprs of value 1 (read from the meta, not
// guessed). Returns the bundle's `attrs` ({param: [["tt.divisibility", 16]]}) for the rest.
nlohmann::ordered_json apply_specialization(const InductorSpecialization& s, InferredSignature& signature);

}  // namespace mine::check
