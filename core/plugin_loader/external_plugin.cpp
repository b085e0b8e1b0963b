#include "core/plugin_loader/external_plugin.h"

#include <dlfcn.h>

#include "core/error.h"

namespace mine {
namespace {

void* open_library(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw Error("cannot load plugin " + library + ": " + dlerror());
  return handle;
}

const mine_plugin_info* load(const std::string& library) {
  void* handle = open_library(library);
  auto entry = reinterpret_cast<mine_plugin_entry_fn>(dlsym(handle, "mine_plugin_entry"));
  if (!entry) {
    dlclose(handle);
    throw Error(library + " is not a mine plugin: it exports no mine_plugin_entry");
  }
  const mine_plugin_info* info = entry(MINE_PLUGIN_ABI_VERSION);
  if (!info) throw Error("plugin " + library + " refused this mine's plugin ABI " + std::to_string(MINE_PLUGIN_ABI_VERSION));
  return info;
}

// The optional second entry point (include/mine/plugin.h): plugins without it have no hints.
// dlopen of a library already loaded returns the same handle, so this opens nothing new.
const mine_discovery_hints* load_hints(const std::string& library) {
  void* handle = open_library(library);
  auto entry = reinterpret_cast<mine_plugin_discovery_fn>(dlsym(handle, "mine_plugin_discovery"));
  return entry ? entry(MINE_PLUGIN_ABI_VERSION) : nullptr;
}

}  // namespace

ExternalPlugin::ExternalPlugin(const std::string& library)
    : CAbiPlugin(load(library), library, load_hints(library)) {}

}  // namespace mine
