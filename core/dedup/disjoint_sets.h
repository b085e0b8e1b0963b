#pragma once
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace mine::dedup {

// Union-find over 0..n-1. The root of a set is always its smallest member, so cluster ids do not
// depend on the order in which pairs were found (threads finish in any order).
class DisjointSets {
 public:
  explicit DisjointSets(size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  size_t size() const { return parent_.size(); }

  uint32_t find(uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];  // path halving keeps chains short without recursion
      x = parent_[x];
    }
    return x;
  }
  // True when x and y were in different sets.
  bool unite(uint32_t x, uint32_t y) {
    x = find(x);
    y = find(y);
    if (x == y) return false;
    if (y < x) std::swap(x, y);
    parent_[y] = x;
    return true;
  }
  std::vector<uint32_t> roots() {
    std::vector<uint32_t> r(parent_.size());
    for (uint32_t i = 0; i < r.size(); ++i) r[i] = find(i);
    return r;
  }

 private:
  std::vector<uint32_t> parent_;
};

}  // namespace mine::dedup
