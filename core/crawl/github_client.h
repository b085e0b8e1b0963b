#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/crawl/crawl_clock.h"
#include "core/crawl/etag_cache.h"

namespace mine {

struct GithubClientOptions {
  std::string api_url = "https://api.github.com";  // GitHub Enterprise: https://host/api/v3
  std::string token;  // sent as a header only; never logged, never part of an error message
  std::string user_agent = "mine/0.1";
  int max_attempts = 7;  // per request, over 5xx, network errors and secondary limits
  std::chrono::milliseconds backoff_initial{1000};
  std::chrono::milliseconds backoff_cap{60000};
  // GitHub's advice when a secondary-limit answer carries no Retry-After: wait at least a minute.
  std::chrono::milliseconds secondary_wait_default{60000};
  // Slack added to X-RateLimit-Reset: it is an epoch second and clocks disagree by a little.
  std::chrono::milliseconds reset_margin{1000};
  long connect_timeout_s = 30;
  long timeout_s = 120;
  // Set (e.g. from SIGINT) -> a wait ends early and get() throws mine::Error("... cancelled"),
  // so a crawl stopped during an hour-long rate-limit wait stops now.
  const std::atomic<bool>* cancel = nullptr;
};

// A wait the client imposes on itself, reported about once a second so a terminal can count down.
struct ApiWait {
  std::string reason;                   // "rate limit exhausted", "secondary rate limit", "HTTP 502", ...
  std::chrono::milliseconds remaining;  // left of this wait
  std::chrono::milliseconds total;
};

struct GithubResponse {
  long status = 0;  // a 304 whose body came from the ETag cache reads as 200 with from_cache set
  std::string url;
  std::string body;
  std::map<std::string, std::string> headers;  // names lower-cased; the last value wins
  bool from_cache = false;
  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// GitHub REST client over libcurl that keeps within the API's limits by itself: it waits for
// X-RateLimit-Reset when a resource's budget is spent (before sending, not after a refusal),
// honours Retry-After and secondary-limit 403/429 answers, backs off exponentially (capped,
// bounded attempts) on 5xx and network errors, and revalidates with If-None-Match.
// One instance per thread: it reuses one connection.
class GithubClient {
 public:
  GithubClient(GithubClientOptions options, CrawlClock& clock, EtagCache* etags = nullptr);
  ~GithubClient();
  GithubClient(const GithubClient&) = delete;
  GithubClient& operator=(const GithubClient&) = delete;

  void set_wait_listener(std::function<void(const ApiWait&)> listener) { wait_listener_ = std::move(listener); }

  // `path_or_url`: "/search/repositories?q=..." under api_url, or an absolute URL taken from a
  // Link header. Returns the first answer that is not a limit or a transient failure: 2xx,
  // a cached 304, or a 4xx for the caller to judge. Throws mine::Error when retries run out.
  GithubResponse get(const std::string& path_or_url);

  // get() that insists on 2xx and parses JSON; errors carry GitHub's "message".
  nlohmann::json get_json(const std::string& path_or_url);

  std::string absolute_url(const std::string& path_or_url) const;
  int requests_sent() const { return requests_sent_; }
  // Requests sent per rate-limit resource ("core", "search", "code_search", "graphql"),
  // retries included: what the crawl's summary reports.
  const std::map<std::string, int64_t>& requests_by_resource() const { return requests_by_resource_; }
  int waits() const { return waits_; }

 private:
  struct Budget {
    long remaining = -1;  // -1: unknown
    std::chrono::system_clock::time_point reset;
  };
  struct Transfer;

  GithubResponse perform(const std::string& url, std::string* curl_error);
  void wait(std::chrono::milliseconds duration, const std::string& reason);
  void wait_for_budget(const std::string& resource);
  void note_budget(const GithubResponse& response, const std::string& resource);
  std::chrono::milliseconds backoff(int attempt);

  GithubClientOptions options_;
  CrawlClock& clock_;
  EtagCache* etags_;
  std::function<void(const ApiWait&)> wait_listener_;
  std::unique_ptr<Transfer> transfer_;
  std::map<std::string, Budget> budgets_;  // by X-RateLimit-Resource: core, search, code_search
  std::chrono::milliseconds server_skew_{0};  // server Date minus our clock
  int requests_sent_ = 0;
  std::map<std::string, int64_t> requests_by_resource_;
  int waits_ = 0;
};

// The token: $GITHUB_TOKEN, else the first line of `token_file` when given; "" for anonymous.
// Throws mine::Error naming the file (never its content) when it cannot be read.
std::string read_github_token(const std::string& token_file);

// Percent-encodes a query-string value.
std::string url_encode(const std::string& value);

}  // namespace mine
