#pragma once
#include <string>
#include <vector>

namespace mine::docs {

// What `mine <cmd> --help` knows about one option, as plain data: shell completion and the man
// page are generated from it, so they cannot drift from the options a command really takes.
struct OptionDoc {
  std::string long_name;      // "format"
  std::string short_name;     // "f", or empty
  bool takes_value = false;
  std::string default_value;  // as --help shows it; empty when none
  std::string description;
  bool positional = false;    // also accepted without its --name
};

struct CommandDoc {
  std::string name, summary, usage, example;
  std::vector<OptionDoc> options;  // empty when the command does not describe its options
};

// The values an option takes when its description lists them, as in "table | csv | json" or
// "--run: stop after import | compile | load | run"; empty when it does not.
std::vector<std::string> value_choices(const std::string& description);

}  // namespace mine::docs
