#include "core/dedup/lsh_index.h"

#include <algorithm>
#include <cmath>
#include <thread>

#include "core/dedup/min_hasher.h"
#include "core/error.h"

namespace mine::dedup {
namespace {

double integrate(double lo, double hi, int b, int r, bool above) {
  const int steps = 200;
  double h = (hi - lo) / steps, sum = 0;
  for (int i = 0; i < steps; ++i) {
    double s = lo + (i + 0.5) * h;
    double p = 1.0 - std::pow(1.0 - std::pow(s, r), b);
    sum += above ? 1.0 - p : p;
  }
  return sum * h;
}

uint64_t band_key(const uint32_t* row, int rows) {
  uint64_t h = 0x84222325cbf29ce4ULL;
  for (int i = 0; i < rows; ++i) h = MinHasher::mix(h ^ row[i]);
  return h;
}

}  // namespace

LshBands choose_bands(double threshold, int perms, double fp_weight, double fn_weight) {
  if (!(threshold > 0.0 && threshold < 1.0)) throw Error("near-dedup threshold must be between 0 and 1 (exclusive)");
  LshBands best{1, perms};
  double best_err = 1e300;
  for (int b = 1; b <= perms; ++b) {
    for (int r = 1; r <= perms / b; ++r) {
      double err = fp_weight * integrate(0.0, threshold, b, r, false) + fn_weight * integrate(threshold, 1.0, b, r, true);
      if (err < best_err) {
        best_err = err;
        best = {b, r};
      }
    }
  }
  return best;
}

void link_near_duplicates(const SignatureMatrix& sigs, LshBands lsh, double threshold, int threads, DisjointSets& sets,
                          NearDupStats* stats) {
  const size_t n = sigs.size();
  if (lsh.bands * lsh.rows > sigs.perms || lsh.bands < 1 || lsh.rows < 1)
    throw Error("near-dedup: " + std::to_string(lsh.bands) + " bands x " + std::to_string(lsh.rows) +
                " rows do not fit in " + std::to_string(sigs.perms) + " permutations");
  if (n < 2) return;
  threads = std::max(1, std::min(threads, lsh.bands));

  // 1. Candidate pairs, one band per task.
  std::vector<std::vector<uint64_t>> found(static_cast<size_t>(threads));
  auto band_worker = [&](int t) {
    std::vector<std::pair<uint64_t, uint32_t>> keys(n);
    auto& out = found[static_cast<size_t>(t)];
    for (int band = t; band < lsh.bands; band += threads) {
      for (size_t i = 0; i < n; ++i)
        keys[i] = {band_key(sigs.row(i) + band * lsh.rows, lsh.rows), static_cast<uint32_t>(i)};
      std::sort(keys.begin(), keys.end());
      for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && keys[j].first == keys[i].first) ++j;
        for (size_t m = i + 1; m < j; ++m) {
          out.push_back(static_cast<uint64_t>(keys[i].second) << 32 | keys[m].second);
          if (m > i + 1) out.push_back(static_cast<uint64_t>(keys[m - 1].second) << 32 | keys[m].second);
        }
        i = j;
      }
      std::sort(out.begin(), out.end());
      out.erase(std::unique(out.begin(), out.end()), out.end());
    }
  };
  {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(band_worker, t);
    band_worker(0);
    for (auto& th : pool) th.join();
  }
  std::vector<uint64_t> pairs = std::move(found[0]);
  for (size_t t = 1; t < found.size(); ++t) {
    pairs.insert(pairs.end(), found[t].begin(), found[t].end());
    std::vector<uint64_t>().swap(found[t]);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());

  // 2. Verification with the whole signature, in parallel; 3. union, in one thread.
  std::vector<char> accept(pairs.size(), 0);
  auto verify_worker = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      uint32_t x = static_cast<uint32_t>(pairs[i] >> 32), y = static_cast<uint32_t>(pairs[i]);
      accept[i] = estimated_jaccard(sigs.row(x), sigs.row(y), sigs.perms) >= threshold;
    }
  };
  {
    std::vector<std::thread> pool;
    size_t chunk = (pairs.size() + static_cast<size_t>(threads) - 1) / static_cast<size_t>(threads);
    for (int t = 1; t < threads; ++t) {
      size_t from = std::min(pairs.size(), chunk * static_cast<size_t>(t));
      pool.emplace_back(verify_worker, from, std::min(pairs.size(), from + chunk));
    }
    verify_worker(0, std::min(pairs.size(), chunk));
    for (auto& th : pool) th.join();
  }
  uint64_t accepted = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!accept[i]) continue;
    ++accepted;
    sets.unite(static_cast<uint32_t>(pairs[i] >> 32), static_cast<uint32_t>(pairs[i]));
  }
  if (stats) {
    stats->candidate_pairs += pairs.size();
    stats->accepted_pairs += accepted;
  }
}

LshIndex::LshIndex(int perms, LshBands bands) : perms_(perms), bands_(bands) {
  if (bands.bands < 1 || bands.rows < 1 || bands.bands * bands.rows > perms)
    throw Error("LSH index: " + std::to_string(bands.bands) + " bands x " + std::to_string(bands.rows) +
                " rows do not fit in " + std::to_string(perms) + " permutations");
  buckets_.resize(static_cast<size_t>(bands.bands));
}

uint32_t LshIndex::add(const uint32_t* signature) {
  uint32_t id = static_cast<uint32_t>(count_++);
  signatures_.insert(signatures_.end(), signature, signature + perms_);
  for (int b = 0; b < bands_.bands; ++b)
    buckets_[static_cast<size_t>(b)].emplace(band_key(signature + b * bands_.rows, bands_.rows), id);
  return id;
}

std::vector<uint32_t> LshIndex::near(const uint32_t* signature, double threshold) const {
  std::vector<uint32_t> candidates;
  for (int b = 0; b < bands_.bands; ++b) {
    auto range = buckets_[static_cast<size_t>(b)].equal_range(band_key(signature + b * bands_.rows, bands_.rows));
    for (auto it = range.first; it != range.second; ++it) candidates.push_back(it->second);
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<uint32_t> out;
  for (uint32_t id : candidates)
    if (estimated_jaccard(signature, signatures_.data() + static_cast<size_t>(id) * static_cast<size_t>(perms_), perms_) >=
        threshold)
      out.push_back(id);
  return out;
}

}  // namespace mine::dedup
