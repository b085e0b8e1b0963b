#include "core/sha256.h"

#include <openssl/evp.h>

#include "core/error.h"

namespace mine {

// OpenSSL's SHA-256 uses the CPU's SHA extensions where present: content hashing of large
// standalones was a fifth of a scan's instructions with a portable implementation.
std::string sha256_hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1)
    throw Error("SHA-256 failed");
  return hex_encode(digest, length);
}

std::string hex_encode(const unsigned char* bytes, size_t length) {
  static const char* hex = "0123456789abcdef";
  std::string out(2 * length, '0');
  for (size_t i = 0; i < length; ++i) {
    out[2 * i] = hex[bytes[i] >> 4];
    out[2 * i + 1] = hex[bytes[i] & 0xf];
  }
  return out;
}

}  // namespace mine
