#include "plugins/registry.h"

#include "core/plugin_loader/plugin_host.h"
#include "plugins/cuda/cuda_plugin.h"
#include "plugins/inductor/inductor_plugin.h"
#include "plugins/numba/numba_plugin.h"
#include "plugins/torch_module/torch_module_plugin.h"
#include "plugins/triton/triton_plugin.h"

namespace mine {
namespace {

// What `mine crawl` searches GitHub for on behalf of each built-in plugin. Code search words are
// what a file with such a kernel must contain; the extensions keep matches to files the plugin
// reads (the scanner reads the Python cells of notebooks for every Python plugin).
const char* const kPythonFiles[] = {"py", "ipynb", nullptr};
const char* const kCudaFiles[] = {"cu", "cuh", nullptr};
const char* const kTritonTerms[] = {"triton.jit", "triton.autotune", nullptr};
const char* const kTritonTopics[] = {"triton", nullptr};
const char* const kCudaTerms[] = {"__global__", nullptr};
const char* const kCudaTopics[] = {"cuda-kernels", nullptr};
const char* const kNumbaTerms[] = {"cuda.jit", nullptr};
const mine_discovery_hints kTritonHints = {MINE_PLUGIN_ABI_VERSION, kTritonTerms, kPythonFiles, kTritonTopics};
const mine_discovery_hints kCudaHints = {MINE_PLUGIN_ABI_VERSION, kCudaTerms, kCudaFiles, kCudaTopics};
const mine_discovery_hints kNumbaHints = {MINE_PLUGIN_ABI_VERSION, kNumbaTerms, kPythonFiles, nullptr};

// Inductor's kernels are generated code that repositories rarely commit: no hints.
const mine_discovery_hints* hints_for(const mine_plugin_info* info) {
  if (info == triton_plugin()) return &kTritonHints;
  if (info == cuda_plugin()) return &kCudaHints;
  if (info == numba_plugin()) return &kNumbaHints;
  return nullptr;
}

}  // namespace

const std::vector<const mine_plugin_info*>& builtin_plugin_infos() {
  static const std::vector<const mine_plugin_info*> infos = {triton_plugin(), inductor_plugin_info(), numba_plugin(),
                                                             cuda_plugin(), torch_module_plugin()};
  return infos;
}

const std::vector<std::unique_ptr<ExtractorPlugin>>& builtin_plugins() {
  static const std::vector<std::unique_ptr<ExtractorPlugin>> plugins = [] {
    std::vector<std::unique_ptr<ExtractorPlugin>> v;
    for (const mine_plugin_info* info : builtin_plugin_infos()) 
      v.push_back(std::make_unique<CAbiPlugin>(info, "built-in", hints_for(info)));
    return v;
  }();
  return plugins;
}

}  // namespace mine
