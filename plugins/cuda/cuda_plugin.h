#pragma once
#include "core/plugin.h"

namespace mine {

// CUDA C++: `__global__` kernels of .cu/.cuh/.cuda files with the same-file `__device__` helpers,
// macros, constants, types and templates they reach, and every include; plus CUDA source held in
// Python strings handed to `cupy.RawKernel`, `cupy.RawModule` and
// `torch.utils.cpp_extension.load_inline(cuda_sources=...)`.
class CudaPlugin : public ExtractorPlugin {
 public:
  std::string name() const override { return "cuda"; }
  std::string description() const override {
    return "CUDA C++ __global__ kernels (.cu/.cuh/.cuda, cupy RawKernel/RawModule and load_inline strings) with "
           "their same-unit helpers";
  }
  std::vector<std::string> file_suffixes() const override { return {".cu", ".cuh", ".cuda", ".py"}; }
  std::vector<std::string> prefilter_patterns() const override {
    return {"__global__"};  // embedded sources carry it too, so one pattern serves both
  }
  void extract(const FileView& file, KernelSink& sink) const override;
};

}  // namespace mine
