#include "core/crawl/search_page.h"

#include "core/crawl/repo_info.h"
#include "core/crawl/response_headers.h"
#include "core/error.h"

namespace mine {
namespace {
constexpr int kIncompleteRetries = 2;
}

SearchPage fetch_search_page(GithubClient& client, const std::string& url, const std::string& what,
                             SearchPageCounts& counts) {
  SearchPage page;
  for (int attempt = 0;; ++attempt) {
    ++counts.requests;
    page.response = client.get(url);
    if (page.response.status != 200) {
      std::string message = api_message(page.response.body);
      throw Error(what + ": HTTP " + std::to_string(page.response.status) + (message.empty() ? "" : ": " + message));
    }
    page.body = nlohmann::json::parse(page.response.body, nullptr, false);
    if (!page.body.is_object()) throw Error(what + ": answer is not a JSON object");
    auto items = page.body.find("items");
    if (items == page.body.end() || !items->is_array()) throw Error(what + ": answer has no items array");
    if (!api_bool(page.body, "incomplete_results", false)) return page;
    if (attempt >= kIncompleteRetries) {
      ++counts.incomplete_pages;
      return page;
    }
  }
}

}  // namespace mine
