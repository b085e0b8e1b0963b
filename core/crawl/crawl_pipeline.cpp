#include "core/crawl/crawl_pipeline.h"

#include <cctype>
#include <condition_variable>
#include <deque>
#include <exception>
#include <future>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "core/error.h"

namespace mine {
namespace {

struct Stopped {};

std::string lower_name(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));  // GitHub names ignore case
  return s;
}

// Runs tasks one at a time on its own thread: the only thread that touches the state store.
class WriterThread {
 public:
  explicit WriterThread(std::mutex& store_mutex) : store_mutex_(store_mutex), thread_([this] { loop(); }) {}
  ~WriterThread() { close(); }

  template <typename F>
  auto call(F f) -> std::future<decltype(f())> {
    auto task = std::make_shared<std::packaged_task<decltype(f())()>>(std::move(f));
    auto future = task->get_future();
    {
      std::lock_guard lock(mutex_);
      tasks_.push_back([task] { (*task)(); });
    }
    cv_.notify_one();
    return future;
  }

  void close() {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
      closed_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }

 private:
  void loop() {
    for (;;) {
      std::function<void()> task;
      {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return closed_ || !tasks_.empty(); });
        if (tasks_.empty()) return;
        task = std::move(tasks_.front());
        tasks_.pop_front();
      }
      std::lock_guard store_lock(store_mutex_);
      task();  // exceptions land in the task's future
    }
  }

  std::mutex& store_mutex_;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> tasks_;
  bool closed_ = false;
  std::thread thread_;
};

class RepoQueue {
 public:
  void push(RepoInfo r) {
    {
      std::lock_guard lock(mutex_);
      items_.push_back(std::move(r));
    }
    cv_.notify_one();
  }
  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  std::optional<RepoInfo> pop() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (items_.empty()) return std::nullopt;
    RepoInfo r = std::move(items_.front());
    items_.pop_front();
    return r;
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<RepoInfo> items_;
  bool closed_ = false;
};

}  // namespace

CrawlPipeline::CrawlPipeline(CrawlStateStore& store, RepoCloner& cloner, MineFunction mine,
                             CrawlPipelineOptions options, CrawlProgress& progress)
    : store_(store), cloner_(cloner), mine_(std::move(mine)), options_(options), progress_(progress) {
  if (options_.jobs < 1) options_.jobs = 1;
}

