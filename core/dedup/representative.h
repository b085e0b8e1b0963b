#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mine::dedup {

// What the representative rule looks at for one copy of a kernel; the corpus fills in what it
// knows (stars come with crawled repositories, commit times when recorded).
struct CopyProvenance {
  int64_t kernel_id = 0;
  int64_t stars = -1;         // -1: unknown (local folders), ranks below 0 stars
  std::string commit_time;    // ISO 8601 UTC; empty: unknown, ranks after every known time
};

// The representative of a duplicate cluster is the copy most people are likely to have seen and
// trusted, and failing that the original:
//   1. most stars of its repository,
//   2. then the oldest commit (a fork or vendored copy is usually younger than its source),
//   3. then the lowest kernel id (first mined), so the choice is stable across runs.
bool better_representative(const CopyProvenance& a, const CopyProvenance& b);

// Index of the representative among `copies` (not empty).
size_t pick_representative(const std::vector<CopyProvenance>& copies);

}  // namespace mine::dedup
