#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/crawl/code_search.h"
#include "core/crawl/github_client.h"
#include "core/crawl/repo_info.h"
#include "core/crawl/repo_search.h"

namespace mine {

// Strategy names, as stored in repos.discovered_by and printed in the summary.
inline constexpr const char* kByCodeSearch = "code_search";
inline constexpr const char* kByRepoSearch = "repo_search";
inline constexpr const char* kByTopic = "topic";
inline constexpr const char* kByReposFile = "repos_file";

struct DiscoveryOptions {
  // Filters every strategy applies (min_stars, forks, archived, size); its query is not used.
  RepoSearchOptions filters;
  // Repository search: one query per term, over name, description, topics and README unless the
  // term says `in:` itself. Empty: the strategy is off.
  std::vector<std::string> terms;
  std::vector<std::string> topics;       // `topic:` searches; empty: off
  std::vector<CodeQuery> code_queries;   // empty: off
  bool have_token = false;               // code search answers only authenticated requests
  // Clone only what code search confirms holds a candidate file (needs a token).
  bool confirm = false;
  // --confirm's answer from an earlier crawl when the repository was not pushed since (the
  // corpus remembers it); null or nullopt: ask code search.
  std::function<std::optional<int>(const RepoInfo&)> prior_confirmation;
  int64_t max_repos = 0;  // stop after this many distinct repositories; 0 = all
  std::function<bool(const std::string& full_name)> wanted;  // shard filter; null: all
};

// What one strategy did, for the summary.
struct StrategyReport {
  std::string name;
  int64_t found = 0;      // distinct repositories it reported
  int64_t first = 0;      // of those, ones no strategy before it had reported
  int64_t only = 0;       // ones no other strategy reported
  int64_t requests = 0;   // API requests it made (lookups included)
  std::string note;       // why it did not run, or how it stopped
};

// Runs the discovery strategies one after another and joins their results: code search first
// (so --confirm knows what it holds), then repository search, then topics. Every report of a
// repository reaches `emit` with discovered_by set, so the store can record each strategy that
// found it; the pipeline clones a repository once however often it is reported.
class Discovery {
 public:
  Discovery(GithubClient& client, DiscoveryOptions options);

  // A strategy whose API calls keep failing stops with a note in its report and the next one
  // runs; then run() throws mine::Error naming the first failure. What was emitted stays.
  void run(const std::function<void(const RepoInfo&)>& emit);

  // Per strategy, in the order they ran; complete once run() returned or threw.
  std::vector<StrategyReport> reports() const;
  int64_t unconfirmed() const { return unconfirmed_; }
  int64_t confirmations() const { return code_.stats().confirmations; }
  int64_t reused_confirmations() const { return reused_confirmations_; }

 private:
  struct Enough {};
  void report(const std::string& strategy, RepoInfo repo, const std::function<void(const RepoInfo&)>& emit);
  std::string repo_query(const std::string& term) const;

  GithubClient& client_;
  DiscoveryOptions options_;
  CodeSearch code_;
  std::vector<StrategyReport> reports_;
  std::map<std::string, std::set<std::string>> found_by_;  // lower-cased name -> strategies
  std::map<std::string, int> confirmed_;                   // lower-cased name -> RepoInfo::confirmed
  int64_t unconfirmed_ = 0;
  int64_t reused_confirmations_ = 0;
};

}  // namespace mine
