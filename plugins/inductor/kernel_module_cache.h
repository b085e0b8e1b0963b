#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "plugins/inductor/kernel_module.h"

namespace mine::inductor {

// Readings of kernel modules by their exact text. Inductor emits the same kernel for many graphs
// and models, so each distinct module is parsed once per process rather than once per place it
// appears. Shared by the scanner's threads; bounded, it starts over when full.
class KernelModuleCache {
 public:
  explicit KernelModuleCache(size_t max_bytes = 64u << 20) : max_bytes_(max_bytes) {}
  std::shared_ptr<const KernelModuleReading> read(const std::string& source, const std::string& preferred_name);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const KernelModuleReading>> readings_;
  size_t bytes_ = 0;
  size_t max_bytes_;
};

}  // namespace mine::inductor
