#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/python/module_model.h"

namespace mine {

// Parsed modules of one scan, shared by the worker threads. Files that passed the prefilter
// land here as they are extracted; files that did not are parsed only when some kernel imports
// from them, once, whichever thread asks first (the others wait for that parse).
class ModuleCache {
 public:
  // Text of a file, or nullopt when it cannot be used (unreadable, binary, not UTF-8).
  using Load = std::function<std::optional<std::string>()>;

  // The module at `path`, or nullptr when it could not be read or analysed (then `error`, when
  // given, says why the analysis failed). Stays valid as long as the cache lives.
  const PythonModule* get(const std::string& path, const Load& load, std::string* error = nullptr);
  size_t size() const;

 private:
  struct Slot {
    std::once_flag once;
    std::unique_ptr<PythonModule> module;
    std::string error;
  };
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<Slot>> slots_;
};

}  // namespace mine
