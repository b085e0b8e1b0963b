#include "core/crawl/discovery.h"

#include <algorithm>

#include "core/error.h"

namespace mine {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

CodeSearchOptions code_options(const DiscoveryOptions& o) {
  CodeSearchOptions c;
  c.queries = o.code_queries;
  c.min_stars = o.filters.min_stars;
  c.include_forks = o.filters.include_forks;
  c.include_archived = o.filters.include_archived;
  c.max_size_kb = o.filters.max_size_kb;
  c.wanted = o.wanted;
  return c;
}

}  // namespace

Discovery::Discovery(GithubClient& client, DiscoveryOptions options)
    : client_(client), options_(std::move(options)), code_(client_, code_options(options_)) {}

std::string Discovery::repo_query(const std::string& term) const {
  // GitHub matches free words in name and description only, unless told: most kernel
  // repositories say what they hold in their README or topics, not their name.
  if (term.find("in:") != std::string::npos) return term;
  return term + " in:name,description,topics,readme";
}

void Discovery::report(const std::string& strategy, RepoInfo repo, const std::function<void(const RepoInfo&)>& emit) {
  if (options_.wanted && !options_.wanted(repo.full_name)) return;
  const std::string key = lower(repo.full_name);
  auto& strategies = found_by_[key];
  bool first_report = strategies.empty();
  if (!strategies.insert(strategy).second) return;  // several slices or terms of one strategy
  StrategyReport& r = reports_.back();
  ++r.found;
  if (first_report) {
    if (options_.max_repos > 0 && static_cast<int64_t>(confirmed_.size()) >= options_.max_repos) throw Enough{};
    ++r.first;
    int confirmed = -1;
    if (options_.confirm) {
      if (strategy == kByCodeSearch) {
        confirmed = 1;
      } else if (auto prior = options_.prior_confirmation ? options_.prior_confirmation(repo) : std::nullopt) {
        confirmed = *prior;
        ++reused_confirmations_;
      } else {
        try {
          confirmed = code_.confirm(repo.full_name) ? 1 : 0;
        } catch (const Error&) {
          confirmed = -1;  // unanswered: clone it, recall matters more than one clone
        }
      }
      if (confirmed == 0) ++unconfirmed_;
    }
    confirmed_[key] = confirmed;
  }
  repo.discovered_by = strategy;
  repo.confirmed = confirmed_[key];
  emit(repo);
}

void Discovery::run(const std::function<void(const RepoInfo&)>& emit) {
  reports_.clear();
  std::string first_error;
  auto tally_requests = [&](StrategyReport& r, const std::map<std::string, int64_t>& before) {
    int64_t n = 0;
    for (const auto& [resource, count] : client_.requests_by_resource()) {
      auto it = before.find(resource);
      n += count - (it == before.end() ? 0 : it->second);
    }
    r.requests += n;
  };
  // Each strategy's requests are the client's count before and after it, whatever it calls.
  auto stage = [&](const char* name, const std::string& skip, const std::function<void()>& body) {
    reports_.emplace_back();
    reports_.back().name = name;
    if (!skip.empty()) {
      reports_.back().note = skip;
      return;
    }
    auto before = client_.requests_by_resource();
    try {
      body();
    } catch (const Error& e) {
      // One strategy failing (code search refused, its limit never resetting) must not cost the
      // others' repositories: note it, go on, and fail the crawl at the end.
      tally_requests(reports_.back(), before);
      reports_.back().note = std::string("stopped: ") + e.what();
      if (first_error.empty()) first_error = std::string(name) + ": " + e.what();
      return;
    } catch (...) {
      tally_requests(reports_.back(), before);
      throw;
    }
    tally_requests(reports_.back(), before);
  };

  try {
    std::string code_skip;
    if (options_.code_queries.empty()) code_skip = "off";
    else if (!options_.have_token) code_skip = "skipped: code search needs a token (GITHUB_TOKEN or --token-file)";
    stage(kByCodeSearch, code_skip, [&] { code_.run([&](const RepoInfo& r) { report(kByCodeSearch, r, emit); }); });

    stage(kByRepoSearch, options_.terms.empty() ? "off" : "", [&] {
      for (const auto& term : options_.terms) {
        RepoSearchOptions o = options_.filters;
        o.query = repo_query(term);
        o.max_repos = 0;  // counted here, over all strategies
        RepoSearch(client_, o).run([&](const RepoInfo& r) { report(kByRepoSearch, r, emit); });
      }
    });

    stage(kByTopic, options_.topics.empty() ? "off" : "", [&] {
      for (const auto& topic : options_.topics) {
        RepoSearchOptions o = options_.filters;
        o.query = "topic:" + topic;
        o.max_repos = 0;
        RepoSearch(client_, o).run([&](const RepoInfo& r) { report(kByTopic, r, emit); });
      }
    });
  } catch (const Enough&) {
    reports_.back().note = "stopped at --max-repos";
  }
  // Requests that --confirm made inside other strategies belong to code search's budget but
  // were asked on their behalf; they stay counted where they were made.
  for (auto& r : reports_)
    for (const auto& [name, strategies] : found_by_)
      if (strategies.size() == 1 && strategies.count(r.name)) ++r.only;
  if (!first_error.empty()) throw Error(first_error);
}

std::vector<StrategyReport> Discovery::reports() const { return reports_; }

}  // namespace mine
