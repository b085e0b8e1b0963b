#include "plugins/torch_module/einops_pattern.h"

#include <cctype>

namespace mine::torch_module {

std::optional<PatternRank> einops_input_rank(const std::string& pattern) {
  size_t arrow = pattern.find("->");
  if (arrow == std::string::npos) return std::nullopt;
  PatternRank out;
  int depth = 0;
  bool in_token = false;
  for (size_t i = 0; i < arrow; ++i) {
    char c = pattern[i];
    if (c == '(') {
      if (depth == 0) ++out.rank;  // a group is one axis of the input
      ++depth;
      in_token = false;
    } else if (c == ')') {
      if (--depth < 0) return std::nullopt;
    } else if (c == '.') {
      if (pattern.compare(i, 3, "...") != 0) return std::nullopt;
      if (depth == 0) out.exact = false;
      i += 2;
      in_token = false;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      in_token = false;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      if (depth == 0 && !in_token) ++out.rank;
      in_token = true;
    } else {
      return std::nullopt;
    }
  }
  if (depth != 0 || (out.rank == 0 && out.exact)) return std::nullopt;
  return out;
}

}  // namespace mine::torch_module
