#include "core/report/html_escape.h"

#include <cstdint>
#include <vector>

namespace mine::report {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
size_t utf8_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = byte(i);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  uint32_t cp = n == 1 ? c : c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (byte(i + k) & 0x3F);
  bool overlong = (n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (size_t i = 0; i < text.size();) {
    size_t n = utf8_length(text, i);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    char c = text[i++];
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\n':
      case '\t': out += c; break;
      case '\r': out += '\n'; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F)
          out += kReplacement;
        else
          out += c;
    }
  }
  return out;
}

namespace {

// Byte offset of each code point (an invalid byte counts as one).
std::vector<size_t> code_point_starts(std::string_view text) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < text.size();) {
    starts.push_back(i);
    size_t n = utf8_length(text, i);
    i += n ? n : 1;
  }
  return starts;
}

}  // namespace

std::string truncate_utf8_front(std::string_view text, size_t max_chars) {
  std::vector<size_t> starts = code_point_starts(text);
  if (starts.size() <= max_chars) return std::string(text);
  if (max_chars == 0) return "\u2026";
  return "\u2026" + std::string(text.substr(starts[starts.size() - (max_chars - 1)]));
}

std::string truncate_utf8(std::string_view text, size_t max_chars) {
  std::vector<size_t> starts = code_point_starts(text);
  if (starts.size() <= max_chars) return std::string(text);
  size_t keep = max_chars == 0 ? 0 : max_chars - 1;
  return std::string(text.substr(0, starts[keep])) + "\u2026";
}

}  // namespace mine::report
