#pragma once
#include <string>
#include <vector>

#include "core/plugin_loader/plugin_host.h"
#include "plugins/inductor/kernel_module_cache.h"
#include "plugins/inductor/output_code_chunks.h"

namespace mine {

// What the Inductor plugin keeps between files: handed to its C ABI extract and claims as the
// context.
struct InductorState {
  explicit InductorState(std::vector<std::string> cache_dirs);
  std::vector<std::string> cache_dirs;
  mutable inductor::KernelModuleCache modules;
  mutable inductor::ChunkReadings chunks;
  mine_plugin_info info;
};

// The built-in Inductor plugin's description, cache folders from $MINE_INDUCTOR_CACHE.
const mine_plugin_info* inductor_plugin_info();

// Triton kernels that PyTorch Inductor (torch.compile) generated: every async_compile.triton(...)
// in an output_code.py (TORCH_COMPILE_DEBUG folders) or cached output-code module, and the
// one-kernel files of a torchinductor cache folder, with the graph, heuristics category,
// triton_meta signature, size hints, ATen ops and PyTorch code each came from. Nothing is executed:
// sources and metadata are read from the syntax tree. It claims those files (they are Inductor's
// alone: its cache files hold @triton.jit kernels the triton plugin would store a second time).
// It speaks include/mine/plugin.h; this class only pairs its state with the adapter every C ABI
// plugin runs behind.
class InductorPlugin : private InductorState, public CAbiPlugin {
 public:
  // `cache_dirs`: torchinductor cache folders where a kernel's `# kernel path:` file may be read
  // when its source is not inline (`mine scan --inductor-cache`). Default: $MINE_INDUCTOR_CACHE.
  InductorPlugin();
  explicit InductorPlugin(std::vector<std::string> cache_dirs);

  // The ':'-separated folders of $MINE_INDUCTOR_CACHE.
  static std::vector<std::string> cache_dirs_from_env();
};

}  // namespace mine
