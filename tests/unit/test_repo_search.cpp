// RepoSearch against the fake GitHub API's generated population of 2500 repositories, where
// more than 1000 share one star count: only star splitting plus creation-date splitting can
// reach all of them through the 1000-result cap.
#include <catch2/catch.hpp>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "core/crawl/repo_search.h"
#include "tests/unit/test_repo_loopback.h"

using namespace mine;
using std::chrono::milliseconds;
using loopback::fetch_json;

namespace {

std::set<std::string> expected(int port, int64_t min_stars) {
  std::set<std::string> names;
  for (const auto& r : fetch_json(port, "/_population"))
    if (r["stargazers_count"].get<int64_t>() >= min_stars && !r["fork"].get<bool>() && !r["archived"].get<bool>())
      names.insert(r["full_name"].get<std::string>());
  return names;
}

GithubClientOptions fast_options(int port) {
  GithubClientOptions o;
  o.api_url = "http://127.0.0.1:" + std::to_string(port);
  o.backoff_initial = milliseconds(50);
  o.backoff_cap = milliseconds(400);
  o.reset_margin = milliseconds(300);
  return o;
}

}  // namespace

TEST_CASE("RepoSearch splits star and date ranges until it has every repository", "[github][search]") {
  auto server = loopback::start_fake_github({"--population", "2500"});
  auto want = expected(server->port(), 100);
  auto population = fetch_json(server->port(), "/_population");
  int64_t at_threshold = std::count_if(population.begin(), population.end(), [](const nlohmann::json& r) {
    return r["stargazers_count"] == 100 && !r["fork"].get<bool>() && !r["archived"].get<bool>();
  });
  REQUIRE(want.size() > 1000);
  REQUIRE(at_threshold > 1000);  // the population forces creation-date splitting

  SystemCrawlClock clock;
  MemoryEtagCache etags;
  GithubClient client(fast_options(server->port()), clock, &etags);
  RepoSearchOptions options;
  options.min_stars = 100;
  std::set<std::string> got;
  std::vector<RepoInfo> infos;
  auto stats = RepoSearch(client, options).run([&](const RepoInfo& r) {
    CHECK(got.insert(r.full_name).second);  // reported once each
    infos.push_back(r);
  });
  CHECK(got == want);
  CHECK(stats.star_splits > 0);
  CHECK(stats.date_splits > 0);
  CHECK(stats.capped_slices == 0);
  CHECK(stats.short_slices == 0);
  for (const auto& r : infos) {
    CHECK(r.stars >= 100);
    CHECK_FALSE(r.fork);
    CHECK_FALSE(r.archived);
    CHECK_FALSE(r.clone_url.empty());
    CHECK_FALSE(r.default_branch.empty());
  }
  // Licenses: SPDX ids where the API has one, "" where it has none.
  CHECK(std::any_of(infos.begin(), infos.end(), [](const RepoInfo& r) { return r.license_spdx == "MIT"; }));
  CHECK(std::any_of(infos.begin(), infos.end(), [](const RepoInfo& r) { return r.license_spdx.empty(); }));

  SECTION("a re-crawl revalidates every page with ETags and finds the same set") {
    std::set<std::string> again;
    auto before = fetch_json(server->port(), "/_log").size();
    RepoSearch(client, options).run([&](const RepoInfo& r) { again.insert(r.full_name); });
    CHECK(again == want);
    auto log = fetch_json(server->port(), "/_log");
    for (size_t i = before; i < log.size(); ++i) CHECK(log[i]["status"] == 304);
  }
}

TEST_CASE("RepoSearch gets the whole population through 502s, secondary limits and a tight rate limit",
          "[github][search]") {
  auto server = loopback::start_fake_github({"--population", "2500", "--fail-502-every", "17", "--secondary-every",
                                             "41", "--retry-after", "1", "--rate-limit", "25", "--rate-window", "2",
                                             "--incomplete-every", "5"});
  auto want = expected(server->port(), 100);
  SystemCrawlClock clock;
  GithubClient client(fast_options(server->port()), clock);
  RepoSearchOptions options;
  std::set<std::string> got;
  auto stats = RepoSearch(client, options).run([&](const RepoInfo& r) { got.insert(r.full_name); });
  CHECK(got == want);
  CHECK(stats.incomplete_pages == 0);
  auto log = fetch_json(server->port(), "/_log");
  std::vector<std::string> bad;
  int s502 = 0, s403 = 0;
  for (const auto& e : log) {
    if (!e["violation"].is_null()) bad.push_back(e["path"].get<std::string>());
    s502 += e["status"] == 502;
    s403 += e["status"] == 403;
  }
  CHECK(bad.empty());
  CHECK(s502 > 0);
  CHECK(s403 > 0);
  CHECK(client.waits() > 0);
}

TEST_CASE("RepoSearch filters and stops", "[github][search]") {
  auto server = loopback::start_fake_github({"--population", "600"});
  SystemCrawlClock clock;
  GithubClient client(fast_options(server->port()), clock);

  SECTION("max_repos stops discovery early") {
    RepoSearchOptions options;
    options.max_repos = 150;
    int n = 0;
    auto stats = RepoSearch(client, options).run([&](const RepoInfo&) { ++n; });
    CHECK(n == 150);
    CHECK(stats.requests == 2);
  }
  SECTION("forks are found only when asked, and the size limit holds") {
    auto population = fetch_json(server->port(), "/_population");
    RepoSearchOptions options;
    options.include_forks = true;
    options.include_archived = true;
    options.max_size_kb = 20000;
    std::set<std::string> got;
    RepoSearch(client, options).run([&](const RepoInfo& r) {
      got.insert(r.full_name);
      CHECK(r.size_kb <= 20000);
    });
    std::set<std::string> want;
    for (const auto& r : population)
      if (r["stargazers_count"].get<int64_t>() >= 100 && r["size"].get<int64_t>() <= 20000)
        want.insert(r["full_name"].get<std::string>());
    CHECK(got == want);
  }
}
