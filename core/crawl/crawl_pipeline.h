#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/crawl/crawl_progress.h"
#include "core/crawl/crawl_state_store.h"
#include "core/crawl/repo_cloner.h"
#include "core/crawl/repo_info.h"

namespace mine {

struct MineResult {
  int64_t kernels = 0;
  // Writes what was extracted to the corpus. Runs on the pipeline's single writer thread,
  // right before CrawlStateStore::mark_mined, so extraction can run on many workers while one
  // thread writes SQLite. May be empty when the mine function stored nothing.
  std::function<void()> store;
};

// Extracts kernels from the commit `commit` of the bare repository at `bare_repo_path`.
// Runs on a worker thread, several at once; throws mine::Error to fail this repository only.
using MineFunction =
    std::function<MineResult(const RepoInfo& repo, const std::string& bare_repo_path, const std::string& commit)>;

// Produces repositories by calling `emit` (RepoSearch::run, a repository list, ...). Runs on the
// discovery thread while workers already clone and mine. `emit` throws to unwind it on stop.
using DiscoverFunction = std::function<void(const std::function<void(const RepoInfo&)>& emit)>;

struct CrawlPipelineOptions {
  int jobs = 4;  // clone-and-mine workers
  // An unchanged pushed_at since the last mining means nothing was pushed: skip the repository
  // without asking its git server. Off: always compare the remote head.
  bool trust_pushed_at = true;
  const std::atomic<bool>* cancel = nullptr;  // set (e.g. from SIGINT) -> finish what runs, start nothing
};

struct CrawlSummary {
  CrawlCounts counts;
  std::vector<std::pair<std::string, std::string>> failures;  // repository, error
  std::string discovery_error;  // "" when discovery completed
  bool cancelled = false;
};

// Discovery, cloning and mining overlap: a discovery thread feeds `jobs` workers that sync the
// bare clone and mine it, and one writer thread makes every CrawlStateStore call and runs every
// MineResult::store. A repository's failure is recorded and the crawl goes on. Resumable: a
// repository whose head commit was mined before is not mined again.
class CrawlPipeline {
 public:
  CrawlPipeline(CrawlStateStore& store, RepoCloner& cloner, MineFunction mine, CrawlPipelineOptions options,
                CrawlProgress& progress);

  // Throws mine::Error only when the state store itself fails (the corpus is unusable).
  CrawlSummary run(const DiscoverFunction& discover);

  // The store's ETag half, for the GithubClient of discovery: calls are serialised with the
  // writer thread's, so the store never sees two calls at once.
  EtagCache& etags() { return etags_; }

  // CrawlStateStore::prior_confirmation for discovery's --confirm, serialised the same way.
  std::optional<int> prior_confirmation(const RepoInfo& repo) {
    std::lock_guard lock(store_mutex_);
    return store_.prior_confirmation(repo);
  }

 private:
  class SerialisedEtags : public EtagCache {
   public:
    SerialisedEtags(CrawlStateStore& store, std::mutex& mutex) : store_(store), mutex_(mutex) {}
    std::optional<CachedResponse> etag_lookup(const std::string& url) override {
      std::lock_guard lock(mutex_);
      return store_.etag_lookup(url);
    }
    void etag_store(const std::string& url, const CachedResponse& response) override {
      std::lock_guard lock(mutex_);
      store_.etag_store(url, response);
    }

   private:
    CrawlStateStore& store_;
    std::mutex& mutex_;
  };

  CrawlStateStore& store_;
  RepoCloner& cloner_;
  MineFunction mine_;
  CrawlPipelineOptions options_;
  CrawlProgress& progress_;
  std::mutex store_mutex_;  // held by the writer thread's tasks and by etags()
  SerialisedEtags etags_{store_, store_mutex_};
};

}  // namespace mine
