// Not a test: the RepoCloner half of bench/crawl.sh, hidden from normal runs by the "[.]" tag.
// Reads MINE_CLONE_BENCH_LIST (lines "owner/name clone_url") and clones each, one after the
// other, into MINE_CLONE_BENCH_CACHE; prints seconds per repository and in total.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/crawl/repo_cloner.h"

TEST_CASE("clone benchmark driver", "[.clone-bench]") {
  const char* list = std::getenv("MINE_CLONE_BENCH_LIST");
  const char* cache = std::getenv("MINE_CLONE_BENCH_CACHE");
  REQUIRE(list);
  REQUIRE(cache);
  std::ifstream in(list);
  std::string line;
  double total = 0;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    mine::RepoInfo repo;
    fields >> repo.full_name >> repo.clone_url;
    if (repo.full_name.empty()) continue;
    mine::RepoCloner cloner({cache});
    auto t0 = std::chrono::steady_clock::now();
    auto result = cloner.sync(repo);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total += s;
    std::printf("mine-clone %s %.3f %s %lld\n", repo.full_name.c_str(), s, result.commit.c_str(),
                static_cast<long long>(result.received_bytes));
  }
  std::printf("mine-clone-total %.3f\n", total);
}
