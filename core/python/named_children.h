#pragma once
#include <tree_sitter/api.h>

#include <cstring>

namespace mine {

// for_each_named_child in time linear in the number of children: ts_node_named_child(n, i) walks
// from the first child every time, so a module or block of hundreds of statements cost a square
// of that. A cursor visits the same children (hidden nodes looked through, in order) in one pass;
// small nodes keep the plain loop, which allocates nothing. Backslash line continuations, named
// nodes in Python's grammar, are layout and are skipped (as ts::for_each_named_child does).
inline bool is_layout_node(TSNode n) { return std::strcmp(ts_node_type(n), "line_continuation") == 0; }

template <typename F>
void visit_named_children(TSNode n, F&& f) {
  uint32_t count = ts_node_named_child_count(n);
  if (count <= 8) {
    for (uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_named_child(n, i);
      if (!is_layout_node(child)) f(child);
    }
    return;
  }
  struct Cursor {
    TSTreeCursor c;
    explicit Cursor(TSNode n) : c(ts_tree_cursor_new(n)) {}
    ~Cursor() { ts_tree_cursor_delete(&c); }
  } cursor(n);
  if (!ts_tree_cursor_goto_first_child(&cursor.c)) return;
  do {
    TSNode child = ts_tree_cursor_current_node(&cursor.c);
    if (ts_node_is_named(child) && !is_layout_node(child)) f(child);
  } while (ts_tree_cursor_goto_next_sibling(&cursor.c));
}

}  // namespace mine
