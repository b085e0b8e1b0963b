#pragma once
#include <vector>

#include "core/docs/command_doc.h"

namespace mine::cli {

// Every registered command with the options it defines, learned by letting each command build
// its options and stopping it in parse_options (see set_options_observer). A command that never
// calls parse_options is listed with its name and summary only.
std::vector<docs::CommandDoc> describe_commands();

}  // namespace mine::cli
