#pragma once
#include <string>
#include <vector>

#include "core/docs/command_doc.h"

namespace mine::docs {

// mine(1) in roff (man -l, groff -man): every command with its usage, options, defaults and
// example, then the environment, exit status and files.
std::string man_page(const std::vector<CommandDoc>& commands, const std::string& version);

// Text safe to put in a roff document: backslashes and hyphens escaped, no line starting a request.
std::string roff_escape(const std::string& text);

}  // namespace mine::docs
