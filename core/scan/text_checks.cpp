#include "core/scan/text_checks.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace mine {

size_t first_invalid_utf8(std::string_view s) {
  size_t i = 0, n = s.size();
  while (i < n) {
    // Source is mostly ASCII: skip it eight bytes at a time (every scanned byte passes here).
    while (i + 8 <= n) {
      uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if (word & 0x8080808080808080ULL) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    unsigned min;
    if ((c & 0xE0) == 0xC0) {
      len = 2; min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3; min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4; min = 0x10000;
    } else {
      return i;
    }
    if (i + len > n) return i;
    unsigned cp = c & (0xFF >> (len + 1));
    for (size_t k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are invalid.
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

int line_of_offset(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace mine
