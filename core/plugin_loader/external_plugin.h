#pragma once
#include <string>

#include "core/plugin_loader/plugin_host.h"

namespace mine {

// An extractor living in a shared library, speaking include/mine/plugin.h. The library stays
// loaded for the life of the process: the plugin's static strings and code must outlive every
// use of this object.
class ExternalPlugin : public CAbiPlugin {
 public:
  // Loads `library` and checks its ABI; throws mine::Error naming both versions on a mismatch.
  explicit ExternalPlugin(const std::string& library);
};

}  // namespace mine
