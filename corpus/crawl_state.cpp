#include "corpus/crawl_state.h"

#include <ctime>
#include <set>

#include "core/crawl/secret_redaction.h"
#include "core/utc_time.h"
#include "corpus/sqlite_statement.h"

namespace mine {
namespace {

// `set` (a sorted comma-separated list, or "") with `item` added.
std::string with_item(const std::string& set, const std::string& item) {
  std::set<std::string> items;
  size_t start = 0;
  while (start < set.size()) {
    size_t comma = set.find(',', start);
    if (comma == std::string::npos) comma = set.size();
    if (comma > start) items.insert(set.substr(start, comma - start));
    start = comma + 1;
  }
  if (!item.empty()) items.insert(item);
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

}  // namespace

void CorpusCrawlState::upsert_discovered(const RepoInfo& r) {
  std::lock_guard lock(mutex_);
  sqlite3* db = corpus_.handle();
  SqliteTransaction tx(db);
  // The strategies that found it accumulate over strategies and crawls; read inside the
  // transaction so the union is never lost to a concurrent writer.
  std::string found_by;
  {
    SqliteStatement prior(db, "SELECT coalesce(discovered_by, '') FROM repos WHERE name=?");
    prior.bind(1, r.full_name);
    if (prior.step()) found_by = prior.column_text(0);
  }
  found_by = with_item(found_by, r.discovered_by);
  // A re-crawl rediscovers everything: refresh the API's metadata, keep what was mined, and
  // leave the state alone unless the repository had never got past discovery or failed.
  SqliteStatement s(db,
                    "INSERT INTO repos(name, source_kind, location, clone_url, stars, default_branch, license, "
                    "pushed_at, size_kb, fork, archived, crawl_state, crawled_at, discovered_by, confirmed) "
                    "VALUES (?, 'git', ?, ?, ?, ?, ?, ?, ?, ?, ?, 'discovered', ?, nullif(?12, ''), ?13) "
                    "ON CONFLICT(name) DO UPDATE SET location=excluded.location, clone_url=excluded.clone_url, "
                    "stars=excluded.stars, default_branch=excluded.default_branch, license=excluded.license, "
                    "pushed_at=excluded.pushed_at, size_kb=excluded.size_kb, fork=excluded.fork, "
                    "archived=excluded.archived, crawl_state=coalesce(repos.crawl_state, 'discovered'), "
                    "crawled_at=excluded.crawled_at, discovered_by=excluded.discovered_by, "
                    // An answer holds until a push: without a new one, a push forgets the old.
                    "confirmed=CASE WHEN excluded.confirmed IS NOT NULL THEN excluded.confirmed "
                    "WHEN repos.pushed_at IS excluded.pushed_at THEN repos.confirmed END");
  // Credentials in a clone URL are never stored.
  const std::string url = url_without_credentials(r.clone_url);
  s.bind(1, r.full_name).bind(2, url).bind(3, url).bind(4, r.stars).bind(5, r.default_branch);
  s.bind_optional(6, r.license_spdx).bind(7, r.pushed_at).bind(8, r.size_kb).bind(9, r.fork ? 1 : 0);
  s.bind(10, r.archived ? 1 : 0).bind(11, utc_now()).bind(12, found_by);
  if (r.confirmed >= 0) s.bind(13, static_cast<int64_t>(r.confirmed));
  s.run();
  tx.commit();
}

void CorpusCrawlState::mark_cloned(const std::string& full_name, const std::string& commit) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(corpus_.handle(),
                    "UPDATE repos SET crawl_state=CASE WHEN crawl_state='mined' AND commit_id=?1 THEN 'mined' "
                    "ELSE 'cloned' END, cloned_commit=?1, crawled_at=?2 WHERE name=?3");
  s.bind(1, commit).bind(2, utc_now()).bind(3, full_name);
  s.run();
}

void CorpusCrawlState::mark_mined(const RepoInfo& r, const std::string& commit, int64_t kernels) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(corpus_.handle(),
                    "UPDATE repos SET crawl_state='mined', crawl_error=NULL, commit_id=?, mined_pushed_at=?, "
                    "mined_kernels=?, crawled_at=? WHERE name=?");
  s.bind(1, commit).bind(2, r.pushed_at).bind(3, kernels).bind(4, utc_now()).bind(5, r.full_name);
  s.run();
}

void CorpusCrawlState::mark_failed(const std::string& full_name, const std::string& error) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(corpus_.handle(),
                    "INSERT INTO repos(name, source_kind, crawl_state, crawl_error, crawled_at) "
                    "VALUES (?1, 'git', 'failed', ?2, ?3) ON CONFLICT(name) DO UPDATE SET crawl_state='failed', "
                    "crawl_error=?2, crawled_at=?3");
  s.bind(1, full_name).bind(2, error).bind(3, utc_now());
  s.run();
}

std::optional<MinedRecord> CorpusCrawlState::last_mined(const std::string& full_name) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(corpus_.handle(),
                    "SELECT commit_id, coalesce(mined_pushed_at, ''), coalesce(mined_kernels, 0) FROM repos "
                    "WHERE name=? AND commit_id IS NOT NULL AND mined_pushed_at IS NOT NULL");
  s.bind(1, full_name);
  if (!s.step()) return std::nullopt;
  return MinedRecord{s.column_text(0), s.column_text(1), s.column_int(2)};
}

std::optional<int> CorpusCrawlState::prior_confirmation(const RepoInfo& repo) {
  std::lock_guard lock(mutex_);
  // A repository mined with kernels at this pushed_at holds candidate files whatever was asked.
  SqliteStatement s(corpus_.handle(),
                    "SELECT CASE WHEN mined_kernels > 0 AND mined_pushed_at IS pushed_at THEN 1 ELSE confirmed END "
                    "FROM repos WHERE name=? AND pushed_at IS ? AND pushed_at IS NOT NULL");
  s.bind(1, repo.full_name).bind(2, repo.pushed_at);
  if (!s.step() || s.column_is_null(0)) return std::nullopt;
  return static_cast<int>(s.column_int(0));
}

std::optional<CachedResponse> CorpusCrawlState::etag_lookup(const std::string& url) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(corpus_.handle(), "SELECT etag, body FROM api_etags WHERE url=?");
  s.bind(1, url);
  if (!s.step()) return std::nullopt;
  return CachedResponse{s.column_text(0), s.column_text(1)};
}

void CorpusCrawlState::etag_store(const std::string& url, const CachedResponse& r) {
  std::lock_guard lock(mutex_);
  SqliteStatement s(corpus_.handle(),
                    "INSERT INTO api_etags(url, etag, body) VALUES (?, ?, ?) "
                    "ON CONFLICT(url) DO UPDATE SET etag=excluded.etag, body=excluded.body");
  s.bind(1, url).bind(2, r.etag).bind(3, r.body);
  s.run();
}

}  // namespace mine
