#pragma once
#include <string>

namespace mine {

// True when `top_level` names a module of CPython's standard library (Python 3.11's
// sys.stdlib_module_names, private ones left out): the part of a kernel's imports that is not
// a third-party dependency.
bool is_standard_library(const std::string& top_level);

}  // namespace mine
