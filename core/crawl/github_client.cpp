#include "core/crawl/github_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>

#include "core/crawl/response_headers.h"
#include "core/crawl/secret_redaction.h"
#include "core/error.h"

namespace mine {
namespace {

using std::chrono::milliseconds;

void init_curl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// Which budget a request draws on: GitHub keeps separate ones for search, code search, GraphQL
// and the rest ("core"), and one spent must not stop calls to the others.
std::string resource_of(const std::string& url) {
  if (url.find("/search/code") != std::string::npos) return "code_search";
  if (url.find("/search/") != std::string::npos) return "search";
  if (url.find("/graphql") != std::string::npos) return "graphql";
  return "core";
}

bool looks_secondary(const GithubResponse& r) {
  std::string m = api_message(r.body);
  std::transform(m.begin(), m.end(), m.begin(), [](unsigned char c) { return std::tolower(c); });
  return m.find("secondary rate limit") != std::string::npos || m.find("abuse") != std::string::npos;
}

}  // namespace

struct GithubClient::Transfer {
  CURL* curl = nullptr;
  GithubResponse* current = nullptr;
  Transfer() {
    init_curl();
    curl = curl_easy_init();
    if (!curl) throw Error("cannot initialise libcurl");
  }
  ~Transfer() { curl_easy_cleanup(curl); }

