#include "core/dedup/min_hasher.h"

#include <algorithm>

#include "core/error.h"

namespace mine::dedup {

std::string MinHashParams::fingerprint() const {
  return "minhash-v3 lexer shingle=" + std::to_string(shingle) + " perms=" + std::to_string(perms) +
         " seed=" + std::to_string(seed);
}

uint64_t MinHasher::mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t MinHasher::token_hash(std::string_view token) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : token) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

MinHasher::MinHasher(MinHashParams params) : params_(params) {
  if (params_.shingle < 1) throw Error("minhash: shingle size must be at least 1");
  if (params_.perms < 1 || params_.perms > 4096) throw Error("minhash: permutations must be between 1 and 4096");
  uint64_t state = params_.seed;
  auto next = [&] {
    state += 0x9e3779b97f4a7c15ULL;
    return mix(state);
  };
  a_.resize(static_cast<size_t>(params_.perms));
  b_.resize(static_cast<size_t>(params_.perms));
  for (int p = 0; p < params_.perms; ++p) {
    a_[static_cast<size_t>(p)] = next() | 1;
    b_[static_cast<size_t>(p)] = next();
  }
}

void MinHasher::sign(const std::vector<std::string>& tokens, uint32_t* out) const {
  std::vector<uint64_t> hashes;
  hashes.reserve(tokens.size());
  for (const auto& t : tokens) hashes.push_back(token_hash(t));
  sign_hashes(hashes, out);
}

std::vector<uint32_t> MinHasher::sign(const std::vector<std::string>& tokens) const {
  std::vector<uint32_t> out(static_cast<size_t>(params_.perms));
  sign(tokens, out.data());
  return out;
}

namespace {

// The hot loop: every (shingle, permutation) pair. Blocks of 16 permutations keep their running
// minima in vector registers while all shingles stream past. Cloned for AVX-512DQ (native 64-bit
// multiply) and AVX2 so one binary runs fast on what it finds; results are identical everywhere.
// ThreadSanitizer's runtime is not up yet when ifunc resolvers run, and crashes in them: a
// TSan build gets the one portable version.
#if defined(__SANITIZE_THREAD__)
#define MINE_CLONED_FOR_CPUS
#else
#define MINE_CLONED_FOR_CPUS __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
MINE_CLONED_FOR_CPUS void min_over_shingles(
    const uint64_t* xs, size_t n, const uint64_t* a, const uint64_t* b, size_t perms, uint32_t* out) {
  constexpr size_t kBlock = 16;
  size_t p0 = 0;
  for (; p0 + kBlock <= perms; p0 += kBlock) {
    uint32_t m[kBlock];
    for (size_t j = 0; j < kBlock; ++j) m[j] = 0xFFFFFFFFu;
    for (size_t s = 0; s < n; ++s) {
      const uint64_t x = xs[s];
      for (size_t j = 0; j < kBlock; ++j) {
        uint32_t v = static_cast<uint32_t>((a[p0 + j] * x + b[p0 + j]) >> 32);
        m[j] = v < m[j] ? v : m[j];
      }
    }
    for (size_t j = 0; j < kBlock; ++j) out[p0 + j] = m[j];
  }
  for (; p0 < perms; ++p0) {
    uint32_t m = 0xFFFFFFFFu;
    for (size_t s = 0; s < n; ++s) {
      uint32_t v = static_cast<uint32_t>((a[p0] * xs[s] + b[p0]) >> 32);
      m = v < m ? v : m;
    }
    out[p0] = m;
  }
}

}  // namespace

void MinHasher::sign_hashes(const std::vector<uint64_t>& th, uint32_t* out) const {
  const size_t P = static_cast<size_t>(params_.perms);
  std::fill(out, out + P, 0xFFFFFFFFu);
  if (th.empty()) return;
  const size_t k = std::min(static_cast<size_t>(params_.shingle), th.size());
  std::vector<uint64_t> xs;
  xs.reserve(th.size() - k + 1);
  for (size_t start = 0; start + k <= th.size(); ++start) {
    // Polynomial in the token hashes, then one finalizer: order-sensitive and well mixed at one
    // mix per shingle rather than one per token.
    uint64_t x = 0;
    for (size_t i = 0; i < k; ++i) x = x * 0x9e3779b97f4a7c15ULL + th[start + i];
    xs.push_back(mix(x));
  }
  min_over_shingles(xs.data(), xs.size(), a_.data(), b_.data(), P, out);
}

double estimated_jaccard(const uint32_t* x, const uint32_t* y, int perms) {
  int equal = 0;
  for (int p = 0; p < perms; ++p) equal += x[p] == y[p];
  return perms > 0 ? static_cast<double>(equal) / perms : 0.0;
}

}  // namespace mine::dedup
