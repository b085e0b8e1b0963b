#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/plugin.h"

namespace mine {

// One plugin available to a run, and where it came from.
struct AvailablePlugin {
  const ExtractorPlugin* plugin = nullptr;
  std::string origin;  // "built-in", or the file it was loaded from
};

// Built-in plugins plus those found in plugin folders: shared libraries (*.so, *.dylib) speaking
// include/mine/plugin.h, and declarative plugins (*.json manifests naming a tree-sitter query).
class PluginSet {
 public:
  // Folders from `dirs` (--plugin-dir), then from $MINE_PLUGIN_PATH (':'-separated; folders
  // that do not exist are skipped there, as in $PATH). Throws
  // mine::Error when a plugin cannot be loaded (an ABI mismatch names both versions) or when
  // two plugins share a name: scanning with a plugin silently missing would mislead.
  static PluginSet load(const std::vector<std::string>& dirs);

  const std::vector<AvailablePlugin>& available() const { return available_; }
  std::vector<const ExtractorPlugin*> plugins() const;

 private:
  std::vector<std::unique_ptr<ExtractorPlugin>> owned_;
  std::vector<AvailablePlugin> available_;
};

// The folders `load` would search: `dirs`, then $MINE_PLUGIN_PATH.
std::vector<std::string> plugin_directories(const std::vector<std::string>& dirs);

}  // namespace mine
