#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/dedup/lsh_index.h"
#include "core/dedup/min_hasher.h"

namespace mine {

// One piece of code from a benchmark that must not leak into training data.
struct BenchmarkItem {
  std::string file;
  std::string label;  // "line 12", "def foo", "whole file"
  std::string code;
};

// Reads a benchmark file. JSONL (.jsonl) and JSON (.json, a list or one object): every string
// value of 40 characters or more in each record is an item, so prompts, reference solutions and
// tests are all covered whatever the benchmark calls its fields. Anything else is Python: the
// whole file is one item and each top-level function or class (decorators included) another,
// so a kernel matches whether it was copied alone or with the file around it.
std::vector<BenchmarkItem> read_benchmark_file(const std::string& path);

// Near-duplicate lookup of code against benchmark items, with the dedup normal form and MinHash.
class Decontaminator {
 public:
  Decontaminator(std::vector<BenchmarkItem> items, const dedup::MinHasher& hasher, double threshold, int threads);
  // The first item the signature is near to (estimated Jaccard >= threshold), if any.
  std::optional<size_t> match(const uint32_t* signature) const;
  const std::vector<BenchmarkItem>& items() const { return items_; }

 private:
  std::vector<BenchmarkItem> items_;
  dedup::LshIndex index_;
  double threshold_;
};

}  // namespace mine
