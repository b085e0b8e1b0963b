#include "plugins/registry.h"

#include "core/plugin_loader/plugin_host.h"
#include "plugins/cuda/cuda_plugin.h"
#include "plugins/inductor/inductor_plugin.h"
#include "plugins/numba/numba_plugin.h"
#include "plugins/triton/triton_plugin.h"

namespace mine {
const std::vector<const mine_plugin_info*>& builtin_plugin_infos() {
  static const std::vector<const mine_plugin_info*> infos = {triton_plugin(), inductor_plugin_info(), numba_plugin(),
                                                             cuda_plugin()};
  return infos;
}

const std::vector<std::unique_ptr<ExtractorPlugin>>& builtin_plugins() {
  static const std::vector<std::unique_ptr<ExtractorPlugin>> plugins = [] {
    std::vector<std::unique_ptr<ExtractorPlugin>> v;
    for (const mine_plugin_info* info : builtin_plugin_infos()) v.push_back(std::make_unique<CAbiPlugin>(info, "built-in"));
    return v;
  }();
  return plugins;
}

}  // namespace mine
