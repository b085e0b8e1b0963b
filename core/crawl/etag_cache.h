#pragma once
#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace mine {

// A response body GitHub may later confirm as unchanged with a 304.
struct CachedResponse {
  std::string etag;
  std::string body;
};

// Remembers ETags per request URL so a re-crawl sends If-None-Match; GitHub does not count
// 304 answers against the rate limit. The corpus persists it (CrawlStateStore derives from it).
class EtagCache {
 public:
  virtual ~EtagCache() = default;
  virtual std::optional<CachedResponse> etag_lookup(const std::string& url) = 0;
  virtual void etag_store(const std::string& url, const CachedResponse& response) = 0;
};

// For one process's lifetime, and for tests.
class MemoryEtagCache : public EtagCache {
 public:
  std::optional<CachedResponse> etag_lookup(const std::string& url) override {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(url);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
  }
  void etag_store(const std::string& url, const CachedResponse& response) override {
    std::lock_guard lock(mutex_);
    entries_[url] = response;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, CachedResponse> entries_;
};

}  // namespace mine
