#pragma once
#include <string>
#include <string_view>

namespace mine::report {

// Text for HTML or SVG content and attribute values. Corpus text is hostile (kernel names,
// paths and licenses come from arbitrary repositories): markup characters are escaped, and
// invalid UTF-8 and control characters other than tab and newline become U+FFFD so the page
// stays well formed.
std::string html_escape(std::string_view text);

// At most `max_chars` code points of `text` (UTF-8), with "…" when cut.
std::string truncate_utf8(std::string_view text, size_t max_chars);

// The same, keeping the end: "…/fixtures/triton" (paths say most in their last parts).
std::string truncate_utf8_front(std::string_view text, size_t max_chars);

}  // namespace mine::report
