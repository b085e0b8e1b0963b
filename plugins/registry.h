#pragma once
#include <memory>
#include <vector>

#include "core/plugin.h"

namespace mine {

// Every built-in extractor, in the order they run. This is the one place plugins are registered.
const std::vector<std::unique_ptr<ExtractorPlugin>>& builtin_plugins();

}  // namespace mine
