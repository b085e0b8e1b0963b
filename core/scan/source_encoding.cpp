#include "core/scan/source_encoding.h"

#include <iconv.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <re2/re2.h>

#include "core/scan/text_checks.h"

namespace mine {
namespace {

bool blank_or_comment(const std::string& line) {
  size_t i = line.find_first_not_of(" \t\f\r");
  return i == std::string::npos || line[i] == '#';
}

// CPython's get_normal_name: case folded, '_' as '-', and the utf-8 / latin-1 families by name.
std::string normal_name(std::string name) {
  for (auto& c : name) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto family = [&](const char* base) {
    size_t n = std::strlen(base);
    return name == base || (name.size() > n && name.compare(0, n, base) == 0 && name[n] == '-');
  };
  if (name == "utf8" || (family("utf-8") && name != "utf-8-sig")) return "utf-8";
  if (family("latin-1") || family("iso-8859-1") || family("iso-latin-1") || name == "latin1" || name == "l1" ||
      name == "iso8859-1")
    return "iso-8859-1";
  return name;
}

// The name iconv knows an encoding by ("iso8859-15" -> "ISO-8859-15", "cp1252" as is).
std::string iconv_name(const std::string& normal) {
  std::string out;
  if (normal.rfind("iso8859-", 0) == 0) out = "iso-8859-" + normal.substr(8);
  else if (normal.rfind("latin", 0) == 0 && normal.size() > 5 && std::isdigit(static_cast<unsigned char>(normal.back())))
    out = "latin" + normal.substr(normal.find_first_of("0123456789"));
  else out = normal;
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string convert(std::string& text, const std::string& from, size_t& error_offset) {
  iconv_t cd = iconv_open("UTF-8", iconv_name(from).c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) return "unknown encoding '" + from + "' declared";
  std::string out(text.size() * 4 + 16, '\0');
  char* in = text.data();
  size_t in_left = text.size();
  char* dest = out.data();
  size_t out_left = out.size();
  std::string error;
  while (in_left > 0) {
    if (iconv(cd, &in, &in_left, &dest, &out_left) != static_cast<size_t>(-1)) continue;
    if (errno == E2BIG) {  // cannot happen with 4 bytes per input byte, but never loop on it
      error = "decoded text too large";
    } else {
      error_offset = static_cast<size_t>(in - text.data());
      error = "bytes invalid in the declared encoding " + from + " at byte " + std::to_string(error_offset);
    }
    break;
  }
  iconv_close(cd);
  if (!error.empty()) return error;
  out.resize(out.size() - out_left);
  text = std::move(out);
  return "";
}

}  // namespace

std::string declared_encoding(const std::string& text) {
  static const RE2 cookie(R"(^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+))");
  size_t first_end = text.find('\n');
  std::string first = text.substr(0, first_end);
  if (first.rfind("\xEF\xBB\xBF", 0) == 0) first = first.substr(3);
  std::string name;
  if (RE2::PartialMatch(first, cookie, &name)) return normal_name(name);
  if (first_end == std::string::npos || !blank_or_comment(first)) return "";
  size_t second_end = text.find('\n', first_end + 1);
  std::string second = text.substr(first_end + 1, second_end == std::string::npos ? std::string::npos : second_end - first_end - 1);
  if (RE2::PartialMatch(second, cookie, &name)) return normal_name(name);
  return "";
}

DecodedSource decode_python_source(std::string& text) {
  DecodedSource out;
  bool bom = text.rfind("\xEF\xBB\xBF", 0) == 0;
  std::string declared = declared_encoding(text);
  bool utf8 = declared.empty() || declared == "utf-8" || declared == "utf-8-sig";
  if (bom && !utf8) {
    // CPython accepts a BOM only with no declaration or a UTF-8 one.
    out.error = "UTF-8 byte-order mark with a declared encoding of " + declared;
    out.error_offset = 0;
    return out;
  }
  if (!utf8) {
    out.error = convert(text, declared, out.error_offset);  // `text` changes only on success
    if (out.error.empty()) out.encoding = declared;
    return out;
  }
  size_t skip = bom ? 3 : 0;
  size_t bad = first_invalid_utf8(std::string_view(text).substr(skip));
  if (bad != std::string::npos) {
    out.error_offset = bad + skip;
    out.error = "invalid UTF-8 at byte " + std::to_string(out.error_offset);
    return out;
  }
  if (bom) {
    text.erase(0, 3);
    out.encoding = "utf-8-sig";
  }
  return out;
}

}  // namespace mine
