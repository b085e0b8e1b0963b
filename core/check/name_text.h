#pragma once
// Small text tests the signature rules apply to parameter names and dotted names.
#include <cctype>
#include <cstdint>
#include <string>

namespace mine::check {

inline std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
inline std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
inline bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
inline bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
// A Python name as written (`BLOCK`, `_n2`), not an expression.
inline bool is_identifier_text(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}
inline int64_t next_power_of_2(int64_t n) {
  int64_t p = 1;
  while (p < n && p < (int64_t{1} << 62)) p <<= 1;
  return p;
}

}  // namespace mine::check
