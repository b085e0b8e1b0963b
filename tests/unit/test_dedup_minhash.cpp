#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <set>
#include <string>

#include "core/dedup/lsh_index.h"
#include "core/dedup/min_hasher.h"

using namespace mine::dedup;

namespace {

std::set<std::string> shingles(const std::vector<std::string>& t, size_t k) {
  std::set<std::string> out;
  for (size_t i = 0; i + k <= t.size(); ++i) {
    std::string s;
    for (size_t j = 0; j < k; ++j) s += t[i + j] + '\x1f';
    out.insert(s);
  }
  return out;
}

double true_jaccard(const std::vector<std::string>& a, const std::vector<std::string>& b, size_t k) {
  auto x = shingles(a, k), y = shingles(b, k);
  size_t common = 0;
  for (const auto& s : x) common += y.count(s);
  return static_cast<double>(common) / static_cast<double>(x.size() + y.size() - common);
}

}  // namespace

TEST_CASE("MinHash estimates track exact shingle Jaccard", "[dedup][minhash]") {
  MinHasher hasher;  // 5-shingles, 256 perms
  std::mt19937 rng(7);
  double total_error = 0, worst = 0;
  int pairs = 0;
  for (int edits : {1, 3, 10, 30, 60, 120}) {
    for (int rep = 0; rep < 5; ++rep) {
      std::vector<std::string> a;
      for (int i = 0; i < 300; ++i) a.push_back("t" + std::to_string(rng() % 500));
      std::vector<std::string> b = a;
      for (int e = 0; e < edits; ++e) b[rng() % b.size()] = "e" + std::to_string(rng() % 500);
      double truth = true_jaccard(a, b, 5);
      double est = estimated_jaccard(hasher.sign(a).data(), hasher.sign(b).data(), 256);
      double err = std::fabs(truth - est);
      total_error += err;
      worst = std::max(worst, err);
      ++pairs;
    }
  }
  // Standard error at 256 perms is at most 0.031; allow ~3.5 sigma for the worst of 30 pairs.
  CHECK(total_error / pairs < 0.03);
  CHECK(worst < 0.11);
}

TEST_CASE("MinHash is deterministic and order sensitive only through shingles", "[dedup][minhash]") {
  MinHasher h1, h2;
  std::vector<std::string> t{"a", "b", "c", "d", "e", "f", "g"};
  CHECK(h1.sign(t) == h2.sign(t));
  MinHasher other({5, 256, 1});
  CHECK(h1.sign(t) != other.sign(t));
  std::vector<std::string> short_stream{"x", "y"};
  auto s = h1.sign(short_stream);
  CHECK(s[0] != 0xFFFFFFFFu);
  auto empty = h1.sign(std::vector<std::string>{});
  CHECK(empty[0] == 0xFFFFFFFFu);
  CHECK(MinHashParams{}.fingerprint() != MinHashParams{4, 256}.fingerprint());
}

TEST_CASE("band choice reproduces datasketch's optimum and the recall-weighted default", "[dedup][lsh]") {
  LshBands equal = choose_bands(0.85, 256, 0.5, 0.5);
  CHECK(equal.bands == 13);
  CHECK(equal.rows == 19);
  LshBands d = choose_bands(0.85, 256);
  CHECK(d.bands == 18);
  CHECK(d.rows == 14);
  CHECK_THROWS(choose_bands(1.0, 256));
}

TEST_CASE("LSH links planted near-duplicates and nothing else", "[dedup][lsh]") {
  MinHasher hasher;
  std::mt19937 rng(11);
  SignatureMatrix m;
  m.perms = 256;
  // 40 base documents, each with 3 light edits (J well above 0.85) -> 40 clusters of 4.
  for (int base = 0; base < 40; ++base) {
    std::vector<std::string> a;
    for (int i = 0; i < 400; ++i) a.push_back("w" + std::to_string(rng() % 5000));
    for (int copy = 0; copy < 4; ++copy) {
      auto b = a;
      if (copy) b[rng() % b.size()] = "edit" + std::to_string(copy);
      auto s = hasher.sign(b);
      m.values.insert(m.values.end(), s.begin(), s.end());
    }
  }
  DisjointSets sets(m.size());
  NearDupStats stats;
  link_near_duplicates(m, choose_bands(0.85, 256), 0.85, 2, sets, &stats);
  auto roots = sets.roots();
  for (uint32_t i = 0; i < roots.size(); ++i) CHECK(roots[i] == (i / 4) * 4);
  CHECK(stats.accepted_pairs >= 120);
}

TEST_CASE("LshIndex answers near queries without linking the queries", "[dedup][lsh]") {
  MinHasher hasher;
  std::mt19937 rng(3);
  std::vector<std::string> a, b;
  for (int i = 0; i < 300; ++i) a.push_back("a" + std::to_string(rng() % 1000));
  for (int i = 0; i < 300; ++i) b.push_back("b" + std::to_string(rng() % 1000));
  LshIndex index(256, choose_bands(0.85, 256));
  CHECK(index.add(hasher.sign(a).data()) == 0);
  CHECK(index.add(hasher.sign(b).data()) == 1);
  auto a2 = a;
  a2[150] = "changed";
  CHECK(index.near(hasher.sign(a2).data(), 0.85) == std::vector<uint32_t>{0});
  std::vector<std::string> c;
  for (int i = 0; i < 300; ++i) c.push_back("c" + std::to_string(rng() % 1000));
  CHECK(index.near(hasher.sign(c).data(), 0.85).empty());
}
