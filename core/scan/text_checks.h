#pragma once
#include <cstddef>
#include <string_view>

namespace mine {

// Byte offset of the first invalid UTF-8 sequence, or npos when `text` is valid UTF-8.
size_t first_invalid_utf8(std::string_view text);

// A file with NUL bytes is binary whatever its name says.
inline bool looks_binary(std::string_view text) { return text.find('\0') != std::string_view::npos; }

// 1-based line number of a byte offset.
int line_of_offset(std::string_view text, size_t offset);

}  // namespace mine
