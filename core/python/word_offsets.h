#pragma once
#include <tree_sitter/api.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace mine {

// Where a word occurs in a source text, so that a walk looking for a use of it can skip every
// subtree that spans none of its occurrences (a kernel body has thousands of nodes and a handful
// of `//`; a module has many classes and few places naming one).
class WordOffsets {
 public:
  // The occurrences of `word` lying wholly in text[begin, end).
  WordOffsets(std::string_view text, std::string_view word, uint32_t begin, uint32_t end);
  WordOffsets(std::string_view text, std::string_view word)
      : WordOffsets(text, word, 0, static_cast<uint32_t>(text.size())) {}

  // Whether `n`'s bytes hold the start of an occurrence.
  bool spanned_by(TSNode n) const;

 private:
  std::vector<uint32_t> at_;
};

}  // namespace mine
