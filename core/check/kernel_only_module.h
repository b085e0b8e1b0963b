#pragma once
#include <optional>
#include <string>

#include "core/python/module_model.h"

namespace mine::check {

// The module `mine check` falls back to when a kernel's standalone cannot be imported.
//
// A standalone carries everything the kernel's decorators need, and wrappers such as
// `@libentry()` or `@triton.autotune(configs=runtime.get_tuned_config("op"))` can pull in a
// whole runtime that probes hardware, reads data files next to the package or imports vendor
// modules at import time. None of that is part of the kernel's code: triton.compile only needs
// the @triton.jit function. This is the standalone cut down to that function, with its other
// decorators removed, plus the same-module closure of its body (jitted helpers, constants,
// imports). Constexpr values the removed decorators would have supplied come from the bundle
// spec, which signature inference reads statically from those decorators.
//
// nullopt when there is nothing to cut (no decorator besides the jit), when the entry is not
// a module-level `@triton.jit` function, or when the standalone cannot be read.
std::optional<std::string> kernel_only_module(const PythonModule& standalone, const std::string& entry);
std::optional<std::string> kernel_only_module(const std::string& standalone, const std::string& entry);

// The module-level function `entry` of a standalone, or nullptr.
const FunctionSite* entry_function(const PythonModule& standalone, const std::string& entry);

// A @triton.jit function that returns a value is a device function: Triton cannot launch it
// (lowering a kernel that returns fails), it is only ever called from other jitted code.
bool returns_value(const PythonModule& module, const FunctionSite& function);

}  // namespace mine::check
