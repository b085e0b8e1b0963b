#pragma once
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/dedup/disjoint_sets.h"

namespace mine::dedup {

// Signatures of many documents, row-major: document i is values[i*perms .. (i+1)*perms).
struct SignatureMatrix {
  int perms = 0;
  std::vector<uint32_t> values;
  size_t size() const { return perms ? values.size() / static_cast<size_t>(perms) : 0; }
  const uint32_t* row(size_t i) const { return values.data() + i * static_cast<size_t>(perms); }
};

struct LshBands {
  int bands = 0;
  int rows = 0;
};

// The banding b x r <= perms that minimizes fp_weight * (area under the S-curve 1-(1-s^r)^b below
// the threshold) + fn_weight * (area above it missed): the optimizer datasketch's MinHashLSH uses,
// which BigCode's near-dedup ran with equal weights (13 bands x 19 rows for 256 perms at 0.85).
// mine verifies every candidate pair against the threshold with the full signature, so a false
// positive costs one comparison while a false negative is a duplicate left in the training set:
// the default weights (0.1, 0.9) move the curve left, to 18 x 14 for 256/0.85, where a pair at
// exactly 0.85 becomes a candidate with probability 0.86 instead of 0.45, and one at 0.70 with
// 0.12.
LshBands choose_bands(double threshold, int perms, double fp_weight = 0.1, double fn_weight = 0.9);

struct NearDupStats {
  uint64_t candidate_pairs = 0;  // distinct pairs that shared a band
  uint64_t accepted_pairs = 0;   // of those, estimated Jaccard >= threshold
};

// Unites in `sets` every pair of documents that share a band bucket and whose estimated Jaccard
// is at least `threshold`. Buckets are found by sorting (band key, doc) per band rather than with
// hash maps: for a batch that is faster and its memory is one array per band in flight.
// Within a bucket each member is checked against the bucket's first member and its predecessor,
// which keeps huge buckets (thousands of copies of one file) linear; pairs missed that way are
// usually joined through another band or transitively.
void link_near_duplicates(const SignatureMatrix& sigs, LshBands bands, double threshold, int threads,
                          DisjointSets& sets, NearDupStats* stats = nullptr);

// An LSH index for asking "which stored signatures might be near this one?" one query at a time:
// decontamination indexes the benchmark items and asks for each kernel, so that kernels are never
// linked to each other (a kernel near a kernel near a benchmark item is not itself contaminated).
class LshIndex {
 public:
  LshIndex(int perms, LshBands bands);
  // Returns the new entry's id (0, 1, ...). The signature is copied.
  uint32_t add(const uint32_t* signature);
  // Ids whose signature shares a band with `signature` and whose estimated Jaccard with it is at
  // least `threshold`, ascending.
  std::vector<uint32_t> near(const uint32_t* signature, double threshold) const;
  size_t size() const { return count_; }

 private:
  int perms_;
  LshBands bands_;
  size_t count_ = 0;
  std::vector<uint32_t> signatures_;
  std::vector<std::unordered_multimap<uint64_t, uint32_t>> buckets_;  // one per band
};

}  // namespace mine::dedup
