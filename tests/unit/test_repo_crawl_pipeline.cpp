// CrawlPipeline end to end on loopback: the fake GitHub API discovers fixture repositories
// served by git daemon and git http-backend; the pipeline clones, mines (reading blobs from the
// bare clones), records state, and on later runs fetches and re-mines only what changed.
#include <catch2/catch.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "core/crawl/crawl_pipeline.h"
#include "core/crawl/repo_search.h"
#include "core/scan/source_tree.h"
#include "tests/unit/test_repo_loopback.h"

using namespace mine;

namespace {

// The corpus side as the pipeline sees it, in memory; it also checks the pipeline's promise of
// one writer: no two calls at once, all from one thread.
class MemoryStateStore : public CrawlStateStore {
 public:
  struct Row {
    RepoInfo info;
    std::string state, cloned_commit, error;
    std::optional<MinedRecord> mined;
  };

  void upsert_discovered(const RepoInfo& repo) override {
    Call c(*this);
    auto& row = rows[repo.full_name];
    row.info = repo;
    if (row.state.empty()) row.state = "discovered";
  }
  void mark_cloned(const std::string& name, const std::string& commit) override {
    Call c(*this);
    rows[name].state = "cloned";
    rows[name].cloned_commit = commit;
  }
  void mark_mined(const RepoInfo& repo, const std::string& commit, int64_t kernels) override {
    Call c(*this);
    rows[repo.full_name].state = "mined";
    rows[repo.full_name].error.clear();
    rows[repo.full_name].mined = MinedRecord{commit, repo.pushed_at, kernels};
  }
  void mark_failed(const std::string& name, const std::string& error) override {
    Call c(*this);
    rows[name].state = "failed";
    rows[name].error = error;
  }
  std::optional<MinedRecord> last_mined(const std::string& name) override {
    Call c(*this);
    auto it = rows.find(name);
    return it == rows.end() ? std::nullopt : it->second.mined;
  }
  std::optional<CachedResponse> etag_lookup(const std::string& url) override {
    Call c(*this, false);
    ++etag_calls;
    return etags.etag_lookup(url);
  }
  void etag_store(const std::string& url, const CachedResponse& r) override {
    Call c(*this, false);
    etags.etag_store(url, r);
  }

  std::map<std::string, Row> rows;
  std::map<std::string, std::string> corpus;  // repository -> content of the mined kernel files
  MemoryEtagCache etags;
  std::atomic<int> in_flight{0};
  std::atomic<bool> overlapped{false};
  std::set<std::thread::id> threads;  // of the repository calls
  int etag_calls = 0;

 private:
  struct Call {
    MemoryStateStore& s;
    explicit Call(MemoryStateStore& store, bool repository_call = true) : s(store) {
      if (s.in_flight.fetch_add(1) != 0) s.overlapped = true;
      if (repository_call) s.threads.insert(std::this_thread::get_id());
    }
    ~Call() { s.in_flight.fetch_sub(1); }
  };
};

struct Fixture {
  std::string name, branch, transport;
};

nlohmann::json api_repo(const Fixture& f, const std::string& url, const std::string& pushed_at, bool fork = false) {
  return {{"full_name", f.name},
          {"name", f.name.substr(f.name.find('/') + 1)},
          {"owner", {{"login", f.name.substr(0, f.name.find('/'))}}},
          {"description", "triton kernels"},
          {"language", "Python"},
          {"stargazers_count", 150},
          {"fork", fork},
          {"archived", false},
          {"size", 10},
          {"default_branch", f.branch},
          {"created_at", "2021-01-01T00:00:00Z"},
          {"pushed_at", pushed_at},
          {"license", {{"spdx_id", "MIT"}}},
          {"clone_url", url}};
}

// Mining as the lead's scanner will do it: the tree of `commit`, blobs from the object database.
struct CountingMiner {
  std::mutex mutex;
  std::map<std::string, int> calls;  // "name@commit" -> times mined
  MemoryStateStore* store = nullptr;

  MineResult operator()(const RepoInfo& repo, const std::string& path, const std::string& commit) {
    {
      std::lock_guard lock(mutex);
      ++calls[repo.full_name + "@" + commit];
    }
    auto tree = open_git_tree(path, commit);
    REQUIRE(tree->commit_id() == commit);
    auto entries = tree->list([](std::string_view p) { return p.rfind("kernels/", 0) == 0; });
    auto reader = tree->reader();
    std::string all;
    for (auto& e : entries) {
      std::string content;
      REQUIRE(reader->read(e, 1 << 20, content).empty());
      all += content;
    }
    MineResult r;
    r.kernels = static_cast<int64_t>(entries.size());
    r.store = [s = store, name = repo.full_name, all] { s->corpus[name] = all; };
    return r;
  }
};

std::string write_population(const std::string& path, const std::vector<nlohmann::json>& repos) {
  loopback::write_file(path, nlohmann::json(repos).dump());
  return path;
}

}  // namespace

