#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/dedup/dedup_clusters.h"
#include "core/dedup/representative.h"
#include "core/dedup/signature_batch.h"

using namespace mine::dedup;

namespace {

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(MINE_FIXTURES_DIR) + "/dedup/" + name);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using Partition = std::set<std::set<std::string>>;

Partition partition(const std::vector<std::string>& names, const std::vector<size_t>& rep) {
  std::map<size_t, std::set<std::string>> groups;
  for (size_t i = 0; i < names.size(); ++i) groups[rep[i]].insert(names[i]);
  Partition out;
  for (auto& [r, g] : groups) out.insert(g);
  return out;
}

}  // namespace

TEST_CASE("fixture duplicates cluster exactly at each level", "[dedup][clusters]") {
  std::vector<std::string> names{"original.py", "reformatted.py", "renamed.py", "one_line_change.py", "different.py"};
  std::vector<std::string> sources;
  for (const auto& n : names) sources.push_back(read_fixture(n));
  MinHasher hasher;
  SignedBatch batch = sign_documents(
      sources.size(), [&](size_t i) { return std::string_view(sources[i]); }, hasher, 2);
  std::vector<DedupItem> items;
  for (size_t i = 0; i < names.size(); ++i)
    items.push_back({{static_cast<int64_t>(i + 1)}, batch.docs[i].exact_hash, batch.docs[i].alpha_hash});

  NearDedupConfig config;
  config.threads = 2;
  ClusterAssignment c = assign_clusters(items, batch.signatures, config);

  CHECK(partition(names, c.exact) == Partition{{"original.py", "reformatted.py"},
                                              {"renamed.py"},
                                              {"one_line_change.py"},
                                              {"different.py"}});
  CHECK(partition(names, c.alpha) == Partition{{"original.py", "reformatted.py", "renamed.py"},
                                              {"one_line_change.py"},
                                              {"different.py"}});
  CHECK(partition(names, c.near) ==
        Partition{{"original.py", "reformatted.py", "renamed.py", "one_line_change.py"}, {"different.py"}});

  // The near pair is found by MinHash itself, not only through the exact and alpha levels.
  double j = estimated_jaccard(batch.signatures.row(0), batch.signatures.row(3), 256);
  CHECK(j >= 0.85);
  CHECK(j < 1.0);
  CHECK(estimated_jaccard(batch.signatures.row(0), batch.signatures.row(4), 256) < 0.3);
  CHECK(c.near_stats.accepted_pairs >= 1);
}

TEST_CASE("representative: most stars, then oldest commit, then lowest id", "[dedup][representative]") {
  std::vector<CopyProvenance> copies{
      {10, 5, "2024-01-01T00:00:00Z"},
      {11, 900, "2024-06-01T00:00:00Z"},
      {12, 900, "2023-02-01T00:00:00Z"},
      {13, 900, ""},
      {9, -1, "2020-01-01T00:00:00Z"},
  };
  CHECK(pick_representative(copies) == 2);
  copies[2].commit_time.clear();
  CHECK(pick_representative(copies) == 1);  // a known time beats an unknown one
  std::vector<CopyProvenance> unknown{{7}, {3}, {5}};
  CHECK(pick_representative(unknown) == 1);
  CHECK(better_representative({1, 0, ""}, {2, -1, ""}));  // 0 stars beats unknown
}

TEST_CASE("the representative is chosen per cluster through the provenance", "[dedup][clusters]") {
  std::vector<DedupItem> items{
      {{1, 10}, "h1", "a1"}, {{2, 50}, "h1", "a1"}, {{3, 50}, "h2", "a1"}, {{4, -1}, "h3", "a3"}};
  ClusterAssignment c = assign_clusters(items, SignatureMatrix{}, NearDedupConfig{});
  CHECK(c.exact == std::vector<size_t>{1, 1, 2, 3});
  CHECK(c.alpha == std::vector<size_t>{1, 1, 1, 3});
  CHECK(c.near == c.alpha);
}
