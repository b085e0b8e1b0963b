#include "core/launch/launch_marks.h"

#include <algorithm>
#include <string_view>

namespace mine {
namespace {

// Whether the first thing after `at` that is not a blank, a line continuation or a comment is `(`.
bool call_follows(const std::string& text, size_t at) {
  size_t i = at;
  while (i < text.size()) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\\') {
      ++i;
    } else if (c == '#') {
      size_t eol = text.find('\n', i);
      if (eol == std::string::npos) return false;
      i = eol + 1;
    } else {
      return c == '(';
    }
  }
  return false;
}

}  // namespace

// The `]`s and `run`s found by memchr-backed searches, merged in text order: a loop over every
// byte of every file that may launch was the launch finder's largest cost after its evaluations.
LaunchMarks::LaunchMarks(const std::string& text) {
  std::string_view all(text);
  constexpr size_t none = std::string_view::npos;
  size_t bracket = all.find(']'), run = all.find("run");
  while (bracket != none || run != none) {
    if (bracket < run) {
      if (call_follows(text, bracket + 1)) offsets_.push_back(static_cast<uint32_t>(bracket));
      bracket = all.find(']', bracket + 1);
    } else {
      if (call_follows(text, run + 3)) offsets_.push_back(static_cast<uint32_t>(run));
      run = all.find("run", run + 1);
    }
  }
}

bool LaunchMarks::spans(uint32_t start, uint32_t end) const {
  auto first = std::lower_bound(offsets_.begin(), offsets_.end(), start);
  return first != offsets_.end() && *first < end;
}

}  // namespace mine
