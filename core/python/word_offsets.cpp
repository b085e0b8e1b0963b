#include "core/python/word_offsets.h"

#include <algorithm>

namespace mine {

WordOffsets::WordOffsets(std::string_view text, std::string_view word, uint32_t begin, uint32_t end) {
  if (word.empty() || begin >= end || end > text.size()) return;
  std::string_view range = text.substr(begin, end - begin);
  for (size_t at = range.find(word); at != std::string_view::npos; at = range.find(word, at + 1))
    at_.push_back(begin + static_cast<uint32_t>(at));
}

bool WordOffsets::spanned_by(TSNode n) const {
  if (ts_node_is_null(n)) return false;
  auto first = std::lower_bound(at_.begin(), at_.end(), ts_node_start_byte(n));
  return first != at_.end() && *first < ts_node_end_byte(n);
}

}  // namespace mine
