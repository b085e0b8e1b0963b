#pragma once
// Reading tree-sitter-cuda's trees: the few node helpers the CUDA plugin's units share.
#include <tree_sitter/api.h>

#include <string>
#include <string_view>

namespace mine::cuda_tree {

inline std::string_view type_of(TSNode n) { return ts_node_type(n); }
inline bool is(TSNode n, std::string_view t) { return !ts_node_is_null(n) && type_of(n) == t; }
inline TSNode field_of(TSNode n, const char* name) {
  return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
}
inline int line_of(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
inline int end_line_of(TSNode n) { return static_cast<int>(ts_node_end_point(n).row) + 1; }

// Visits every node under `n` without recursion: hostile input must not overflow the stack.
template <typename F>
void walk(TSNode n, F&& f) {
  TSTreeCursor c = ts_tree_cursor_new(n);
  for (;;) {
    f(ts_tree_cursor_current_node(&c));
    if (ts_tree_cursor_goto_first_child(&c)) continue;
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&c)) break;
      if (!ts_tree_cursor_goto_parent(&c)) {
        ts_tree_cursor_delete(&c);
        return;
      }
    }
  }
}

}  // namespace mine::cuda_tree
