#include "core/crawl/link_header.h"

#include <cctype>

namespace mine {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::map<std::string, std::string> parse_link_header(std::string_view header) {
  std::map<std::string, std::string> links;
  size_t pos = 0;
  while (pos < header.size()) {
    size_t open = header.find('<', pos);
    if (open == std::string_view::npos) break;
    size_t close = header.find('>', open);
    if (close == std::string_view::npos) break;
    std::string url(header.substr(open + 1, close - open - 1));
    // Parameters run to the next link; a comma inside <...> was consumed with the URL, and
    // quoted parameter values never contain '<'.
    size_t next = header.find('<', close);
    std::string_view params = header.substr(close + 1, next == std::string_view::npos ? std::string_view::npos : next - close - 1);
    size_t p = 0;
    while (p < params.size()) {
      size_t semi = params.find(';', p);
      std::string_view param = trim(params.substr(p, semi == std::string_view::npos ? std::string_view::npos : semi - p));
      p = semi == std::string_view::npos ? params.size() : semi + 1;
      if (!param.empty() && param.back() == ',') param = trim(param.substr(0, param.size() - 1));
      size_t eq = param.find('=');
      if (eq == std::string_view::npos) continue;
      if (trim(param.substr(0, eq)) != "rel") continue;
      std::string_view value = trim(param.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      size_t s = 0;
      while (s < value.size()) {
        size_t sp = value.find(' ', s);
        std::string_view rel = value.substr(s, sp == std::string_view::npos ? std::string_view::npos : sp - s);
        if (!rel.empty()) links[std::string(rel)] = url;
        s = sp == std::string_view::npos ? value.size() : sp + 1;
      }
    }
    pos = next == std::string_view::npos ? header.size() : next;
  }
  return links;
}

}  // namespace mine
