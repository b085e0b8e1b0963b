#pragma once
#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "core/crawl/github_client.h"
#include "core/crawl/repo_info.h"
#include "core/crawl/search_page.h"

namespace mine {

struct RepoSearchOptions {
  std::string query;  // free words and qualifiers, e.g. "triton language:python"; may be empty
  int64_t min_stars = 100;
  bool include_forks = false;
  bool include_archived = false;
  int64_t max_size_kb = 2 * 1024 * 1024;  // from the API's size field; 0 = no limit
  int64_t max_repos = 0;                  // stop after this many reported; 0 = all
  int per_page = 100;
  // Lower bound of creation-date splitting: GitHub's first repositories date from 2007-10.
  std::string created_since = "2007-10-01T00:00:00Z";
};

struct RepoSearchStats {
  int64_t requests = 0;      // search pages fetched (a cached 304 counts)
  int64_t slices = 0;        // queries whose results were read in full
  int64_t star_splits = 0;
  int64_t date_splits = 0;
  int64_t reported = 0;
  int64_t duplicates = 0;    // seen in more than one slice (stars moved while crawling)
  int64_t skipped_forks = 0;
  int64_t skipped_archived = 0;
  int64_t skipped_too_large = 0;
  int64_t capped_slices = 0;  // one creation second still over 1000: only 1000 of it were readable
  int64_t incomplete_pages = 0;  // GitHub said incomplete_results even after retries
  // Slices whose pages held fewer items than total_count promised: repositories deleted or
  // reordered (ties in stars) while paging. A second crawl picks up what moved.
  int64_t short_slices = 0;
};

// Finds every repository matching the query with at least min_stars. The search API answers at
// most 1000 results per query, so a query over the cap is split: by star range (halving) while
// the range holds more than one star value, then by creation-date range (halving, down to one
// second), until each slice is under the cap. Results stream to the caller page by page, so
// cloning can start while discovery goes on.
class RepoSearch {
 public:
  RepoSearch(GithubClient& client, RepoSearchOptions options);

  // Calls on_repo once per distinct repository (by full_name, case-insensitive) that passes the
  // fork/archived/size filters. Throws mine::Error when the API keeps failing.
  RepoSearchStats run(const std::function<void(const RepoInfo&)>& on_repo);
  // Pages fetched so far, also after run() threw.
  int64_t requests() const { return pages_.requests; }

 private:
  struct Slice;
  void search(const Slice& slice);
  std::string query_for(const Slice& slice) const;
  bool consume(const nlohmann::json& page);  // false once max_repos is reached
  int64_t items_in_slice_ = 0;

  GithubClient& client_;
  RepoSearchOptions options_;
  const std::function<void(const RepoInfo&)>* on_repo_ = nullptr;
  std::set<std::string> seen_;
  RepoSearchStats stats_;
  SearchPageCounts pages_;
  bool done_ = false;
};

}  // namespace mine
