#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mine {

struct SplitSpec {
  std::string name;  // e.g. "test"
  double fraction = 0;
};

// Parses NAME=FRACTION, e.g. "test=0.05". Throws mine::Error on anything else.
SplitSpec parse_split(const std::string& text);

// Assigns each kernel to a split: 0 is the remainder ("train"), i + 1 is specs[i]. Kernels of one
// repository, and kernels of one near-duplicate cluster (`clusters[i]`, -1 for none), always land
// on the same side, so the groups joined by either relation move as one: whole groups are taken
// in a deterministic pseudo-random order (a hash of the group's first repository name) into each
// split until it holds its fraction of the kernels. Fractions are therefore approximate, more so
// for corpora of few large repositories.
std::vector<int> assign_splits(const std::vector<std::string>& repos, const std::vector<int64_t>& clusters,
                               const std::vector<SplitSpec>& specs);

}  // namespace mine
