#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace mine {

// The language a kernel's standalone is written in, which decides its export fence and how a
// prompt names it: "cuda" for CUDA C++ (the cuda plugin's `.cu` kernels and the CUDA sources it
// takes from Python strings), "python" for everything else (Triton, Inductor, numba, declarative
// plugins). A plugin may say otherwise with a string `language` in the kernel's meta.
std::string kernel_language(const std::string& plugin, const nlohmann::json& meta);

// The languages `kernel_language` answers, for --language and its error message.
bool is_known_language(const std::string& language);

// `code` in one Markdown fence tagged with `language` (trailing blanks dropped).
std::string fenced(const std::string& code, const std::string& language);

}  // namespace mine
