#pragma once
#include <map>
#include <memory>
#include <string>

#include "core/scan/source_tree.h"

namespace mine {

// A tree whose files are texts held in memory: code mine itself produced (the output code
// Inductor generated for mined modules), scanned like any folder. kind() is 'folder' and
// location() the name given.
std::unique_ptr<SourceTree> memory_tree(std::string location, std::map<std::string, std::string> files);

}  // namespace mine
