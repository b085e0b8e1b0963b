#pragma once
#include <functional>
#include <string>
#include <vector>

#include "plugins/cuda/static_python_value.h"

namespace mine {

// Whether one entry of a build call's `sources` names the repository file `file_path`. The call is
// in `caller_path`; a build runs from some folder the code does not say, so a relative path is
// read against the caller's folder and each folder above it, the nearest where the repository
// holds it winning. A path from `__file__` is read from the repository root; a glob pattern
// against the caller's folder. What is left when a part is not fixed (`os.path.join(code_dir,
// "cuda/k.cu")`), or a path found under no folder, names the file ending in its longest tail the
// repository holds that shares the most folders with the caller.
// `paths_ending(tail)` gives the repository's paths equal to `tail` or ending in "/" + tail.
bool source_names_file(const StaticValue& source, const std::string& caller_path, const std::string& file_path,
                       const std::function<std::vector<std::string>(const std::string&)>& paths_ending);

}  // namespace mine
