#include "core/plugin_loader/external_plugin.h"

#include <dlfcn.h>

#include "core/error.h"

namespace mine {
namespace {

const mine_plugin_info* load(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw Error("cannot load plugin " + library + ": " + dlerror());
  auto entry = reinterpret_cast<mine_plugin_entry_fn>(dlsym(handle, "mine_plugin_entry"));
  if (!entry) {
    dlclose(handle);
    throw Error(library + " is not a mine plugin: it exports no mine_plugin_entry");
  }
  const mine_plugin_info* info = entry(MINE_PLUGIN_ABI_VERSION);
  if (!info) throw Error("plugin " + library + " refused this mine's plugin ABI " + std::to_string(MINE_PLUGIN_ABI_VERSION));
  return info;
}

}  // namespace

ExternalPlugin::ExternalPlugin(const std::string& library) : CAbiPlugin(load(library), library) {}

}  // namespace mine
