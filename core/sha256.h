#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace mine {

// Lowercase hex SHA-256 of `data` (FIPS 180-4). Used for content identity of kernels.
std::string sha256_hex(std::string_view data);

// Lowercase hex of `length` bytes (a digest).
std::string hex_encode(const unsigned char* bytes, size_t length);

}  // namespace mine
