#pragma once
#include <chrono>

namespace mine {

// Time as the crawl sees it. GitHub's rate-limit reset is an epoch second, so this is wall
// time, not a steady clock. Tests inject their own to record (and shorten) waits.
class CrawlClock {
 public:
  virtual ~CrawlClock() = default;
  virtual std::chrono::system_clock::time_point now() = 0;
  virtual void sleep_for(std::chrono::milliseconds duration) = 0;
};

class SystemCrawlClock : public CrawlClock {
 public:
  std::chrono::system_clock::time_point now() override;
  void sleep_for(std::chrono::milliseconds duration) override;
};

}  // namespace mine
