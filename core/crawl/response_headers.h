#pragma once
#include <map>
#include <string>
#include <string_view>

namespace mine {

// Adds one raw header line as libcurl hands it over ("Name: value\r\n") to `headers`: names
// lower-cased, values trimmed, the last value wins. A status line ("HTTP/...", after a redirect
// or 100 Continue) starts a new set; lines without a colon are ignored.
void add_header_line(std::map<std::string, std::string>& headers, std::string_view line);

// A header holding a whole number of seconds (Retry-After, X-RateLimit-Reset) or a count
// (X-RateLimit-Remaining): its value, or `fallback` when it is absent, not a plain non-negative
// integer, or beyond any sane value (year ~2100 as an epoch second), since the value is turned
// into a time point and must not overflow the clock's nanoseconds.
long long header_number(std::string_view value, long long fallback);

// GitHub's "message" in an error body, or "" when the body is not such JSON.
std::string api_message(std::string_view body);

}  // namespace mine
