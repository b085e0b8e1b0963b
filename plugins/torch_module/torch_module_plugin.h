#pragma once
#include "include/mine/plugin.h"

namespace mine {

// PyTorch modules: every module-level class that extends torch.nn.Module (through any alias,
// through module classes of the file, or through a class imported from elsewhere when it
// defines forward), with a usable forward. Each is reported with its standalone (the same
// closure as every Python kernel), its __init__/forward signatures, the submodules __init__
// builds and the inputs inferred for it (input_inference.h), for the harness's inductor stage.
// Speaks only include/mine/plugin.h.
const mine_plugin_info* torch_module_plugin();

}  // namespace mine