  static size_t on_body(char* data, size_t size, size_t n, void* self) {
    static_cast<Transfer*>(self)->current->body.append(data, size * n);
    return size * n;
  }
  static size_t on_header(char* data, size_t size, size_t n, void* self) {
    add_header_line(static_cast<Transfer*>(self)->current->headers, std::string_view(data, size * n));
    return size * n;
  }
};

GithubClient::GithubClient(GithubClientOptions options, CrawlClock& clock, EtagCache* etags)
    : options_(std::move(options)), clock_(clock), etags_(etags), transfer_(std::make_unique<Transfer>()) {
  while (!options_.api_url.empty() && options_.api_url.back() == '/') options_.api_url.pop_back();
}

GithubClient::~GithubClient() = default;

std::string GithubClient::absolute_url(const std::string& path_or_url) const {
  if (path_or_url.rfind("http://", 0) == 0 || path_or_url.rfind("https://", 0) == 0) return path_or_url;
  if (!path_or_url.empty() && path_or_url.front() == '/') return options_.api_url + path_or_url;
  return options_.api_url + "/" + path_or_url;
}

GithubResponse GithubClient::perform(const std::string& url, std::string* curl_error) {
  GithubResponse response;
  response.url = url;
  CURL* c = transfer_->curl;
  transfer_->current = &response;
  curl_easy_reset(c);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);  // renamed repositories answer 301
  curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, options_.connect_timeout_s);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, options_.timeout_s);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Transfer::on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, transfer_.get());
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &Transfer::on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, transfer_.get());

  std::optional<CachedResponse> cached;
  if (etags_) cached = etags_->etag_lookup(url);
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/vnd.github+json");
  headers = curl_slist_append(headers, "X-GitHub-Api-Version: 2022-11-28");
  if (!options_.token.empty()) {
    // libcurl drops custom Authorization headers on redirects to other hosts.
    std::string auth = "Authorization: Bearer " + options_.token;
    headers = curl_slist_append(headers, auth.c_str());
  }
  if (cached && !cached->etag.empty()) {
    std::string inm = "If-None-Match: " + cached->etag;
    headers = curl_slist_append(headers, inm.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

  ++requests_sent_;
  CURLcode rc = curl_easy_perform(c);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(headers);
  transfer_->current = nullptr;
  if (rc != CURLE_OK) {
    *curl_error = curl_easy_strerror(rc);
    response.status = 0;
    return response;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  if (!options_.token.empty()) {
    // A server that echoes the token (in a message, a URL, a header) must not pass it on to
    // error messages, the ETag cache in the corpus or anything parsed from the answer.
    response.body = redact(std::move(response.body), options_.token);
    for (auto& [name, value] : response.headers) value = redact(std::move(value), options_.token);
  }
  std::string date = response.header("date");
  if (!date.empty()) {
    time_t server = curl_getdate(date.c_str(), nullptr);
    if (server > 0) {
      auto local = std::chrono::system_clock::to_time_t(clock_.now());
      server_skew_ = std::chrono::duration_cast<milliseconds>(std::chrono::seconds(server - local));
    }
  }
  if (response.status == 304 && cached) {
    response.status = 200;
    response.body = cached->body;
    response.from_cache = true;
  } else if (response.status == 200 && etags_) {
    std::string etag = response.header("etag");
    if (!etag.empty()) etags_->etag_store(url, {etag, response.body});
  }
  return response;
}

void GithubClient::wait(milliseconds duration, const std::string& reason) {
  if (duration <= milliseconds(0)) return;
  ++waits_;
  auto deadline = clock_.now() + duration;
  for (;;) {
    if (options_.cancel && options_.cancel->load()) throw Error("GitHub API: cancelled while waiting (" + reason + ")");
    auto left = std::chrono::duration_cast<milliseconds>(deadline - clock_.now());
    if (left <= milliseconds(0)) break;
    if (wait_listener_) wait_listener_({reason, left, duration});
    clock_.sleep_for(std::min(left, milliseconds(1000)));
  }
  if (wait_listener_) wait_listener_({reason, milliseconds(0), duration});
}

void GithubClient::wait_for_budget(const std::string& resource) {
  auto it = budgets_.find(resource);
  if (it == budgets_.end() || it->second.remaining != 0) return;
  // The reset instant is on the server's clock; shift it onto ours.
  auto reset_here = it->second.reset - server_skew_ + options_.reset_margin;
  auto left = std::chrono::duration_cast<milliseconds>(reset_here - clock_.now());
  wait(left, "rate limit exhausted (" + resource + ")");
  it->second.remaining = -1;  // unknown until the next answer says
}

void GithubClient::note_budget(const GithubResponse& response, const std::string& predicted) {
  std::string remaining = response.header("x-ratelimit-remaining");
  std::string reset = response.header("x-ratelimit-reset");
  if (remaining.empty() || reset.empty()) return;
  std::string resource = response.header("x-ratelimit-resource");
  Budget& b = budgets_[resource.empty() ? predicted : resource];
  b.remaining = static_cast<long>(header_number(remaining, -1));
  b.reset = std::chrono::system_clock::from_time_t(static_cast<time_t>(header_number(reset, 0)));
  if (!resource.empty() && resource != predicted) budgets_[predicted] = b;
}

milliseconds GithubClient::backoff(int attempt) {
  // Exponential with "equal jitter": half fixed, half random, so parallel crawls spread out.
  static thread_local std::mt19937 rng{std::random_device{}()};
  long long base = options_.backoff_initial.count();
  for (int i = 0; i < attempt && base < options_.backoff_cap.count(); ++i) base *= 2;
  base = std::min<long long>(base, options_.backoff_cap.count());
  std::uniform_int_distribution<long long> half(0, base / 2);
  return milliseconds(base - base / 2 + half(rng));
}

GithubResponse GithubClient::get(const std::string& path_or_url) {
  const std::string url = absolute_url(path_or_url);
  const std::string resource = resource_of(url);
  int failures = 0;
  int secondary_hits = 0;
  int primary_hits = 0;
  std::string last_problem;
  while (failures < options_.max_attempts) {
    if (options_.cancel && options_.cancel->load()) throw Error("GET " + redact(url, options_.token) + ": cancelled");
    wait_for_budget(resource);
    ++requests_by_resource_[resource];
    std::string curl_error;
    GithubResponse r = perform(url, &curl_error);
    if (r.status == 0) {
      last_problem = curl_error;
      wait(backoff(failures++), "network error: " + curl_error);
      continue;
    }
    note_budget(r, resource);
    if (r.status == 403 || r.status == 429) {
      std::string retry_after = r.header("retry-after");
      if (!retry_after.empty() || looks_secondary(r)) {
        ++secondary_hits;
        ++failures;
        last_problem = "secondary rate limit (HTTP " + std::to_string(r.status) + ")";
        milliseconds pause = options_.secondary_wait_default;
        long long seconds = header_number(retry_after, -1);
        if (seconds >= 0) {
          pause = std::chrono::seconds(seconds);
        } else {
          for (int i = 1; i < secondary_hits; ++i) pause *= 2;  // GitHub: increase waits when it repeats
        }
        wait(pause, "secondary rate limit");
        continue;
      }
      if (r.header("x-ratelimit-remaining") == "0") {
        // Spent budget we did not know of (another client shares the token): wait for the reset.
        if (++primary_hits > 3) throw Error("GET " + redact(url, options_.token) + ": rate limit still exhausted after 3 resets");
        last_problem = "rate limit exhausted";
        continue;
      }
      return r;
    }
    if (r.status >= 500) {
      last_problem = "HTTP " + std::to_string(r.status);
      wait(backoff(failures++), "HTTP " + std::to_string(r.status));
      continue;
    }
    return r;
  }
  throw Error("GET " + redact(url, options_.token) + ": giving up after " + std::to_string(options_.max_attempts) + " attempts (" + last_problem + ")");
}

nlohmann::json GithubClient::get_json(const std::string& path_or_url) {
  GithubResponse r = get(path_or_url);
  if (r.status < 200 || r.status >= 300) {
    std::string message = api_message(r.body);
    throw Error("GET " + redact(r.url, options_.token) + ": HTTP " + std::to_string(r.status) + (message.empty() ? "" : ": " + message));
  }
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (j.is_discarded()) throw Error("GET " + redact(r.url, options_.token) + ": answer is not JSON");
  return j;
}

std::string read_github_token(const std::string& token_file) {
  const char* env = std::getenv("GITHUB_TOKEN");
  if (env && *env) return env;
  if (token_file.empty()) return "";
  std::ifstream in(token_file);
  if (!in) throw Error::in(token_file, "cannot read the token file");
  std::string line;
  std::getline(in, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.erase(0, 1);
  if (line.empty()) throw Error::in(token_file, "the token file is empty");
  return line;
}

std::string url_encode(const std::string& value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace mine
