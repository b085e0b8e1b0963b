#include "core/cli/options.h"

namespace mine::cli {

namespace {
OptionsObserver& observer() {
  static OptionsObserver current;
  return current;
}
}  // namespace

void set_options_observer(OptionsObserver o) { observer() = std::move(o); }

bool parse_options(const std::vector<std::string>& args, po::options_description& options,
                   const po::positional_options_description& positional, po::variables_map& vm,
                   const std::string& usage, const std::string& example) {
  options.add_options()("help,h", "show this help");
  if (observer()) {
    observer()(options, positional, usage, example);
    return false;
  }
  po::store(po::command_line_parser(args).options(options).positional(positional).run(), vm);
  if (vm.count("help")) {
    std::cout << "usage: " << usage << "\n\n" << options << "\nexample:\n  " << example << "\n";
    return false;
  }
  po::notify(vm);
  return true;
}

}  // namespace mine::cli
