#pragma once
// Kernels written for another accelerator than the CUDA GPU `mine check` runs on: Triton has
// vendor forks (Ascend, Cambricon, Kunlunxin, Moore Threads, MetaX, ...) whose kernels use
// their own extensions and limits, and multi-backend repositories keep them apart by vendor.
// The check still runs them; their results carry the target so that a failure there reads as
// "written for Ascend", and rates can be read over the kernels meant for this GPU.
#include <optional>
#include <string>

namespace mine::check {

struct KernelTarget {
  std::string backend;   // "ascend", "cambricon", ...
  std::string evidence;  // what said so: the module the kernel imports, or its backend folder
};

// From what the standalone imports first (`torch_npu`, `triton.language.extra.mlu`), else from a
// folder of `path` named for a vendor backend (`backend/_ascend/`, `backends/triton_ascend/`).
std::optional<KernelTarget> other_backend(const std::string& path, const std::string& standalone);

}  // namespace mine::check
