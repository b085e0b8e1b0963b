#pragma once
#include <string>
#include <string_view>

namespace mine::check {

// The classes a check failure is filed under (same vocabulary as kernels/harness/classify.py).
inline constexpr const char* kErrorClasses[] = {"syntax",         "missing_name",    "type_error",
                                                "unsupported_op", "resource_limit",  "illegal_address",
                                                "timeout",        "crash",           "other"};
bool is_error_class(std::string_view name);

// Classifies a failure from its message when the harness gave no class (older or foreign
// result files): timeouts and crashes first, then CUDA resource and address errors, then the
// Python exception named in the message, then wording.
std::string classify_error(const std::string& message);

}  // namespace mine::check
