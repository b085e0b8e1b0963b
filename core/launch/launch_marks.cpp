#include "core/launch/launch_marks.h"

#include <algorithm>

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

LaunchMarks::LaunchMarks(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ']') {
      if (call_follows(text, i + 1)) offsets_.push_back(static_cast<uint32_t>(i));
    } else if (text[i] == 'r' && text.compare(i, 3, "run") == 0 && call_follows(text, i + 3)) {
      offsets_.push_back(static_cast<uint32_t>(i));
    }
  }
}

bool LaunchMarks::spans(uint32_t start, uint32_t end) const {
  auto first = std::lower_bound(offsets_.begin(), offsets_.end(), start);
  return first != offsets_.end() && *first < end;
}

}  // namespace mine
