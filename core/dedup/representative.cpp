#include "core/dedup/representative.h"

#include "core/error.h"

namespace mine::dedup {

bool better_representative(const CopyProvenance& a, const CopyProvenance& b) {
  if (a.stars != b.stars) return a.stars > b.stars;
  if (a.commit_time != b.commit_time) {
    if (a.commit_time.empty() || b.commit_time.empty()) return !a.commit_time.empty();
    return a.commit_time < b.commit_time;  // ISO 8601 UTC strings order like the times they name
  }
  return a.kernel_id < b.kernel_id;
}

size_t pick_representative(const std::vector<CopyProvenance>& copies) {
  if (copies.empty()) throw Error("dedup: a cluster without members has no representative");
  size_t best = 0;
  for (size_t i = 1; i < copies.size(); ++i)
    if (better_representative(copies[i], copies[best])) best = i;
  return best;
}

}  // namespace mine::dedup
