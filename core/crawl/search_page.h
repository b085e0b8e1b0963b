#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "core/crawl/github_client.h"

namespace mine {

// GitHub's search APIs (repositories, code, topics) answer at most this many results a query.
constexpr int64_t kSearchResultCap = 1000;

struct SearchPage {
  GithubResponse response;  // for its Link header
  nlohmann::json body;      // an object with total_count and items
};

struct SearchPageCounts {
  int64_t requests = 0;          // pages fetched, retries included (a cached 304 counts)
  int64_t incomplete_pages = 0;  // GitHub said incomplete_results even after retries
};

// Fetches one search page, asking again (twice) when GitHub says its search timed out
// (incomplete_results), since the page may then lack items. `what` names the search in errors.
// Throws mine::Error on an answer that is not 200 or not a search result.
SearchPage fetch_search_page(GithubClient& client, const std::string& url, const std::string& what,
                             SearchPageCounts& counts);

}  // namespace mine
