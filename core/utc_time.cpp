#include "core/utc_time.h"

#include <ctime>

namespace mine {

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&t, &parts);  // scans store rows from several threads: no shared static buffer
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buf;
}

}  // namespace mine
