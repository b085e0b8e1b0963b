#pragma once
#include <optional>
#include <string>

namespace mine::torch_module {

// The rank an einops pattern's input side names: `"b c (h p1) (w p2) -> ..."` takes a rank-4
// tensor. `exact` is false when the side has an ellipsis (`"b ... d"`: at least `rank`).
struct PatternRank {
  int rank = 0;
  bool exact = true;
};

// nullopt for text that is no einops pattern (no `->`, unbalanced parentheses, odd characters).
std::optional<PatternRank> einops_input_rank(const std::string& pattern);

}  // namespace mine::torch_module
