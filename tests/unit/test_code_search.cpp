// CodeSearch and per-resource rate limits against the fake GitHub API: a generated population
// where `triton.jit` is in more files than code search's 1000-result cap, so only size slicing
// reaches them all, and where code search items carry no stars, so each repository is looked up.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>

#include "core/crawl/code_search.h"
#include "tests/unit/test_repo_loopback.h"

using namespace mine;
using std::chrono::milliseconds;
using loopback::fetch_json;
using loopback::violations;

namespace {

GithubClientOptions fast_options(int port) {
  GithubClientOptions o;
  o.api_url = "http://127.0.0.1:" + std::to_string(port);
  o.token = "test-token";  // code search answers only authenticated requests
  o.backoff_initial = milliseconds(50);
  o.backoff_cap = milliseconds(400);
  o.reset_margin = milliseconds(300);
  return o;
}

}  // namespace

TEST_CASE("CodeSearch slices by file size under the cap and keeps repositories with enough stars",
          "[github][code_search]") {
  auto server = loopback::start_fake_github({"--population", "1500"});
  auto population = fetch_json(server->port(), "/_population");
  std::set<std::string> want_py, want_all;
  int64_t forks_with_code = 0;
  for (const auto& r : population) {
    if (r["fork"].get<bool>()) {
      ++forks_with_code;
      continue;
    }
    if (r["stargazers_count"].get<int64_t>() < 100 || r["archived"].get<bool>()) continue;
    want_all.insert(r["full_name"].get<std::string>());
    if (r["code"][0]["path"].get<std::string>().find(".py") != std::string::npos)
      want_py.insert(r["full_name"].get<std::string>());
  }
  REQUIRE(population.size() > 1000);  // one triton.jit file each: over the cap

  SystemCrawlClock clock;
  GithubClient client(fast_options(server->port()), clock);
  CodeSearchOptions options;
  options.queries = {{"triton.jit", "py"}, {"triton.jit", "ipynb"}};
  CodeSearch search(client, options);
  std::set<std::string> got;
  search.run([&](const RepoInfo& r) {
    CHECK(got.insert(r.full_name).second);
    CHECK(r.stars >= 100);
    CHECK_FALSE(r.clone_url.empty());  // from the lookup: code search items carry none
  });
  CHECK(got == want_all);
  const auto& s = search.stats();
  CHECK(s.size_splits > 0);
  CHECK(s.capped_slices == 0);
  CHECK(s.files == static_cast<int64_t>(population.size()));
  // One lookup per repository, none for forks (their flag is in the item already).
  CHECK(s.lookups == static_cast<int64_t>(population.size()) - forks_with_code);
  CHECK(s.below_min_stars > 0);

  auto log = fetch_json(server->port(), "/_log");
  int64_t code_requests = 0, core_requests = 0;
  for (const auto& e : log) {
    std::string path = e["path"];
    if (e["resource"] == "code_search") {
      ++code_requests;
      CHECK(path.find("stars") == std::string::npos);  // not a code search qualifier
    }
    if (e["resource"] == "core") ++core_requests;
  }
  CHECK(code_requests == s.search_requests);
  CHECK(core_requests == s.lookups);
  CHECK(client.requests_by_resource().at("code_search") == code_requests);
  CHECK(client.requests_by_resource().at("core") == core_requests);

  SECTION("confirm answers from what run() saw, else asks with repo:") {
    int64_t before = search.stats().confirmations;
    CHECK(search.confirm(*want_py.begin()));
    CHECK(search.stats().confirmations == before);  // no request: run() saw a file there
    CHECK_FALSE(search.confirm("nobody/nothing-here"));
    CHECK(search.stats().confirmations == before + 1);
    CHECK_FALSE(search.confirm("Nobody/Nothing-Here"));  // remembered, names ignore case
    CHECK(search.stats().confirmations == before + 1);
  }
}

TEST_CASE("A spent code_search budget stops code search only, and nothing is sent to it until its reset",
          "[github][code_search]") {
  // GitHub's limits with a 2-second window: 10 code searches, 30 searches.
  auto server = loopback::start_fake_github({"--population", "200", "--code-search-rate-limit", "3",
                                             "--rate-limit", "30", "--rate-window", "2"});
  SystemCrawlClock clock;
  GithubClient client(fast_options(server->port()), clock);
  std::vector<std::string> waits;
  client.set_wait_listener([&](const ApiWait& w) {
    if (w.remaining.count() > 0 && (waits.empty() || waits.back() != w.reason)) waits.push_back(w.reason);
  });
  for (int i = 0; i < 7; ++i) {
    CHECK(client.get("/search/code?q=triton.jit+size:" + std::to_string(i) + "..100000").status == 200);
    // Searches between them never wait for the code search budget.
    CHECK(client.get("/search/repositories?q=triton+stars:>=" + std::to_string(100 + i)).status == 200);
  }
  auto log = fetch_json(server->port(), "/_log");
  CHECK(violations(log).empty());
  for (const auto& e : log) CHECK(e["status"] == 200);
  REQUIRE_FALSE(waits.empty());
  for (const auto& w : waits) CHECK(w == "rate limit exhausted (code_search)");
  CHECK(client.requests_by_resource().at("code_search") == 7);
  CHECK(client.requests_by_resource().at("search") == 7);
}
