#include "core/crawl/crawl_progress.h"

#include <unistd.h>

#include <ostream>
#include <sstream>

namespace mine {
namespace {

std::string format_duration(int64_t seconds) {
  std::ostringstream s;
  if (seconds >= 3600) s << seconds / 3600 << "h" << (seconds % 3600) / 60 << "m";
  else if (seconds >= 60) s << seconds / 60 << "m" << seconds % 60 << "s";
  else s << seconds << "s";
  return s.str();
}

}  // namespace

CrawlProgress::CrawlProgress(std::ostream& out, bool live) : out_(out), live_(live) {}

bool CrawlProgress::is_terminal(int fd) { return isatty(fd) == 1; }

std::string CrawlProgress::eta_locked() const {
  int64_t done = counts_.mined + counts_.unchanged + counts_.failed + counts_.unconfirmed;  // unconfirmed: never cloned
  if (!discovery_done_ || done == 0) return "?";
  int64_t left = counts_.discovered - done;
  if (left <= 0) return "0s";
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  return format_duration(static_cast<int64_t>(elapsed / done * left));
}

void CrawlProgress::render_locked(bool force) {
  if (!live_) return;
  auto now = std::chrono::steady_clock::now();
  // A terminal redrawn more than ~10 times a second only costs time.
  if (!force && now - last_render_ < std::chrono::milliseconds(100)) return;
  last_render_ = now;
  std::ostringstream s;
  s << "discovered " << counts_.discovered << (discovery_done_ ? "" : "+") << " | cloned " << counts_.cloned
    << " fetched " << counts_.fetched << " unchanged " << counts_.unchanged << " | mined " << counts_.mined
    << " | kernels " << counts_.kernels << " | failed " << counts_.failed;
  if (!waiting_.empty()) s << " | " << waiting_;
  s << " | ETA " << eta_locked();
  std::string line = s.str();
  size_t width = line.size();
  if (width < last_width_) line.append(last_width_ - width, ' ');
  last_width_ = width;
  out_ << '\r' << line << std::flush;
}

void CrawlProgress::log(const std::string& line) {
  std::lock_guard lock(mutex_);
  if (live_ && last_width_ > 0) out_ << '\r' << std::string(last_width_, ' ') << '\r';
  out_ << line << "\n";
  last_width_ = 0;
  render_locked(true);
}

void CrawlProgress::discovered(const std::string& repo) {
  std::lock_guard lock(mutex_);
  ++counts_.discovered;
  if (!live_) out_ << "discovered " << repo << "\n";
  render_locked(false);
}

void CrawlProgress::discovery_done() {
  std::lock_guard lock(mutex_);
  discovery_done_ = true;
  if (!live_) out_ << "discovery done: " << counts_.discovered << " repositories\n";
  render_locked(true);
}

void CrawlProgress::synced(const std::string& repo, const std::string& action, const std::string& commit) {
  std::lock_guard lock(mutex_);
  if (action == "cloned") ++counts_.cloned;
  else if (action == "fetched") ++counts_.fetched;
  if (!live_) out_ << action << " " << repo << " at " << commit.substr(0, 12) << "\n";
  render_locked(false);
}

void CrawlProgress::unchanged(const std::string& repo, const std::string& why) {
  std::lock_guard lock(mutex_);
  ++counts_.unchanged;
  if (!live_) out_ << "unchanged " << repo << " (" << why << ")\n";
  render_locked(false);
}

void CrawlProgress::mined(const std::string& repo, const std::string& commit, int64_t kernels) {
  std::lock_guard lock(mutex_);
  ++counts_.mined;
  counts_.kernels += kernels;
  if (kernels == 0) ++counts_.empty;
  if (!live_) out_ << "mined " << repo << " at " << commit.substr(0, 12) << ": " << kernels << " kernels\n";
  render_locked(false);
}

void CrawlProgress::unconfirmed(const std::string& repo) {
  std::lock_guard lock(mutex_);
  ++counts_.unconfirmed;
  if (!live_) out_ << "not cloned " << repo << " (code search found no candidate file)\n";
  render_locked(false);
}

void CrawlProgress::failed(const std::string& repo, const std::string& error) {
  std::lock_guard lock(mutex_);
  ++counts_.failed;
  if (live_ && last_width_ > 0) out_ << '\r' << std::string(last_width_, ' ') << '\r';
  last_width_ = 0;
  out_ << "failed " << repo << ": " << error << "\n";
  render_locked(true);
}

void CrawlProgress::api_wait(const std::string& reason, std::chrono::milliseconds remaining) {
  std::lock_guard lock(mutex_);
  int64_t secs = (remaining.count() + 999) / 1000;
  if (remaining.count() <= 0) {
    waiting_.clear();
  } else {
    bool starting = waiting_.empty();
    if (starting) ++counts_.api_waits;
    waiting_ = reason + ": waiting " + format_duration(secs);
    // Plain logs get the start of a wait, not a line per second.
    if (!live_ && starting) out_ << "GitHub API " << reason << ": waiting " << format_duration(secs) << "\n";
  }
  render_locked(true);
}

void CrawlProgress::finish() {
  std::lock_guard lock(mutex_);
  if (live_ && last_width_ > 0) out_ << '\r' << std::string(last_width_, ' ') << '\r' << std::flush;
  last_width_ = 0;
}

CrawlCounts CrawlProgress::counts() const {
  std::lock_guard lock(mutex_);
  return counts_;
}

}  // namespace mine
