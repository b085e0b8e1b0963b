#pragma once
#include <optional>

#include "core/dedup/dedup_clusters.h"
#include "corpus/corpus.h"
#include "corpus/dedup_store.h"

namespace mine::cli {

// The parameters of one `mine dedup` run (its options).
struct DedupSettings {
  int shingle = 5, perms = 256;
  double threshold = 0.85;
  int bands = 0, rows = 0;  // 0: chosen from threshold and perms
  int threads = 1;
};

// What a run did, for its summary.
struct DedupOutcome {
  DedupRunSummary run;
  size_t distinct_texts = 0;  // texts hashed now (kernels with the same standalone share one)
  double hash_seconds = 0, total_seconds = 0;
  dedup::NearDupStats near_stats;
};

// The incremental dedup `mine dedup` runs, shared with `mine export` (which runs it when some
// selected kernels were never hashed): hashes only kernels without a current row, then clusters
// everything again and records the run. Writes in the store's transactions.
DedupOutcome run_incremental_dedup(Corpus& corpus, const DedupSettings& settings);

// The settings of the corpus's last dedup run, so that a dedup started for another command keeps
// the parameters the user chose (other ones would re-hash every kernel); nullopt before any run.
std::optional<DedupSettings> last_dedup_settings(const Corpus& corpus);

}  // namespace mine::cli