CrawlSummary CrawlPipeline::run(const DiscoverFunction& discover) {
  CrawlSummary summary;
  std::mutex summary_mutex;
  std::atomic<bool> fatal{false};
  std::exception_ptr fatal_error;
  auto stopping = [&] { return fatal.load() || (options_.cancel && options_.cancel->load()); };

  WriterThread writer(store_mutex_);
  RepoQueue queue;

  // A failing store means the corpus is broken: stop everything and report that, not a repo.
  auto store_failed = [&](std::exception_ptr e) {
    std::lock_guard lock(summary_mutex);
    if (!fatal_error) fatal_error = e;
    fatal = true;
  };
  auto record_failure = [&](const RepoInfo& repo, const std::string& error) {
    progress_.failed(repo.full_name, error);
    {
      std::lock_guard lock(summary_mutex);
      summary.failures.emplace_back(repo.full_name, error);
    }
    try {
      writer.call([&, name = repo.full_name, error] { store_.mark_failed(name, error); }).get();
    } catch (...) {
      store_failed(std::current_exception());
    }
  };

  std::thread discovery([&] {
    // Several strategies may report one repository: each report adds its strategy to the row,
    // only the first is queued, so nothing is cloned or mined twice in a run.
    std::set<std::string> queued;
    try {
      discover([&](const RepoInfo& repo) {
        if (stopping()) throw Stopped{};
        // Queued before the workers can see the repository, so its row exists first.
        writer.call([this, repo] { store_.upsert_discovered(repo); });
        if (!queued.insert(lower_name(repo.full_name)).second) return;
        progress_.discovered(repo.full_name);
        if (repo.confirmed == 0) {
          progress_.unconfirmed(repo.full_name);  // --confirm: recorded, not cloned
          return;
        }
        queue.push(repo);
      });
    } catch (const Stopped&) {
    } catch (const std::exception& e) {
      std::lock_guard lock(summary_mutex);
      summary.discovery_error = e.what();
    }
    progress_.discovery_done();
    queue.close();
  });

  auto work = [&] {
    std::future<void> pending_store;  // at most one per worker: bounds memory held by results
    auto settle = [&] {
      if (!pending_store.valid()) return;
      try {
        pending_store.get();
      } catch (...) {
        store_failed(std::current_exception());
      }
    };
    while (!stopping()) {
      auto next = queue.pop();
      if (!next) break;
      const RepoInfo& repo = *next;
      try {
        std::optional<MinedRecord> last = writer.call([&] { return store_.last_mined(repo.full_name); }).get();
        bool not_pushed = last && !repo.pushed_at.empty() && last->pushed_at == repo.pushed_at;
        if (options_.trust_pushed_at && not_pushed) {
          progress_.unchanged(repo.full_name, "not pushed since mined");
          continue;
        }
        // A repository that yielded nothing is not asked again, even with --always-ask-remote,
        // until GitHub says it was pushed: most of those are not kernel repositories at all.
        if (not_pushed && last->kernels == 0) {
          progress_.unchanged(repo.full_name, "yielded no kernels and not pushed since");
          continue;
        }
        RepoSyncResult synced;
        try {
          synced = cloner_.sync(repo);
        } catch (const Error& e) {
          record_failure(repo, e.what());
          continue;
        }
        if (synced.action != RepoSyncResult::Action::unchanged)
          progress_.synced(repo.full_name, to_string(synced.action), synced.commit);
        writer.call([&, name = repo.full_name, commit = synced.commit] { store_.mark_cloned(name, commit); });
        if (last && last->commit == synced.commit) {
          // Same commit as mined before: only remember the new pushed_at so next time needs no network.
          int64_t kernels = last->kernels;
          settle();
          pending_store = writer.call([this, repo, commit = synced.commit, kernels] { store_.mark_mined(repo, commit, kernels); });
          progress_.unchanged(repo.full_name, "head " + synced.commit.substr(0, 12) + " already mined");
          continue;
        }
        MineResult mined;
        try {
          mined = mine_(repo, synced.path, synced.commit);
        } catch (const std::exception& e) {
          record_failure(repo, std::string("mining failed: ") + e.what());
          continue;
        }
        settle();
        pending_store = writer.call([&, repo, commit = synced.commit, mined = std::move(mined)]() mutable {
          try {
            if (mined.store) mined.store();
          } catch (const Error& e) {
            // The extracted result could not be stored for this repository (bad data, not a
            // broken corpus): record it as this repository's failure.
            std::string error = std::string("storing failed: ") + e.what();
            progress_.failed(repo.full_name, error);
            {
              std::lock_guard lock(summary_mutex);
              summary.failures.emplace_back(repo.full_name, error);
            }
            store_.mark_failed(repo.full_name, error);
            return;
          }
          store_.mark_mined(repo, commit, mined.kernels);
          progress_.mined(repo.full_name, commit, mined.kernels);
        });
      } catch (...) {
        store_failed(std::current_exception());
      }
    }
    settle();
  };

  std::vector<std::thread> workers;
  for (int i = 0; i < options_.jobs; ++i) workers.emplace_back(work);
  for (auto& w : workers) w.join();
  // Workers leave on stop with discovery perhaps still running; it sees the stop at its next emit.
  queue.close();
  discovery.join();
  writer.close();
  progress_.finish();

  if (fatal_error) std::rethrow_exception(fatal_error);
  summary.counts = progress_.counts();
  summary.cancelled = options_.cancel && options_.cancel->load();
  return summary;
}

}  // namespace mine
