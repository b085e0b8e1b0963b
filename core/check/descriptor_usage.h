#pragma once
// Host-built TMA descriptors a kernel is handed instead of pointers: `a_desc.load([offs_m,
// offs_k])` on a TensorDescriptor (Triton 3.4 and later) and `tl._experimental_descriptor_load(
// a_desc_ptr, [offs_m, offs_k], [BLOCK_M, BLOCK_K], tl.float16)` (Triton 3.0 to 3.3). The harness
// builds a descriptor for such a parameter; its type names the block shape and element type,
// which the kernel's own calls state or imply.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/check/decorator_facts.h"
#include "core/python/module_model.h"

namespace mine::check {

struct DescriptorUse {
  TSNode call{};                 // the load or store, for the branch it sits in
  std::vector<TSNode> block;     // one expression per dimension: the shape given, else the block
                                 // constexpr each offset steps by (`pid_m * BLOCK_M`)
  TSNode dtype{};                // the element type the call states, if any
  TSNode stored{};               // the value a store writes, whose `.to(T)` can name the type
  size_t leading_ones = 0;       // dims before a reshape's, a block of 1 (see descriptor_uses)
};

// Every use of each parameter in `params` as a descriptor, in source order.
std::map<std::string, std::vector<DescriptorUse>> descriptor_uses(const PythonModule& m, TSNode body,
                                                                  const std::vector<std::string>& params,
                                                                  const std::set<std::string>& constexprs);

// The type text of a descriptor of `dtype` elements and that block: "tensordesc<fp16[128, 64]>".
std::string tensordesc_type(const std::string& dtype, const std::vector<int64_t>& block);
// The element type of such a type text ("fp16"), or "" for any other type.
std::string tensordesc_dtype(const std::string& type);

// The element type the uses state or imply (a type named, a stored value's conversion, a load
// dotted beside a cast), or "".
std::string descriptor_dtype(const PythonModule& m, TSNode body, const std::vector<DescriptorUse>& uses, const Env& known);

// "tensordesc<fp16[128, 64]>" for the first use `known` does not rule out, or "" when its block
// does not evaluate.
std::string descriptor_type(const PythonModule& m, TSNode body, const std::vector<DescriptorUse>& uses, const Env& known);

// Descriptor types of `params` the kernel does not use itself but hands to helpers of its module
// that load or store through them (`_attn_bwd_inner(desc_q, ...)`); the helper's blocks evaluate
// with what the kernel hands its other parameters. One level of helpers.
std::map<std::string, std::string> handed_descriptor_types(const PythonModule& m, TSNode body,
                                                           const std::set<std::string>& params, const Env& known);

}  // namespace mine::check
