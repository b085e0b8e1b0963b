#include <iostream>

#include "core/cli/command.h"
#include "core/cli/command_docs.h"
#include "core/cli/options.h"
#include "core/docs/bash_completion.h"
#include "core/docs/man_page.h"

namespace mine::cli {
namespace {

constexpr const char* kVersion = "0.1.0";

int run_completion(const std::vector<std::string>& args) {
  po::options_description options("mine completion options");
  std::string shell;
  options.add_options()("shell", po::value(&shell), "bash | man (positional)");
  po::positional_options_description positional;
  positional.add("shell", 1);
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm, "mine completion bash|man",
                     "mine completion bash > ~/.local/share/bash-completion/completions/mine"))
    return kExitOk;
  if (shell == "bash") {
    std::cout << docs::bash_completion(describe_commands());
  } else if (shell == "man") {
    std::cout << docs::man_page(describe_commands(), kVersion);
  } else {
    throw UsageError{shell.empty() ? "say which: mine completion bash (a bash script) or mine completion man (roff)"
                                   : "no completion for '" + shell + "' (use bash, or man for the man page)"};
  }
  return kExitOk;
}

int run_man(const std::vector<std::string>& args) {
  po::options_description options("mine man options");
  po::variables_map vm;
  if (!parse_options(args, options, {}, vm, "mine man", "mine man > mine.1 && man -l mine.1")) return kExitOk;
  std::cout << docs::man_page(describe_commands(), kVersion);
  return kExitOk;
}

RegisterCommand completion({"completion", "print a bash completion script (or the man page) for mine", run_completion,
                            95});
RegisterCommand man({"man", "print the mine(1) man page in roff (man -l, groff -man)", run_man, 96});

}  // namespace
}  // namespace mine::cli
