#include "core/export/train_test_split.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "core/dedup/disjoint_sets.h"
#include "core/dedup/min_hasher.h"
#include "core/error.h"

namespace mine {

SplitSpec parse_split(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("--split: expected NAME=FRACTION, e.g. test=0.05, not '" + text + "'");
  SplitSpec s;
  s.name = text.substr(0, eq);
  try {
    size_t used = 0;
    s.fraction = std::stod(text.substr(eq + 1), &used);
    if (used != text.size() - eq - 1) throw std::invalid_argument("trailing");
  } catch (const std::exception&) {
    throw Error("--split: '" + text.substr(eq + 1) + "' is not a number");
  }
  if (!(s.fraction > 0 && s.fraction < 1)) throw Error("--split: the fraction must be between 0 and 1");
  if (s.name == "train") throw Error("--split: 'train' is the remainder; name the other splits");
  return s;
}

std::vector<int> assign_splits(const std::vector<std::string>& repos, const std::vector<int64_t>& clusters,
                               const std::vector<SplitSpec>& specs) {
  const size_t n = repos.size();
  dedup::DisjointSets sets(n);
  std::unordered_map<std::string, uint32_t> by_repo;
  std::unordered_map<int64_t, uint32_t> by_cluster;
  for (uint32_t i = 0; i < n; ++i) {
    auto [r, fresh_r] = by_repo.try_emplace(repos[i], i);
    if (!fresh_r) sets.unite(r->second, i);
    if (clusters[i] < 0) continue;
    auto [c, fresh_c] = by_cluster.try_emplace(clusters[i], i);
    if (!fresh_c) sets.unite(c->second, i);
  }
  std::map<uint32_t, std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < n; ++i) groups[sets.find(i)].push_back(i);
  std::vector<std::pair<uint64_t, uint32_t>> order;  // (hash of the group's first repo, root)
  for (const auto& [root, members] : groups) {
    std::string first = repos[members.front()];
    for (uint32_t m : members) first = std::min(first, repos[m]);
    order.emplace_back(dedup::MinHasher::mix(dedup::MinHasher::token_hash(first)), root);
  }
  std::sort(order.begin(), order.end());
  double total = 0;
  for (const auto& s : specs) total += s.fraction;
  if (total >= 1) throw Error("--split: the fractions add up to 1 or more; nothing would be left to train on");

  std::vector<int> out(n, 0);
  std::vector<size_t> filled(specs.size(), 0);
  for (const auto& [h, root] : order) {
    const auto& members = groups[root];
    for (size_t s = 0; s < specs.size(); ++s) {
      // Never overshoot: a split of one large repository would otherwise take far more than asked,
      // and on a small corpus leave nothing to train on.
      if (static_cast<double>(filled[s] + members.size()) > specs[s].fraction * static_cast<double>(n) + 1e-9) continue;
      for (uint32_t m : members) out[m] = static_cast<int>(s + 1);
      filled[s] += members.size();
      break;
    }
  }
  return out;
}

}  // namespace mine
