#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "core/crawl/etag_cache.h"
#include "core/crawl/repo_info.h"

namespace mine {

// What the store remembers of the last successful mining of a repository.
struct MinedRecord {
  std::string commit;     // the commit that was mined
  std::string pushed_at;  // the API's pushed_at when it was mined ("" if unknown)
  int64_t kernels = 0;
};

// Per-repository crawl state, persisted by the corpus (SQL lives in corpus/). The pipeline
// never makes two calls at once: repository calls and MineResult::store run on its one writer
// thread; ETag calls come from the discovery thread through CrawlPipeline::etags(), under the
// same lock. So one SQLite connection serves it all.
// Crawl states: discovered -> cloned -> mined, or failed (with the error) at any step.
class CrawlStateStore : public EtagCache {
 public:
  // Inserts or refreshes the API metadata (stars, default branch, license, pushed_at, size).
  // Must keep what was mined before: a re-crawl rediscovers every repository.
  virtual void upsert_discovered(const RepoInfo& repo) = 0;
  virtual void mark_cloned(const std::string& full_name, const std::string& commit) = 0;
  // Records `commit` as mined, with repo.pushed_at, so a later crawl can skip an unchanged repo
  // without touching the network.
  virtual void mark_mined(const RepoInfo& repo, const std::string& commit, int64_t kernels) = 0;
  virtual void mark_failed(const std::string& full_name, const std::string& error) = 0;
  virtual std::optional<MinedRecord> last_mined(const std::string& full_name) = 0;
  // What --confirm's code search said of the repository at an earlier crawl, when GitHub reports
  // no push since (same pushed_at): 1 or 0, or nothing to go on. Saves one code search each.
  virtual std::optional<int> prior_confirmation(const RepoInfo& /*repo*/) { return std::nullopt; }
  bool already_mined(const std::string& full_name, const std::string& commit) {
    auto m = last_mined(full_name);
    return m && m->commit == commit;
  }
};

}  // namespace mine
