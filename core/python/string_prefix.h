#pragma once
#include <string_view>

namespace mine {

// Whether a string literal's text (`f"{x}"`, `rb'\d'`, `"""doc"""`) is a format string: only
// those hold `interpolation` nodes, the only part of a string that reads names. The prefix is
// what comes before the first quote (tree-sitter-python's scanner marks a string format when the
// prefix has an f or F, and parses `{` as an interpolation only then). Lets the scope walkers
// skip the children of every other string (docstrings, dictionary keys, messages) unread.
inline bool is_format_string(std::string_view literal) {
  for (char c : literal) {
    if (c == '"' || c == '\'') return false;
    if (c == 'f' || c == 'F') return true;
  }
  return false;
}

}  // namespace mine
