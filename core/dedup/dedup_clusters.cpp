#include "core/dedup/dedup_clusters.h"

#include <unordered_map>

#include "core/error.h"

namespace mine::dedup {
namespace {

void unite_equal(const std::vector<DedupItem>& items, std::string DedupItem::*key, DisjointSets& sets) {
  std::unordered_map<std::string_view, uint32_t> first;
  first.reserve(items.size());
  for (uint32_t i = 0; i < items.size(); ++i) {
    const std::string& k = items[i].*key;
    if (k.empty()) continue;  // not hashed: never equal to anything
    auto [it, fresh] = first.try_emplace(k, i);
    if (!fresh) sets.unite(it->second, i);
  }
}

std::vector<size_t> representatives(const std::vector<DedupItem>& items, DisjointSets& sets) {
  std::unordered_map<uint32_t, size_t> best;  // root -> representative index
  for (uint32_t i = 0; i < items.size(); ++i) {
    auto [it, fresh] = best.try_emplace(sets.find(i), i);
    if (!fresh && better_representative(items[i].provenance, items[it->second].provenance)) it->second = i;
  }
  std::vector<size_t> out(items.size());
  for (uint32_t i = 0; i < items.size(); ++i) out[i] = best[sets.find(i)];
  return out;
}

}  // namespace

ClusterAssignment assign_clusters(const std::vector<DedupItem>& items, const SignatureMatrix& signatures,
                                  const NearDedupConfig& config) {
  if (signatures.size() != 0 && signatures.size() != items.size())
    throw Error("dedup: " + std::to_string(signatures.size()) + " signatures for " + std::to_string(items.size()) +
                " kernels");
  ClusterAssignment out;
  DisjointSets sets(items.size());
  unite_equal(items, &DedupItem::exact_hash, sets);
  out.exact = representatives(items, sets);
  unite_equal(items, &DedupItem::alpha_hash, sets);
  out.alpha = representatives(items, sets);
  if (signatures.size() != 0)
    link_near_duplicates(signatures, config.bands, config.threshold, config.threads, sets, &out.near_stats);
  out.near = representatives(items, sets);
  return out;
}

}  // namespace mine::dedup
