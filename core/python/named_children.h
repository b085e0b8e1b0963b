#pragma once
#include <tree_sitter/api.h>

#include <vector>

namespace mine {

// Every named child of `n` in order, exactly as ts_node_named_child(n, i) names them for i from
// 0 (line continuations and comments included), through one cursor: ts_node_named_child walks
// from the first child on every call, so indexing a long block child by child is quadratic.
std::vector<TSNode> named_children(TSNode n);

}  // namespace mine
