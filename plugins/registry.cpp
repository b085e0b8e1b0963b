#include "plugins/registry.h"

#include "plugins/cuda/cuda_plugin.h"
#include "plugins/inductor/inductor_plugin.h"
#include "plugins/numba/numba_plugin.h"
#include "plugins/triton/triton_plugin.h"

namespace mine {

const std::vector<std::unique_ptr<ExtractorPlugin>>& builtin_plugins() {
  static const std::vector<std::unique_ptr<ExtractorPlugin>> plugins = [] {
    std::vector<std::unique_ptr<ExtractorPlugin>> v;
    v.push_back(std::make_unique<TritonPlugin>());
    v.push_back(std::make_unique<InductorPlugin>());
    v.push_back(std::make_unique<NumbaPlugin>());
    v.push_back(std::make_unique<CudaPlugin>());
    return v;
  }();
  return plugins;
}

}  // namespace mine