TEST_CASE("CrawlPipeline discovers, clones, mines, and on re-crawl touches only what changed", "[repo][crawl]") {
  loopback::TempDir tmp;
  std::string served = tmp / "served", scratch = tmp / "scratch", cache = tmp / "cache";
  std::vector<Fixture> fixtures = {{"alice/flash", "main", "git"},   {"bob/softmax", "master", "git"},
                                   {"carol/matmul", "trunk", "git"}, {"dave/attn", "main", "http"},
                                   {"erin/conv", "master", "http"},  {"frank/norm", "develop", "git"}};
  for (const auto& f : fixtures) loopback::make_served_repo(served, f.name, f.branch, scratch, "kernel of " + f.name + "\n");
  auto daemon = loopback::start_git_daemon(served);
  auto http = loopback::start_git_http(served);
  auto url_of = [&](const Fixture& f) {
    return f.transport == "git" ? "git://127.0.0.1:" + std::to_string(daemon->port()) + "/" + f.name + ".git"
                                : "http://127.0.0.1:" + std::to_string(http->port()) + "/" + f.name + ".git";
  };
  auto population = [&](const std::map<std::string, std::string>& pushed) {
    std::vector<nlohmann::json> repos;
    for (const auto& f : fixtures)
      repos.push_back(api_repo(f, url_of(f), pushed.count(f.name) ? pushed.at(f.name) : "2024-01-01T00:00:00Z"));
    // Deleted since GitHub indexed it: the clone is refused and the crawl goes on.
    repos.push_back(api_repo({"gone/deleted", "main", "git"},
                             "git://127.0.0.1:" + std::to_string(daemon->port()) + "/gone/deleted.git", "2024-01-01T00:00:00Z"));
    repos.push_back(api_repo({"zed/forked", "main", "git"}, url_of(fixtures[0]), "2024-01-01T00:00:00Z", true));
    return repos;
  };

  MemoryStateStore store;
  CountingMiner miner;
  miner.store = &store;

  auto crawl = [&](const std::string& population_file, CrawlPipelineOptions options) {
    auto api = loopback::start_fake_github({"--population-file", population_file});
    SystemCrawlClock clock;
    GithubClientOptions go;
    go.api_url = "http://127.0.0.1:" + std::to_string(api->port());
    RepoSearchOptions so;
    so.query = "triton";
    RepoCloner cloner({cache});
    std::ostringstream log;
    CrawlProgress progress(log, false);
    CrawlPipeline pipeline(store, cloner, std::ref(miner), options, progress);
    GithubClient client(go, clock, &pipeline.etags());
    auto summary = pipeline.run([&](const auto& emit) { RepoSearch(client, so).run(emit); });
    INFO(log.str());
    INFO(summary.discovery_error);
    CHECK(summary.discovery_error.empty());
    return summary;
  };

  CrawlPipelineOptions options;
  options.jobs = 3;
  auto first = crawl(write_population(tmp / "pop1.json", population({})), options);
  CHECK(first.counts.discovered == 7);  // the fork is not discovered
  CHECK(first.counts.cloned == 6);
  CHECK(first.counts.mined == 6);
  CHECK(first.counts.kernels == 6);
  CHECK(first.counts.failed == 1);
  REQUIRE(first.failures.size() == 1);
  CHECK(first.failures[0].first == "gone/deleted");
  CHECK(store.rows["gone/deleted"].state == "failed");
  CHECK_FALSE(store.rows["gone/deleted"].error.empty());
  CHECK_FALSE(store.rows.count("zed/forked"));
  for (const auto& f : fixtures) {
    CHECK(store.rows[f.name].state == "mined");
    CHECK(store.corpus[f.name] == "kernel of " + f.name + "\n");
  }
  CHECK_FALSE(store.overlapped);
  CHECK(store.threads.size() == 1);
  CHECK(store.etag_calls > 0);

  SECTION("nothing pushed: nothing fetched, nothing mined") {
    auto second = crawl(tmp / "pop1.json", options);
    CHECK(second.counts.unchanged == 6);
    CHECK(second.counts.mined == 0);
    CHECK(second.counts.cloned + second.counts.fetched == 0);
    for (const auto& [key, n] : miner.calls) CHECK(n == 1);
  }

  SECTION("one push: that repository alone is fetched and mined again") {
    std::string newer = loopback::push_commit(served, "erin/conv", "master", scratch, "kernel v2\n");
    auto second = crawl(write_population(tmp / "pop2.json", population({{"erin/conv", "2024-06-01T00:00:00Z"}})), options);
    CHECK(second.counts.fetched == 1);
    CHECK(second.counts.mined == 1);
    CHECK(second.counts.unchanged == 5);
    CHECK(miner.calls["erin/conv@" + newer] == 1);
    CHECK(store.rows["erin/conv"].mined->commit == newer);
    CHECK(store.corpus["erin/conv"] == "kernel v2\n");
    for (const auto& [key, n] : miner.calls) CHECK(n == 1);
  }

  SECTION("without trusting pushed_at, heads are compared and still nothing is mined twice") {
    options.trust_pushed_at = false;
    auto second = crawl(tmp / "pop1.json", options);
    CHECK(second.counts.unchanged == 6);
    CHECK(second.counts.mined == 0);
    for (const auto& [key, n] : miner.calls) CHECK(n == 1);
  }
}

