#pragma once
#include <string>
#include <vector>

namespace mine::cli {

// Exit codes, documented in the README: 0 ok, 1 failure, 2 usage error.
constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// A subcommand. `run` gets the arguments after the subcommand name.
struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
  int order;  // position in `mine --help`
};

const std::vector<Command>& commands();

// Each cmd_*.cpp registers itself with one static RegisterCommand; main.cpp knows no command.
struct RegisterCommand {
  explicit RegisterCommand(Command c);
};

// Thrown for bad command lines; main prints it with the subcommand's --help hint and exits 2.
struct UsageError {
  std::string message;
};

// The corpus path: --db if given, else $MINE_DB, else ./corpus.db.
std::string default_db_path();

}  // namespace mine::cli
