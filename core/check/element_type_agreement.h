#pragma once
// After every fact source has typed the pointers, the element types that must agree with one
// another: a copy's two sides, a tl.dot's two operands, the tensors a launcher leaves open beside
// the one floating type it fixes; and which pointers are fp32 only for want of evidence
// (`assumed_fp32`, which the harness may retype when a tl.dot names the width), with the dtype
// constexprs left at an fp32 default where the launch hands one the scan could not read.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/check/launch_facts.h"
#include "core/check/pointer_usage.h"
#include "core/check/signature_inference.h"

namespace mine::check {

struct ElementTypeInputs {
  std::map<std::string, InferredParam>& by_name;    // the resolver's parameters, updated in place
  const PointerFacts& facts;                        // what the kernel body says
  const std::map<std::string, LaunchFact>& launched;  // what the chosen launch says
  bool launcher_chosen;                             // whether a launch was followed at all
  const std::vector<std::string>& order;            // parameter order, for `assumed_fp32`
  const std::set<std::string>& launch_unresolved;   // parameters the chosen launch binds to what the scan could not evaluate
};

void agree_element_types(const ElementTypeInputs& in, InferredSignature& out);

}  // namespace mine::check
