#include <iostream>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "plugins/registry.h"

namespace mine::cli {
namespace {

int run_plugins(const std::vector<std::string>& args) {
  po::options_description options("mine plugins options");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm, "mine plugins", "mine plugins")) return kExitOk;
  for (const auto& p : builtin_plugins()) {
    std::string files;
    for (const auto& s : p->file_suffixes()) files += (files.empty() ? "" : " ") + ("*" + s);
    std::cout << p->name() << " " << p->version() << " (built-in; " << files << "): " << p->description() << "\n";
  }
  return kExitOk;
}

RegisterCommand reg({"plugins", "list the extractor plugins", run_plugins, 90});

}  // namespace
}  // namespace mine::cli
