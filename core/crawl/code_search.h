#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/crawl/github_client.h"
#include "core/crawl/repo_info.h"
#include "core/crawl/search_page.h"

namespace mine {

// One code search: a word a file with a kernel holds, in files of one extension ("" = any).
struct CodeQuery {
  std::string term;       // e.g. "triton.jit"
  std::string extension;  // e.g. "py"
};

struct CodeSearchOptions {
  std::vector<CodeQuery> queries;
  int64_t min_stars = 100;
  bool include_forks = false;
  bool include_archived = false;
  int64_t max_size_kb = 2 * 1024 * 1024;  // repository size by the API; 0 = no limit
  int per_page = 100;
  // GitHub's code index holds files under 384 KB: the top of the size range split into slices.
  int64_t max_indexed_file_bytes = 384 * 1024;
  // Repositories to leave out before spending a lookup on them (another shard's); null: none.
  std::function<bool(const std::string& full_name)> wanted;
};

struct CodeSearchStats {
  int64_t search_requests = 0;  // code_search pages, confirmations included
  int64_t lookups = 0;          // GET /repos/{owner}/{name} (core), one per new repository
  int64_t slices = 0;           // queries whose results were read in full
  int64_t size_splits = 0;
  int64_t capped_slices = 0;    // one file size still over 1000 files: only 1000 were readable
  int64_t incomplete_pages = 0;
  int64_t files = 0;            // matching files seen
  int64_t repositories = 0;     // distinct repositories with a matching file
  int64_t below_min_stars = 0;
  int64_t skipped = 0;          // forks, archived, too large, another shard's
  int64_t lookup_failures = 0;  // gone (404) between the index and the lookup
  int64_t reported = 0;
  int64_t confirmations = 0;    // --confirm questions asked (one code search each)
};

// Finds repositories through GitHub's code search (token only; its own rate limit of 10
// requests a minute, at most 1000 results a query, no star qualifier). Each query is split by
// file size (`size:lo..hi`, halving) until every slice is under the cap. Code search items carry
// a minimal repository without stars, so each new repository is looked up once
// (`GET /repos/{owner}/{name}`) and kept when it has at least min_stars.
class CodeSearch {
 public:
  CodeSearch(GithubClient& client, CodeSearchOptions options);

  // Calls on_repo once per distinct repository that passes the star/fork/archived/size
  // filters. Throws mine::Error when the API keeps failing.
  void run(const std::function<void(const RepoInfo&)>& on_repo);

  // --confirm: whether the repository holds a file with one of the queries' terms. Answered
  // from run()'s results when it saw one there, else by a code search with `repo:` (terms
  // joined with OR, five to a query as GitHub allows).
  bool confirm(const std::string& full_name);

  const CodeSearchStats& stats() const { return stats_; }

 private:
  void search(const CodeQuery& query, int64_t size_from, int64_t size_to);
  std::string query_text(const CodeQuery& query, int64_t size_from, int64_t size_to) const;
  void consider(const nlohmann::json& item);

  GithubClient& client_;
  CodeSearchOptions options_;
  const std::function<void(const RepoInfo&)>* on_repo_ = nullptr;
  std::set<std::string> with_candidates_;  // lower-cased names with a matching file
  std::map<std::string, bool> confirmed_;  // lower-cased name -> answer of confirm()
  CodeSearchStats stats_;
  SearchPageCounts pages_;
};

}  // namespace mine
