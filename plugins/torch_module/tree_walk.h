#pragma once
// The plugin's one pre-order walk over a syntax tree (named nodes only).
#include <functional>

#include <tree_sitter/api.h>

namespace mine::torch_module {

inline void walk(TSNode n, const std::function<void(TSNode)>& visit) {
  if (ts_node_is_null(n)) return;
  visit(n);
  for (uint32_t i = 0, c = ts_node_named_child_count(n); i < c; ++i) walk(ts_node_named_child(n, i), visit);
}

}  // namespace mine::torch_module
