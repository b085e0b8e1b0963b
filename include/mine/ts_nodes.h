#pragma once
// Small readers over TSNode, named after what they answer. Tree-sitter only, so that mine's own
// code and plugins built on the SDK (which must need nothing of mine but the ABI) share them.
#include <tree_sitter/api.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mine::ts {

inline std::string_view node_type(TSNode n) { return ts_node_type(n); }
inline bool is_type(TSNode n, std::string_view t) { return !ts_node_is_null(n) && node_type(n) == t; }
inline TSNode field(TSNode n, const char* name) {
  return ts_node_child_by_field_name(n, name, static_cast<uint32_t>(std::char_traits<char>::length(name)));
}
inline int first_line(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
inline int last_line(TSNode n) { return static_cast<int>(ts_node_end_point(n).row) + 1; }

// For each named child: f(child).
template <typename F>
void for_each_named_child(TSNode n, F&& f) {
  uint32_t count = ts_node_named_child_count(n);
  for (uint32_t i = 0; i < count; ++i) f(ts_node_named_child(n, i));
}

// The decorator expressions of a `decorated_definition` (`triton.jit`, `triton.autotune(...)`),
// in source order; none for anything else.
inline std::vector<TSNode> decorators_of(TSNode node) {
  std::vector<TSNode> out;
  if (!is_type(node, "decorated_definition")) return out;
  for_each_named_child(node, [&](TSNode d) {
    if (is_type(d, "decorator")) out.push_back(ts_node_named_child(d, 0));
  });
  return out;
}

// The value of keyword argument `name` in a call's arguments, or a null node. `text_of(node)`
// returns the node's source text (the caller knows where the text lives).
template <typename TextOf>
TSNode keyword_value(TSNode call, std::string_view name, TextOf&& text_of) {
  TSNode found{};
  if (!is_type(call, "call")) return found;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (ts_node_is_null(found) && is_type(a, "keyword_argument") && text_of(field(a, "name")) == name)
      found = field(a, "value");
  });
  return found;
}

}  // namespace mine::ts
