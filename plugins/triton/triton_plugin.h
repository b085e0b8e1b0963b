#pragma once
#include "core/plugin.h"

namespace mine {

// Triton kernels: every function whose decorator resolves to `triton.jit` through the file's
// imports (`@triton.jit`, `@tt.jit(...)`, `from triton import jit`), under autotune/heuristics
// stacks, in classes and guarded blocks, and the functional form `k = triton.jit(fn)`.
class TritonPlugin : public ExtractorPlugin {
 public:
  std::string name() const override { return "triton"; }
  std::string description() const override {
    return "Triton @triton.jit kernels (any alias, autotune/heuristics stacks, triton.jit(fn)) with their helpers";
  }
  std::vector<std::string> file_suffixes() const override { return {".py"}; }
  std::vector<std::string> prefilter_patterns() const override { return {"triton"}; }
  void extract(const FileView& file, KernelSink& sink) const override;
};

// True when the dotted name (already resolved through imports) is Triton's jit decorator.
bool is_triton_jit(const std::string& qualified_name);

}  // namespace mine
