#pragma once
#include <string>
#include <vector>

#include "plugins/sdk/python_file.h"

namespace mine {

// CUDA source that a Python file hands to a runtime compiler.
struct EmbeddedSource {
  std::string host;         // resolved callee: cupy.RawKernel, torch.utils.cpp_extension.load_inline, ...
  std::string code;         // the string's value
  int line_offset = 0;      // lines before the string's first line in the Python file
  std::string kernel_name;  // RawKernel's kernel name when written as a literal, else empty
  uint32_t string_start = 0;  // start byte of the literal, to report a shared constant once
  TSNode call{};              // the compiler call, whose flags define macros for the source
};

// Every source string passed to a known runtime compiler: literals, implicit concatenations,
// lists of them, and module-level constants they name. `skipped` receives (line, why) for
// sources that cannot be read statically (f-strings, computed values).
std::vector<EmbeddedSource> embedded_cuda_sources(const sdk::PythonFile& m,
                                                  std::vector<std::pair<int, std::string>>& skipped);

// Value of a Python string literal (prefixes, triple quotes, escapes of non-raw strings).
// Returns false for f-strings and byte strings.
bool python_string_value(const std::string& literal, std::string& value);

}  // namespace mine