TEST_CASE("CrawlPipeline stops on request and a rerun finishes without mining anything twice", "[repo][crawl]") {
  loopback::TempDir tmp;
  std::string served = tmp / "served", scratch = tmp / "scratch", cache = tmp / "cache";
  std::vector<RepoInfo> repos;
  for (int i = 0; i < 12; ++i) {
    std::string name = "owner" + std::to_string(i % 3) + "/repo" + std::to_string(i);
    loopback::make_served_repo(served, name, i % 2 ? "main" : "master", scratch, "k" + std::to_string(i) + "\n");
  }
  auto daemon = loopback::start_git_daemon(served);
  for (int i = 0; i < 12; ++i) {
    RepoInfo r;
    r.full_name = "owner" + std::to_string(i % 3) + "/repo" + std::to_string(i);
    r.clone_url = "git://127.0.0.1:" + std::to_string(daemon->port()) + "/" + r.full_name + ".git";
    r.pushed_at = "2024-01-01T00:00:00Z";
    repos.push_back(r);
  }
  MemoryStateStore store;
  CountingMiner miner;
  miner.store = &store;
  std::atomic<bool> cancel{false};
  std::ostringstream log;
  {
    RepoCloner cloner({cache, 0, &cancel});
    CrawlProgress progress(log, false);
    CrawlPipelineOptions options;
    options.jobs = 2;
    options.cancel = &cancel;
    std::atomic<int> mined{0};
    auto stopping_miner = [&](const RepoInfo& r, const std::string& p, const std::string& c) {
      if (++mined == 3) cancel = true;
      return miner(r, p, c);
    };
    CrawlPipeline pipeline(store, cloner, stopping_miner, options, progress);
    auto summary = pipeline.run([&](const auto& emit) {
      for (const auto& r : repos) emit(r);
    });
    CHECK(summary.cancelled);
    CHECK(summary.counts.mined < 12);
  }
  cancel = false;
  RepoCloner cloner({cache});
  CrawlProgress progress(log, false);
  CrawlPipelineOptions options;
  options.jobs = 2;
  CrawlPipeline pipeline(store, cloner, std::ref(miner), options, progress);
  auto summary = pipeline.run([&](const auto& emit) {
    for (const auto& r : repos) emit(r);
  });
  CHECK_FALSE(summary.cancelled);
  int mined_rows = 0;
  for (const auto& [name, row] : store.rows) mined_rows += row.state == "mined";
  CHECK(mined_rows == 12);
  CHECK(miner.calls.size() == 12);
  for (const auto& [key, n] : miner.calls) CHECK(n == 1);
}

TEST_CASE("CrawlProgress writes plain lines off a terminal and one live line on it", "[repo][crawl]") {
  std::ostringstream plain;
  CrawlProgress p(plain, false);
  p.discovered("a/b");
  p.synced("a/b", "cloned", "0123456789abcdef");
  p.api_wait("rate limit exhausted (search)", std::chrono::milliseconds(3000));
  p.api_wait("rate limit exhausted (search)", std::chrono::milliseconds(2000));
  p.api_wait("rate limit exhausted (search)", std::chrono::milliseconds(0));
  p.mined("a/b", "0123456789abcdef", 4);
  CHECK(plain.str() ==
        "discovered a/b\ncloned a/b at 0123456789ab\nGitHub API rate limit exhausted (search): waiting 3s\n"
        "mined a/b at 0123456789ab: 4 kernels\n");
  CHECK(p.counts().api_waits == 1);

  std::ostringstream live;
  CrawlProgress t(live, true);
  t.discovered("a/b");
  t.api_wait("secondary rate limit", std::chrono::milliseconds(5000));
  CHECK(live.str().find('\n') == std::string::npos);
  CHECK(live.str().find("secondary rate limit: waiting 5s") != std::string::npos);
  t.finish();
}
