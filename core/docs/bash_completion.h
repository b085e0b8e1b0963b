#pragma once
#include <string>
#include <vector>

#include "core/docs/command_doc.h"

namespace mine::docs {

// A bash completion script for `mine`: command names, each command's options, the listed values
// of options such as --format, and file names for other option values and positional arguments.
std::string bash_completion(const std::vector<CommandDoc>& commands);

}  // namespace mine::docs
