#include "core/repo/module_cache.h"

#include "core/error.h"

namespace mine {

const PythonModule* ModuleCache::get(const std::string& path, const Load& load, std::string* error) {
  Slot* slot;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& entry = slots_[path];
    if (!entry) entry = std::make_unique<Slot>();
    slot = entry.get();
  }
  std::call_once(slot->once, [&] {
    std::optional<std::string> text = load();
    if (!text) return;
    try {
      slot->module = PythonModule::build(path, std::move(*text));
    } catch (const Error& e) {
      slot->error = e.what();  // nested too deep to analyse: importers see its names as unresolved
    }
  });
  if (error) *error = slot->error;
  return slot->module.get();
}

size_t ModuleCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return slots_.size();
}

}  // namespace mine
