#include "plugins/inductor/kernel_module_cache.h"

namespace mine::inductor {

std::shared_ptr<const KernelModuleReading> KernelModuleCache::read(const std::string& source,
                                                                   const std::string& preferred_name) {
  std::string key = preferred_name;
  key += '\0';
  key += source;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = readings_.find(key);
    if (found != readings_.end()) return found->second;
  }
  // Parsed outside the lock: two threads may read the same new module once each, which is
  // cheaper than making every thread wait on one parse.
  auto reading = std::make_shared<const KernelModuleReading>(read_kernel_module(source, preferred_name));
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes_ + key.size() > max_bytes_) {
    readings_.clear();
    bytes_ = 0;
  }
  if (readings_.emplace(key, reading).second) bytes_ += key.size();
  return reading;
}

}  // namespace mine::inductor
