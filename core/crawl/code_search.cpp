#include "core/crawl/code_search.h"

#include <algorithm>

#include "core/crawl/link_header.h"
#include "core/crawl/repo_list.h"
#include "core/error.h"

namespace mine {
namespace {

constexpr size_t kTermsPerConfirmation = 5;  // GitHub allows five AND/OR/NOT operators a query

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A term with characters GitHub would split on is searched as a phrase.
std::string phrase(const std::string& term) {
  bool plain = std::all_of(term.begin(), term.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
  return plain ? term : "\"" + term + "\"";
}

}  // namespace

CodeSearch::CodeSearch(GithubClient& client, CodeSearchOptions options) : client_(client), options_(std::move(options)) {
  options_.per_page = std::clamp(options_.per_page, 1, 100);
}

std::string CodeSearch::query_text(const CodeQuery& q, int64_t size_from, int64_t size_to) const {
  std::string text = phrase(q.term);
  if (!q.extension.empty()) text += " extension:" + q.extension;
  if (size_from >= 0) text += " size:" + std::to_string(size_from) + ".." + std::to_string(size_to);
  return text;
}

void CodeSearch::consider(const nlohmann::json& item) {
  ++stats_.files;
  auto repo = item.find("repository");
  if (repo == item.end() || !repo->is_object()) return;
  auto name_it = repo->find("full_name");
  if (name_it == repo->end() || !name_it->is_string()) return;
  std::string name = name_it->get<std::string>();
  if (!with_candidates_.insert(lower(name)).second) return;  // one lookup per repository
  ++stats_.repositories;
  // Forks and other shards' repositories are left before the lookup: it costs a core request.
  if ((api_bool(*repo, "fork", false) && !options_.include_forks) || (options_.wanted && !options_.wanted(name))) {
    ++stats_.skipped;
    return;
  }
  RepoInfo info;
  try {
    ++stats_.lookups;
    info = lookup_repo(client_, name);
  } catch (const Error&) {
    ++stats_.lookup_failures;  // deleted or made private since GitHub indexed it
    return;
  }
  if (info.stars < options_.min_stars) {
    ++stats_.below_min_stars;
    return;
  }
  if ((info.archived && !options_.include_archived) || (info.fork && !options_.include_forks) ||
      (options_.max_size_kb > 0 && info.size_kb > options_.max_size_kb)) {
    ++stats_.skipped;
    return;
  }
  ++stats_.reported;
  (*on_repo_)(info);
}

void CodeSearch::search(const CodeQuery& query, int64_t size_from, int64_t size_to) {
  const std::string text = query_text(query, size_from, size_to);
  const std::string what = "GitHub code search '" + text + "'";
  SearchPage page = fetch_search_page(
      client_, "/search/code?q=" + url_encode(text) + "&per_page=" + std::to_string(options_.per_page), what, pages_);
  int64_t total = api_int(page.body, "total_count", 0);
  if (total > kSearchResultCap) {
    if (size_from < 0) {
      size_from = 0;
      size_to = options_.max_indexed_file_bytes;
    }
    if (size_to > size_from) {
      // Halving by bytes: slices are cheap (their first page is read anyway when under the
      // cap), and files cluster at small sizes, where halving goes deepest.
      ++stats_.size_splits;
      int64_t mid = size_from + (size_to - size_from) / 2;
      search(query, size_from, mid);
      search(query, mid + 1, size_to);
      return;
    }
    ++stats_.capped_slices;  // over 1000 files of one size: only the first 1000 are reachable
  }
  ++stats_.slices;
  for (;;) {
    for (const auto& item : page.body["items"]) consider(item);
    auto links = parse_link_header(page.response.header("link"));
    auto next = links.find("next");
    if (next == links.end()) break;
    page = fetch_search_page(client_, next->second, what, pages_);
  }
}

void CodeSearch::run(const std::function<void(const RepoInfo&)>& on_repo) {
  on_repo_ = &on_repo;
  try {
    for (const auto& q : options_.queries) search(q, -1, -1);
  } catch (...) {
    on_repo_ = nullptr;
    stats_.search_requests = pages_.requests;
    throw;
  }
  on_repo_ = nullptr;
  stats_.search_requests = pages_.requests;
  stats_.incomplete_pages = pages_.incomplete_pages;
}

bool CodeSearch::confirm(const std::string& full_name) {
  const std::string key = lower(full_name);
  if (with_candidates_.count(key)) return true;
  if (auto it = confirmed_.find(key); it != confirmed_.end()) return it->second;
  std::vector<std::string> terms;
  for (const auto& q : options_.queries)
    if (std::find(terms.begin(), terms.end(), q.term) == terms.end()) terms.push_back(q.term);
  bool found = false;
  for (size_t i = 0; i < terms.size() && !found; i += kTermsPerConfirmation) {
    std::string text;
    for (size_t j = i; j < std::min(terms.size(), i + kTermsPerConfirmation); ++j)
      text += (text.empty() ? "" : " OR ") + phrase(terms[j]);
    text += " repo:" + full_name;
    ++stats_.confirmations;
    SearchPage page = fetch_search_page(client_, "/search/code?q=" + url_encode(text) + "&per_page=1",
                                        "GitHub code search '" + text + "'", pages_);
    found = api_int(page.body, "total_count", 0) > 0;
  }
  stats_.search_requests = pages_.requests;
  confirmed_[key] = found;
  return found;
}

}  // namespace mine
