#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mine::dedup {

// Defaults follow the near-deduplication of BigCode's The Stack / StarCoder data: 5-token
// shingles, 256 permutations, Jaccard threshold 0.85.
struct MinHashParams {
  int shingle = 5;
  int perms = 256;
  uint64_t seed = 0x6d696e652d646564ULL;  // fixed, so stored signatures stay comparable across runs

  // Stored next to signatures; a signature made under other params is recomputed, not compared.
  std::string fingerprint() const;
};

// MinHash over the set of k-token shingles of a token stream.
//
// Each token is hashed once (FNV-1a 64), a shingle's hash is the splitmix64 finalizer of a
// polynomial in its k token hashes (O(k) integer ops, no string building), and the P
// "permutations" are multiply-shift hashes h_p(x) = (a_p * x + b_p) mod 2^64 >> 32 with random odd
// a_p. Multiply-shift is 2-universal (Dietzfelbinger et al. 1997) and costs one multiply and one
// add per (shingle, permutation), against a 128-bit modular product for the classic
// (a*x+b) mod (2^61-1) that datasketch uses; 2-universal families are close enough to min-wise
// independent when the input hashes already carry entropy (Mitzenmacher & Vadhan 2008), which
// the finalized shingle hashes do. tests/unit/test_dedup_minhash.cpp checks the estimates
// against exact Jaccard. Signature entries are 32-bit: 256 of them are 1 KiB per document, and a
// chance collision (2^-32) is far below the estimator's own noise.
class MinHasher {
 public:
  explicit MinHasher(MinHashParams params = {});
  const MinHashParams& params() const { return params_; }

  // Writes params().perms values to `out`. Streams shorter than one shingle make one shingle of
  // what they have; an empty stream gives all-0xFFFFFFFF.
  void sign(const std::vector<std::string>& tokens, uint32_t* out) const;
  std::vector<uint32_t> sign(const std::vector<std::string>& tokens) const;

  // Same, from precomputed token hashes (what the benchmark's Python twin is fed).
  void sign_hashes(const std::vector<uint64_t>& token_hashes, uint32_t* out) const;

  static uint64_t token_hash(std::string_view token);
  static uint64_t mix(uint64_t z);

 private:
  MinHashParams params_;
  std::vector<uint64_t> a_, b_;
};

// Fraction of equal positions: the MinHash estimate of the Jaccard similarity.
double estimated_jaccard(const uint32_t* x, const uint32_t* y, int perms);

}  // namespace mine::dedup
