#pragma once
#include <string>
#include <string_view>
#include <utility>

namespace mine {

// The URL without a `user:password@` part: clone URLs can carry credentials, and a URL ends up
// in error messages, the corpus and logs.
std::string url_without_credentials(std::string_view url);

// `text` with every occurrence of `secret` (and of the userinfo of `url`, when it has one)
// replaced by "***". An empty secret changes nothing.
std::string redact(std::string text, std::string_view secret);
std::string redact_url_credentials(std::string text, std::string_view url);

}  // namespace mine
