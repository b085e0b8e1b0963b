// GithubClient against the fake GitHub API on 127.0.0.1: pagination links, ETags, the token,
// and that every limit (primary, secondary, 5xx) is waited out rather than hammered.
#include <catch2/catch.hpp>
#include <curl/curl.h>

#include <mutex>
#include <nlohmann/json.hpp>

#include "core/crawl/github_client.h"
#include "core/crawl/link_header.h"
#include "core/error.h"
#include "tests/unit/test_repo_loopback.h"

using namespace mine;
using std::chrono::milliseconds;

namespace {

// Real time (the fake server keeps real time), with every sleep recorded for the assertions.
class RecordingClock : public CrawlClock {
 public:
  std::chrono::system_clock::time_point now() override { return std::chrono::system_clock::now(); }
  void sleep_for(milliseconds d) override {
    {
      std::lock_guard lock(mutex_);
      slept_ += d;
    }
    std::this_thread::sleep_for(d);
  }
  milliseconds slept() {
    std::lock_guard lock(mutex_);
    return slept_;
  }

 private:
  std::mutex mutex_;
  milliseconds slept_{0};
};

GithubClientOptions fast_options(int port) {
  GithubClientOptions o;
  o.api_url = "http://127.0.0.1:" + std::to_string(port);
  o.backoff_initial = milliseconds(50);
  o.backoff_cap = milliseconds(400);
  o.reset_margin = milliseconds(300);
  o.secondary_wait_default = milliseconds(500);
  o.connect_timeout_s = 5;
  o.timeout_s = 20;
  return o;
}

nlohmann::json server_log(int port) { return loopback::fetch_json(port, "/_log"); }
using loopback::violations;

const std::string kSearch = "/search/repositories?q=stars%3A%3E%3D100&per_page=100&sort=stars&order=desc";

}  // namespace

TEST_CASE("Link headers give next and last pages", "[github]") {
  auto links = parse_link_header(
      "<https://api.github.com/search/repositories?q=x&page=2>; rel=\"next\", "
      "<https://api.github.com/search/repositories?q=x&page=10>; rel=\"last\"");
  CHECK(links["next"] == "https://api.github.com/search/repositories?q=x&page=2");
  CHECK(links["last"] == "https://api.github.com/search/repositories?q=x&page=10");
  CHECK(parse_link_header("").empty());
  auto multi = parse_link_header("<http://h/a?x=1,2>; rel=\"prev first\"");
  CHECK(multi["prev"] == "http://h/a?x=1,2");
  CHECK(multi["first"] == "http://h/a?x=1,2");
}

TEST_CASE("GithubClient follows Link pages and reuses bodies on 304", "[github]") {
  auto server = loopback::start_fake_github({});
  RecordingClock clock;
  MemoryEtagCache etags;
  GithubClient client(fast_options(server->port()), clock, &etags);

  auto first = client.get(kSearch);
  REQUIRE(first.status == 200);
  CHECK_FALSE(first.from_cache);
  auto links = parse_link_header(first.header("link"));
  REQUIRE(links.count("next"));
  auto second = client.get(links["next"]);
  REQUIRE(second.status == 200);
  auto p1 = nlohmann::json::parse(first.body), p2 = nlohmann::json::parse(second.body);
  CHECK(p1["items"].size() == 100);
  CHECK(p2["items"].size() == 100);
  CHECK(p1["items"][0]["full_name"] != p2["items"][0]["full_name"]);

  auto again = client.get(kSearch);
  CHECK(again.status == 200);
  CHECK(again.from_cache);
  CHECK(again.body == first.body);
  auto log = server_log(server->port());
  REQUIRE(log.size() == 3);
  CHECK(log[2]["status"] == 304);
}

TEST_CASE("GithubClient sends the token and never puts it in errors", "[github]") {
  const std::string token = "ghp_secretSECRETsecret123";
  auto server = loopback::start_fake_github({"--require-token", token});
  RecordingClock clock;
  auto with = fast_options(server->port());
  with.token = token;
  GithubClient authed(with, clock);
  CHECK(authed.get(kSearch).status == 200);

  auto wrong = fast_options(server->port());
  wrong.token = "ghp_wrongWRONGwrong456";
  GithubClient refused(wrong, clock);
  try {
    refused.get_json(kSearch);
    FAIL("expected 401");
  } catch (const Error& e) {
    std::string what = e.what();
    CHECK(what.find("401") != std::string::npos);
    CHECK(what.find("wrongWRONG") == std::string::npos);
  }
}

