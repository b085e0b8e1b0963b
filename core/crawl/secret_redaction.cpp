#include "core/crawl/secret_redaction.h"

namespace mine {
namespace {

// [start, end) of the userinfo of `url` including its '@', or {npos, npos}.
std::pair<size_t, size_t> userinfo(std::string_view url) {
  size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return {std::string_view::npos, std::string_view::npos};
  size_t start = scheme + 3;
  size_t authority_end = url.find_first_of("/?#", start);
  std::string_view authority = url.substr(start, authority_end == std::string_view::npos ? url.size() - start
                                                                                         : authority_end - start);
  size_t at = authority.rfind('@');
  if (at == std::string_view::npos) return {std::string_view::npos, std::string_view::npos};
  return {start, start + at + 1};
}

}  // namespace

std::string url_without_credentials(std::string_view url) {
  auto [start, end] = userinfo(url);
  if (start == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, start)) + std::string(url.substr(end));
}

std::string redact(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at + 3))
    text.replace(at, secret.size(), "***");
  return text;
}

std::string redact_url_credentials(std::string text, std::string_view url) {
  auto [start, end] = userinfo(url);
  if (start == std::string_view::npos) return text;
  std::string_view info = url.substr(start, end - start - 1);  // without the '@'
  text = redact(std::move(text), info);
  size_t colon = info.find(':');
  if (colon != std::string_view::npos) text = redact(std::move(text), info.substr(colon + 1));  // the password alone
  return text;
}

}  // namespace mine
