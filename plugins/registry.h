#pragma once
#include <memory>
#include <vector>

#include "core/plugin.h"
#include "include/mine/plugin.h"

namespace mine {

// Every built-in extractor's C ABI description, in the order they run. This is the one place
// plugins are registered; they speak include/mine/plugin.h like plugins loaded from a library.
const std::vector<const mine_plugin_info*>& builtin_plugin_infos();

// The built-in extractors behind the same adapter as external plugins.
const std::vector<std::unique_ptr<ExtractorPlugin>>& builtin_plugins();

}  // namespace mine
