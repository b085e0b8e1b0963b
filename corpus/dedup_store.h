#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/dedup/dedup_clusters.h"
#include "core/dedup/lsh_index.h"
#include "corpus/corpus.h"

namespace mine {

// A kernel as `mine dedup` sees it.
struct DedupCandidate {
  int64_t kernel_id = 0;
  std::string repo;
  std::string standalone_sha256;
  dedup::CopyProvenance provenance;
  bool needs_hashing = true;  // no row yet, or one made from another text or with other params
};

// A kernel's hashes as stored in kernel_dedup.
struct DedupHashes {
  int64_t kernel_id = 0;
  std::string standalone_sha256;
  size_t tokens = 0;
  std::string exact_hash;
  std::string alpha_hash;
  std::vector<uint32_t> minhash;
};

struct DedupRunSummary {
  std::string params;
  double threshold = 0;
  dedup::LshBands bands;
  int64_t kernels = 0;
  int64_t hashed = 0;
  int64_t exact_removed = 0;
  int64_t alpha_removed = 0;
  int64_t near_removed = 0;
};

// kernel_dedup, dup_clusters and dedup_runs (schema/004_dedup.sql). Repository stars, license and
// commit time come from whatever columns of `repos` the crawl added (stars; license_spdx or
// license; commit_time or committed_at); when there are none they are unknown.
class DedupStore {
 public:
  explicit DedupStore(const Corpus& corpus);

  // Every kernel, in id order, with its provenance and whether its row is stale for `params`.
  std::vector<DedupCandidate> candidates(const std::string& params) const;
  std::string standalone(int64_t kernel_id) const;
  // Inserts or replaces the rows, in one transaction; cluster columns are reset to NULL.
  void put_hashes(const std::vector<DedupHashes>& rows, const std::string& params) const;
  // Hashes of every kernel that has a row for `params`, in kernel id order.
  std::vector<DedupHashes> load_hashes(const std::string& params) const;
  // Replaces all cluster columns and dup_clusters, and records the run; one transaction.
  // `ids[i]` is the kernel of assignment index i.
  void write_clusters(const std::vector<int64_t>& ids, const std::vector<std::string>& repos,
                      const dedup::ClusterAssignment& clusters, const DedupRunSummary& run) const;
  // The newest recorded run (params, threshold and bands; counts), or nullopt before any.
  std::optional<DedupRunSummary> last_run() const;

 private:
  sqlite3* db_;
  std::string stars_expr_, license_expr_, commit_time_expr_;
};

// One kernel as `mine export` writes it.
struct ExportKernel {
  int64_t id = 0;
  std::string plugin, name, qualname, repo, path, commit_id;
  int start_line = 0, end_line = 0;
  std::string source, standalone;
  std::optional<int64_t> stars;
  std::string license;  // SPDX id; empty when unknown
  bool self_contained = true;
  nlohmann::json meta = nlohmann::json::object();
  nlohmann::json dependencies = nlohmann::json::array();  // [{name, kind, path, line}]
  std::optional<std::string> check_status;
  // Representative kernel ids at each level; empty when `mine dedup` has not seen the kernel.
  std::optional<int64_t> exact_cluster, alpha_cluster, near_cluster;
  std::string exact_hash, alpha_hash;
  std::vector<uint32_t> minhash;
};

// Reads kernels for export: `where` is an SQL condition over `kernels` (alias k), as the user
// wrote it; only one statement can run and the corpus is opened read-only, so it cannot write.
std::vector<ExportKernel> export_kernels(const Corpus& corpus, const std::string& where);

}  // namespace mine
