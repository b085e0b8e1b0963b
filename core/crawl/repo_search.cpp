#include "core/crawl/repo_search.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/crawl/link_header.h"
#include "core/crawl/response_headers.h"
#include "core/crawl/search_page.h"
#include "core/error.h"

namespace mine {
namespace {

constexpr int64_t kSearchCap = kSearchResultCap;

int64_t parse_utc(const std::string& iso) {
  std::tm tm{};
  if (sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
             &tm.tm_sec) < 3)
    throw Error("bad date '" + iso + "': expected YYYY-MM-DDTHH:MM:SSZ");
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm));
}

std::string format_utc(int64_t epoch) {
  time_t t = static_cast<time_t>(epoch);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

struct RepoSearch::Slice {
  int64_t min_stars;
  int64_t max_stars;  // -1: open above
  int64_t created_from = -1;  // epoch seconds, inclusive; -1: no date qualifier
  int64_t created_to = -1;
};

RepoSearch::RepoSearch(GithubClient& client, RepoSearchOptions options) : client_(client), options_(std::move(options)) {
  options_.per_page = std::clamp(options_.per_page, 1, 100);
}

std::string RepoSearch::query_for(const Slice& s) const {
  std::string q = options_.query;
  auto add = [&](const std::string& term) { q += (q.empty() ? "" : " ") + term; };
  if (s.max_stars < 0) {
    add("stars:>=" + std::to_string(s.min_stars));
  } else if (s.max_stars == s.min_stars) {
    add("stars:" + std::to_string(s.min_stars));
  } else {
    add("stars:" + std::to_string(s.min_stars) + ".." + std::to_string(s.max_stars));
  }
  if (s.created_from >= 0) add("created:" + format_utc(s.created_from) + ".." + format_utc(s.created_to));
  // Search leaves forks out unless asked; archived ones are dropped server-side to save pages.
  if (options_.include_forks) add("fork:true");
  if (!options_.include_archived) add("archived:false");
  return q;
}

bool RepoSearch::consume(const nlohmann::json& page) {
  for (const auto& item : page["items"]) {
    ++items_in_slice_;
    RepoInfo repo = repo_info_from_json(item);
    if (!seen_.insert(lower(repo.full_name)).second) {
      ++stats_.duplicates;
      continue;
    }
    if (repo.fork && !options_.include_forks) {
      ++stats_.skipped_forks;
      continue;
    }
    if (repo.archived && !options_.include_archived) {
      ++stats_.skipped_archived;
      continue;
    }
    if (options_.max_size_kb > 0 && repo.size_kb > options_.max_size_kb) {
      ++stats_.skipped_too_large;
      continue;
    }
    if (repo.stars < options_.min_stars) continue;  // stars moved since GitHub indexed it
    ++stats_.reported;
    (*on_repo_)(repo);
    if (options_.max_repos > 0 && stats_.reported >= options_.max_repos) {
      done_ = true;
      return false;
    }
  }
  return true;
}

void RepoSearch::search(const Slice& slice) {
  if (done_) return;
  std::string url = "/search/repositories?q=" + url_encode(query_for(slice)) +
                    "&per_page=" + std::to_string(options_.per_page) + "&sort=stars&order=desc";
  GithubResponse first;
  nlohmann::json page;
  auto fetch = [&](const std::string& u) {
    SearchPage p = fetch_search_page(client_, u, "GitHub search '" + query_for(slice) + "'", pages_);
    first = std::move(p.response);
    page = std::move(p.body);
  };
  fetch(url);
  int64_t total = api_int(page, "total_count", 0);

  if (total > kSearchCap) {
    int64_t top = slice.max_stars;
    if (top < 0) {
      // Sorted by stars descending, the first item tells how far the open range reaches.
      auto items = page.find("items");
      bool any = items != page.end() && items->is_array() && !items->empty();
      top = any ? api_int((*items)[0], "stargazers_count", slice.min_stars) : slice.min_stars;
    }
    if (top > slice.min_stars) {
      ++stats_.star_splits;
      int64_t mid = slice.min_stars + (top - slice.min_stars) / 2;
      Slice low = slice, high = slice;
      low.max_stars = mid;
      high.min_stars = mid + 1;  // keeps an open top open, for repositories that gained stars since
      search(low);
      search(high);
      return;
    }
    int64_t from = slice.created_from, to = slice.created_to;
    if (from < 0) {
      from = parse_utc(options_.created_since);
      // End of tomorrow (UTC), not "now": the same URLs all day long keep the ETag cache useful.
      int64_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
      to = (now / 86400 + 2) * 86400 - 1;
    }
    if (to > from) {
      ++stats_.date_splits;
      int64_t mid = from + (to - from) / 2;
      Slice early = slice, late = slice;
      early.created_from = from;
      early.created_to = mid;
      late.created_from = mid + 1;
      late.created_to = to;
      search(early);
      search(late);
      return;
    }
    ++stats_.capped_slices;  // more than 1000 created within one second: read what is reachable
  }

  ++stats_.slices;
  items_in_slice_ = 0;
  for (;;) {
    if (!consume(page)) return;
    auto links = parse_link_header(first.header("link"));
    auto next = links.find("next");
    if (next == links.end()) break;
    fetch(next->second);
  }
  if (items_in_slice_ < std::min(total, kSearchCap)) ++stats_.short_slices;
}

RepoSearchStats RepoSearch::run(const std::function<void(const RepoInfo&)>& on_repo) {
  on_repo_ = &on_repo;
  stats_ = {};
  pages_ = {};
  done_ = false;
  try {
    search(Slice{options_.min_stars, -1});
  } catch (...) {
    on_repo_ = nullptr;
    throw;
  }
  on_repo_ = nullptr;
  stats_.requests = pages_.requests;
  stats_.incomplete_pages = pages_.incomplete_pages;
  return stats_;
}

}  // namespace mine
