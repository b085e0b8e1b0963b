#pragma once
#include <string>
#include <vector>

#include "core/plugin.h"
#include "plugins/inductor/kernel_module_cache.h"
#include "plugins/inductor/output_code_chunks.h"

namespace mine {

// Triton kernels that PyTorch Inductor (torch.compile) generated: every async_compile.triton(...)
// in an output_code.py (TORCH_COMPILE_DEBUG folders) or cached output-code module, and the
// one-kernel files of a torchinductor cache folder, with the graph, heuristics category,
// triton_meta signature, size hints, ATen ops and PyTorch code each came from. Nothing is executed:
// sources and metadata are read from the syntax tree.
class InductorPlugin : public ExtractorPlugin {
 public:
  // `cache_dirs`: torchinductor cache folders where a kernel's `# kernel path:` file may be read
  // when its source is not inline (`mine scan --inductor-cache`). Default: $MINE_INDUCTOR_CACHE.
  InductorPlugin();
  explicit InductorPlugin(std::vector<std::string> cache_dirs) : cache_dirs_(std::move(cache_dirs)) {}

  std::string name() const override { return "inductor"; }
  std::string description() const override {
    return "PyTorch Inductor Triton kernels (output_code.py, torchinductor cache) with graph, category, "
           "signature, size hints, ATen ops and PyTorch code; identical kernels stored once";
  }
  std::vector<std::string> file_suffixes() const override { return {".py"}; }
  std::vector<std::string> prefilter_patterns() const override {
    return {R"(async_compile\.triton\()", R"(triton_meta=)", R"(# File: .*, code: )"};
  }
  // Inductor's output is Inductor's alone: output-code modules, FX graphs, and one-kernel cache
  // files (whose kernel the triton plugin would otherwise store a second time).
  bool claims(const FileView& file) const override;
  void extract(const FileView& file, KernelSink& sink) const override;

  // The ':'-separated folders of $MINE_INDUCTOR_CACHE.
  static std::vector<std::string> cache_dirs_from_env();

 private:
  static bool is_fx_graph(const FileView& file);
  std::shared_ptr<const inductor::KernelModuleReading> cache_kernel(const FileView& file) const;

  std::vector<std::string> cache_dirs_;
  mutable inductor::KernelModuleCache modules_;
  mutable inductor::ChunkReadings chunks_;
};

}  // namespace mine
