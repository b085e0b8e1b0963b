#include "core/crawl/crawl_clock.h"

#include <thread>

namespace mine {

std::chrono::system_clock::time_point SystemCrawlClock::now() { return std::chrono::system_clock::now(); }

void SystemCrawlClock::sleep_for(std::chrono::milliseconds duration) { std::this_thread::sleep_for(duration); }

}  // namespace mine
