#include "core/crawl/response_headers.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <nlohmann/json.hpp>

namespace mine {
namespace {

constexpr long long kMaxHeaderNumber = 4'102'444'800;  // 2100-01-01 as an epoch second

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

void add_header_line(std::map<std::string, std::string>& headers, std::string_view line) {
  if (line.rfind("HTTP/", 0) == 0) {
    headers.clear();
    return;
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) return;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  headers[name] = std::string(trim(line.substr(colon + 1)));
}

long long header_number(std::string_view value, long long fallback) {
  value = trim(value);
  if (value.empty()) return fallback;
  long long v = 0;
  auto r = std::from_chars(value.data(), value.data() + value.size(), v, 10);
  if (r.ec != std::errc() || r.ptr != value.data() + value.size() || v < 0 || v > kMaxHeaderNumber) return fallback;
  return v;
}

std::string api_message(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"].get<std::string>();
  return "";
}

}  // namespace mine
