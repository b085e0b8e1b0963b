#pragma once
#include <string>
#include <vector>

#include "core/dedup/lsh_index.h"
#include "core/dedup/representative.h"

namespace mine::dedup {

struct DedupItem {
  CopyProvenance provenance;
  std::string exact_hash;
  std::string alpha_hash;
};

struct NearDedupConfig {
  double threshold = 0.85;
  LshBands bands{18, 14};  // choose_bands(0.85, 256)
  int threads = 1;
};

// For each item and each level, the index of its cluster's representative (itself when it has
// no duplicate). The levels nest: exact clusters lie inside alpha clusters (same tokens means
// same renamed tokens), which lie inside near clusters (the LSH pairs are added on top of them).
struct ClusterAssignment {
  std::vector<size_t> exact;
  std::vector<size_t> alpha;
  std::vector<size_t> near;
  NearDupStats near_stats;
};

// `signatures` rows correspond to `items`; with zero rows the near level equals the alpha level.
ClusterAssignment assign_clusters(const std::vector<DedupItem>& items, const SignatureMatrix& signatures,
                                  const NearDedupConfig& config);

}  // namespace mine::dedup
