#include <iostream>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/plugin_loader/plugin_set.h"

namespace mine::cli {
namespace {

int run_plugins(const std::vector<std::string>& args) {
  po::options_description options("mine plugins options");
  std::vector<std::string> plugin_dirs;
  options.add_options()("plugin-dir", po::value(&plugin_dirs)->composing(),
                        "also load plugins from this folder (repeatable; see also $MINE_PLUGIN_PATH)");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm, "mine plugins [--plugin-dir DIR]",
                     "mine plugins --plugin-dir ~/.local/lib/mine/plugins"))
    return kExitOk;
  PluginSet set = PluginSet::load(plugin_dirs);
  for (const auto& [p, origin] : set.available()) {
    std::string files;
    for (const auto& s : p->file_suffixes()) files += (files.empty() ? "" : " ") + ("*" + s);
    std::cout << p->name() << " " << p->version() << " (" << origin << "; " << files << "): " << p->description()
              << "\n";
  }
  return kExitOk;
}

RegisterCommand reg({"plugins", "list the extractor plugins", run_plugins, 90});

}  // namespace
}  // namespace mine::cli