TEST_CASE("GithubClient backs off on 502 and gives up after bounded attempts", "[github]") {
  SECTION("every second request is a 502: all still succeed") {
    auto server = loopback::start_fake_github({"--fail-502-every", "2"});
    RecordingClock clock;
    GithubClient client(fast_options(server->port()), clock);
    for (int i = 0; i < 4; ++i) CHECK(client.get(kSearch).status == 200);
    CHECK(client.waits() >= 3);
    CHECK(clock.slept() >= milliseconds(3 * 25));  // equal jitter keeps at least half of 50ms
  }
  SECTION("nothing listening: bounded retries, then an error") {
    RecordingClock clock;
    auto o = fast_options(loopback::free_port());
    o.max_attempts = 4;
    o.token = "ghp_tokenTOKENtoken789";
    GithubClient client(o, clock);
    auto t0 = std::chrono::steady_clock::now();
    try {
      client.get(kSearch);
      FAIL("expected an error");
    } catch (const Error& e) {
      std::string what = e.what();
      CHECK(what.find("4 attempts") != std::string::npos);
      CHECK(what.find("tokenTOKEN") == std::string::npos);
    }
    CHECK(client.requests_sent() == 4);
    // Exponential: 50 + 100 + 200 (each at least half), capped at 400.
    CHECK(clock.slept() >= milliseconds(175));
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  }
}

TEST_CASE("GithubClient honours Retry-After on secondary limits", "[github]") {
  auto server = loopback::start_fake_github({"--secondary-every", "3", "--retry-after", "1"});
  RecordingClock clock;
  GithubClient client(fast_options(server->port()), clock);
  std::vector<ApiWait> waits;
  client.set_wait_listener([&](const ApiWait& w) { waits.push_back(w); });
  for (int i = 0; i < 5; ++i) CHECK(client.get(kSearch).status == 200);
  auto log = server_log(server->port());
  int secondaries = 0;
  for (const auto& e : log) secondaries += e["status"] == 403;
  CHECK(secondaries >= 2);
  CHECK(violations(log).empty());
  CHECK(clock.slept() >= milliseconds(1900));  // deadline-based: the sum of sleeps falls a hair short
  REQUIRE_FALSE(waits.empty());
  CHECK(waits.front().reason == "secondary rate limit");
  CHECK(waits.back().remaining == milliseconds(0));
}

TEST_CASE("GithubClient sends nothing while the rate limit is exhausted", "[github]") {
  auto server = loopback::start_fake_github({"--rate-limit", "4", "--rate-window", "2"});
  RecordingClock clock;
  GithubClient client(fast_options(server->port()), clock);
  int countdown_reports = 0;
  client.set_wait_listener([&](const ApiWait& w) {
    if (w.reason.find("rate limit exhausted") != std::string::npos) ++countdown_reports;
  });
  for (int i = 0; i < 10; ++i) CHECK(client.get(kSearch).status == 200);
  auto log = server_log(server->port());
  CHECK(violations(log).empty());
  CHECK(log.size() == 10);  // the client waited before sending, so not even one refusal
  for (const auto& e : log) CHECK(e["status"] == 200);
  CHECK(countdown_reports >= 2);
}

TEST_CASE("GithubClient stops waiting when the crawl is cancelled", "[github]") {
  auto server = loopback::start_fake_github({"--rate-limit", "1", "--rate-window", "60"});
  RecordingClock clock;
  std::atomic<bool> cancel{false};
  auto o = fast_options(server->port());
  o.cancel = &cancel;
  GithubClient client(o, clock);
  client.set_wait_listener([&](const ApiWait&) { cancel = true; });  // Ctrl-C during the countdown
  CHECK(client.get(kSearch).status == 200);
  auto t0 = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(client.get(kSearch), Catch::Contains("cancelled"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  CHECK(violations(server_log(server->port())).empty());
}
