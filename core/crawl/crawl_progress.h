#pragma once
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <mutex>
#include <string>

namespace mine {

struct CrawlCounts {
  int64_t discovered = 0;
  int64_t cloned = 0;     // fresh clones
  int64_t fetched = 0;    // incremental fetches that brought something
  int64_t unchanged = 0;  // skipped: nothing new since the last mining
  int64_t mined = 0;
  int64_t kernels = 0;
  int64_t failed = 0;
  int64_t api_waits = 0;
  int64_t empty = 0;        // mined after a clone or fetch and yielded no kernel: a wasted clone
  int64_t unconfirmed = 0;  // --confirm: code search found no candidate file, so not cloned
};

// Reports a crawl as it goes: on a terminal one live status line (counts, current rate-limit
// countdown, ETA), otherwise one plain log line per event, for log files and CI.
// Thread-safe: pipeline workers and the discovery thread all report here.
class CrawlProgress {
 public:
  CrawlProgress(std::ostream& out, bool live);
  // live when `fd` is a terminal.
  static bool is_terminal(int fd);

  void discovered(const std::string& repo);
  void discovery_done();
  void synced(const std::string& repo, const std::string& action, const std::string& commit);
  void unchanged(const std::string& repo, const std::string& why);
  void mined(const std::string& repo, const std::string& commit, int64_t kernels);
  void failed(const std::string& repo, const std::string& error);
  void unconfirmed(const std::string& repo);
  // Called about once a second while the API client waits; remaining 0 ends the wait.
  void api_wait(const std::string& reason, std::chrono::milliseconds remaining);
  void log(const std::string& line);  // a message that must not be overwritten by the live line
  void finish();

  CrawlCounts counts() const;

 private:
  void render_locked(bool force);
  std::string eta_locked() const;

  std::ostream& out_;
  bool live_;
  mutable std::mutex mutex_;
  CrawlCounts counts_;
  bool discovery_done_ = false;
  std::string waiting_;  // the current rate-limit countdown, "" when none
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_render_{};
  size_t last_width_ = 0;
};

}  // namespace mine
