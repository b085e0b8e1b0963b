#include "core/plugin_loader/plugin_set.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include "core/error.h"
#include "core/plugin_loader/declarative_plugin.h"
#include "core/plugin_loader/external_plugin.h"
#include "plugins/registry.h"

namespace fs = std::filesystem;

namespace mine {

std::vector<std::string> plugin_directories(const std::vector<std::string>& dirs) {
  std::vector<std::string> out = dirs;
  if (const char* env = std::getenv("MINE_PLUGIN_PATH")) {
    std::stringstream in(env);
    std::string dir;
    while (std::getline(in, dir, ':'))
      if (!dir.empty()) out.push_back(dir);
  }
  return out;
}

PluginSet PluginSet::load(const std::vector<std::string>& dirs) {
  PluginSet set;
  std::set<std::string> names;
  for (const auto& p : builtin_plugins()) {
    set.available_.push_back({p.get(), "built-in"});
    names.insert(p->name());
  }
  std::vector<std::string> all = plugin_directories(dirs);
  for (size_t d = 0; d < all.size(); ++d) {
    const std::string& dir = all[d];
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
      // Like $PATH, $MINE_PLUGIN_PATH may name folders that do not exist (yet); --plugin-dir may not.
      if (d >= dirs.size()) continue;
      throw Error("plugin folder " + dir + " does not exist");
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_regular_file()) files.push_back(e.path());
    if (ec) throw Error("cannot list plugin folder " + dir + ": " + ec.message());
    std::sort(files.begin(), files.end());  // load order must not depend on the file system
    for (const auto& file : files) {
      std::string ext = file.extension().string();
      std::unique_ptr<ExtractorPlugin> plugin;
      if (ext == ".so" || ext == ".dylib") {
        plugin = std::make_unique<ExternalPlugin>(file.string());
      } else if (ext == ".json") {
        plugin = std::make_unique<DeclarativePlugin>(file.string());
      } else {
        continue;  // query files, READMEs and the like sit next to plugins
      }
      if (!names.insert(plugin->name()).second)
        throw Error("plugin " + file.string() + " is named '" + plugin->name() + "', like a plugin already loaded");
      set.available_.push_back({plugin.get(), file.string()});
      set.owned_.push_back(std::move(plugin));
    }
  }
  return set;
}

std::vector<const ExtractorPlugin*> PluginSet::plugins() const {
  std::vector<const ExtractorPlugin*> out;
  for (const auto& a : available_) out.push_back(a.plugin);
  return out;
}

}  // namespace mine
