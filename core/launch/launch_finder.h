#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/launch/launch_site.h"
#include "core/python/module_model.h"
#include "core/repo/module_index.h"

namespace mine {

// Finds the kernel launches of one file: `k[grid](...)` and `k.run(..., grid=...)`, the callee
// followed through local aliases and resolved through the file's imports (with `index`, to the
// repository file that defines it), the arguments evaluated in their launcher (launcher_values.h).
// Calls whose callee is imported from outside the repository are not launches of its kernels and
// are skipped; the rest are linked to kernels by name once the repository is scanned.
// `module_at` gives other parsed files of the repository (may be empty: this file only), so that
// helpers the launcher imports (`calculate_settings(n)`) are evaluated too.
using ModuleLoader = std::function<const PythonModule*(const std::string& path)>;
std::vector<LaunchSite> find_launches(const PythonModule& m, const ModuleIndex* index, const ModuleLoader& module_at = {});

// Cheap test on a file's text before parsing for launches.
bool may_hold_launches(const std::string& text);

// The Triton constexpr spelling of a Triton element type: "fp16" -> "tl.float16".
std::string triton_dtype_value(const std::string& element_type);

}  // namespace mine
