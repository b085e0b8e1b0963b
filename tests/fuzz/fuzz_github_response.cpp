// What the crawl reads of a GitHub API answer: raw header lines as libcurl delivers them, the
// Link header, the rate-limit numbers turned into time points, the error message, and
// repository objects of /repos/{owner}/{name} and search pages. Input: header lines, an empty
// line, then the body (as on the wire).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/crawl/link_header.h"
#include "core/crawl/repo_info.h"
#include "core/crawl/response_headers.h"
#include "tests/fuzz/fuzz_support.h"

using namespace mine;

namespace {

void read_repo(const nlohmann::json& item) {
  try {
    RepoInfo r = repo_info_from_json(item);
    if (r.full_name.empty() || r.clone_url.empty()) fuzz::violated("repository accepted without name or clone_url");
  } catch (const Error&) {
    // a per-repository problem the crawl records
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t blank = input.find("\r\n\r\n");
  size_t body_at = blank == std::string_view::npos ? input.size() : blank + 4;
  std::string_view head = input.substr(0, std::min(body_at, input.size()));
  std::string_view body = input.substr(body_at);

  std::map<std::string, std::string> headers;
  size_t pos = 0;
  while (pos < head.size()) {
    size_t eol = head.find("\r\n", pos);
    size_t end = eol == std::string_view::npos ? head.size() : eol + 2;
    add_header_line(headers, head.substr(pos, end - pos));  // libcurl hands lines with their CRLF
    pos = end;
  }
  for (const auto& [name, value] : headers) {
    for (char c : name)
      if (c >= 'A' && c <= 'Z') fuzz::violated("header name not lower-cased: " + name);
    if (!value.empty() && (value.front() == ' ' || value.back() == '\n')) fuzz::violated("header value not trimmed");
  }

  auto header = [&](const char* name) {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  };
  for (const auto& [rel, url] : parse_link_header(header("link"))) {
    if (rel.empty()) fuzz::violated("empty rel in Link header");
    (void)url;
  }
  parse_link_header(input);  // Link values are also fuzzed raw

  // As GithubClient turns them into waits: none of this may overflow the clock.
  long long reset = header_number(header("x-ratelimit-reset"), 0);
  auto reset_at = std::chrono::system_clock::from_time_t(static_cast<time_t>(reset));
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(reset_at - std::chrono::system_clock::from_time_t(0));
  if (left.count() < 0) fuzz::violated("negative reset");
  long long retry = header_number(header("retry-after"), -1);
  if (retry >= 0) (void)std::chrono::milliseconds(std::chrono::seconds(retry)).count();
  (void)header_number(header("x-ratelimit-remaining"), -1);

  (void)api_message(body);
  auto json = nlohmann::json::parse(body, nullptr, false);
  if (json.is_discarded()) return 0;
  read_repo(json);
  // What RepoSearch reads of a search page besides its items.
  (void)api_int(json, "total_count", 0);
  (void)api_bool(json, "incomplete_results", false);
  if (json.is_object()) {
    auto items = json.find("items");
    if (items != json.end() && items->is_array()) {
      if (!items->empty()) (void)api_int((*items)[0], "stargazers_count", 0);
      for (const auto& item : *items) read_repo(item);
    }
  }
  return 0;
}
