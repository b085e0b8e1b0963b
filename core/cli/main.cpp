#include <boost/program_options/errors.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "core/cli/command.h"
#include "core/error.h"

namespace mine::cli {

namespace {
std::vector<Command>& registry() {
  static std::vector<Command> all;
  return all;
}
}  // namespace

RegisterCommand::RegisterCommand(Command c) {
  registry().push_back(c);
  std::sort(registry().begin(), registry().end(), [](const Command& a, const Command& b) { return a.order < b.order; });
}

const std::vector<Command>& commands() { return registry(); }

std::string default_db_path() {
  const char* env = std::getenv("MINE_DB");
  return env && *env ? env : "corpus.db";
}

}  // namespace mine::cli

namespace {

void print_usage(std::ostream& out) {
  out << "mine: mine GPU kernels out of source code into an SQLite corpus\n\n"
         "usage: mine <command> [options]\n\ncommands:\n";
  for (const auto& c : mine::cli::commands()) {
    std::string name = c.name;
    name.resize(std::max<size_t>(name.size(), 10), ' ');
    out << "  " << name << "  " << c.summary << "\n";
  }
  out << "\nRun `mine <command> --help` (or `mine help <command>`) for a command's options and an example.\n"
         "The corpus is ./corpus.db unless --db or $MINE_DB says otherwise.\n"
         "Exit status: 0 ok, 1 failure, 2 usage error.\n";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mine::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 2 && args[0] == "help") args = {args[1], "--help"};  // `mine help scan`, as in git
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage(std::cout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "mine 0.1.0\n";
    return kExitOk;
  }
  for (const auto& c : commands()) {
    if (args[0] != c.name) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    try {
      return c.run(rest);
    } catch (const UsageError& e) {
      std::cerr << "mine " << c.name << ": " << e.message << "\n(see `mine " << c.name << " --help`)\n";
      return kExitUsage;
    } catch (const boost::program_options::error& e) {
      std::cerr << "mine " << c.name << ": " << e.what() << "\n(see `mine " << c.name << " --help`)\n";
      return kExitUsage;
    } catch (const mine::Error& e) {
      std::cerr << "mine " << c.name << ": error: " << e.what() << "\n";
      return kExitFailure;
    } catch (const std::exception& e) {
      std::cerr << "mine " << c.name << ": internal error: " << e.what() << "\n";
      return kExitFailure;
    }
  }
  std::cerr << "mine: unknown command '" << args[0] << "'\n\n";
  print_usage(std::cerr);
  return kExitUsage;
}
