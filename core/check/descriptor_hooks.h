#pragma once
// Blocks that an autotune pre-hook gives host-built TMA descriptors. A launcher often builds its
// descriptors with a placeholder block (`TensorDescriptor(x, x.shape, x.stride(), [1, 1])`) and
// lets each config's `pre_hook` set the real one from the config's constexprs:
//
//   def set_block_size_hook(nargs):
//       BLOCK_M = nargs["BLOCK_M"]
//       nargs["a_desc"].block_shape = [BLOCK_M, nargs["BLOCK_K"]]
//
// as Triton's persistent-matmul tutorial does. The check compiles the kernel without its
// autotuner, so the block must come from here.
#include <map>
#include <string>
#include <vector>

#include "core/check/decorator_facts.h"
#include "core/python/module_model.h"

namespace mine::check {

// Per descriptor parameter, the block the module's pre-hooks (functions handed as `pre_hook=`
// anywhere in the module) set, with the hook's `nargs[...]` read from `known` (the kernel's
// constexprs). Under an `if` the hook's condition decides where it evaluates, else the branch
// that sets the block; a block that does not evaluate to positive integers is left out.
std::map<std::string, std::vector<int64_t>> hook_descriptor_blocks(const PythonModule& m, const Env& known);

}  // namespace mine::check
