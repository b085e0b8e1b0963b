#pragma once
#include <string>

namespace mine {

// The current time as the corpus stores it: ISO 8601 in UTC to the second, "2026-11-23T03:12:00Z".
std::string utc_now();

}  // namespace mine
