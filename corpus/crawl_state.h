#pragma once
#include "core/crawl/crawl_state_store.h"
#include "corpus/corpus.h"

namespace mine {

// CrawlStateStore over the corpus: crawl columns of `repos` and the `api_etags` table.
// Each call is its own transaction, so a crawl killed at any point resumes from what is here.
class CorpusCrawlState : public CrawlStateStore {
 public:
  explicit CorpusCrawlState(Corpus& corpus) : corpus_(corpus) {}

  void upsert_discovered(const RepoInfo& repo) override;
  void mark_cloned(const std::string& full_name, const std::string& commit) override;
  void mark_mined(const RepoInfo& repo, const std::string& commit, int64_t kernels) override;
  void mark_failed(const std::string& full_name, const std::string& error) override;
  std::optional<MinedRecord> last_mined(const std::string& full_name) override;
  std::optional<int> prior_confirmation(const RepoInfo& repo) override;
  std::optional<CachedResponse> etag_lookup(const std::string& url) override;
  void etag_store(const std::string& url, const CachedResponse& response) override;

 private:
  Corpus& corpus_;
  std::mutex mutex_;  // the ETag calls come from the discovery thread, the rest from the writer
};

}  // namespace mine
