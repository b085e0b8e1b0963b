#pragma once
#include <string>
#include <vector>

#include "core/plugin_loader/plugin_host.h"
#include "plugins/inductor/kernel_module_cache.h"

namespace mine {

// What the Inductor plugin keeps between files: handed to its C ABI extract as the context.
struct InductorState {
  explicit InductorState(std::vector<std::string> cache_dirs);
  std::vector<std::string> cache_dirs;
  mutable inductor::KernelModuleCache modules;
  mine_plugin_info info;
};

// The built-in Inductor plugin's description, cache folders from $MINE_INDUCTOR_CACHE.
const mine_plugin_info* inductor_plugin_info();

// Triton kernels that PyTorch Inductor (torch.compile) generated: every async_compile.triton(...)
// in an output_code.py (TORCH_COMPILE_DEBUG folders) or cached output-code module, and the
// one-kernel files of a torchinductor cache folder, with the graph, heuristics category,
// triton_meta signature, size hints, ATen ops and PyTorch code each came from. Nothing is executed:
// sources and metadata are read from the syntax tree. It speaks include/mine/plugin.h; this class
// only pairs its state with the adapter every C ABI plugin runs behind.
class InductorPlugin : private InductorState, public CAbiPlugin {
 public:
  // `cache_dirs`: torchinductor cache folders where a kernel's `# kernel path:` file may be read
  // when its source is not inline. Default: the ':'-separated $MINE_INDUCTOR_CACHE.
  InductorPlugin();
  explicit InductorPlugin(std::vector<std::string> cache_dirs);
};

}  // namespace mine
