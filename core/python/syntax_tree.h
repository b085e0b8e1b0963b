#pragma once
#include <tree_sitter/api.h>

#include <memory>
#include <string>
#include <string_view>

extern "C" const TSLanguage* tree_sitter_python();

namespace mine {

// A parsed Python file: owns the tree-sitter tree and the text it points into.
// Nodes handed out stay valid as long as the SyntaxTree lives.
class SyntaxTree {
 public:
  // Parses `text` as Python. Never fails: syntax errors become ERROR/MISSING nodes.
  static std::unique_ptr<SyntaxTree> parse(std::string text);
  ~SyntaxTree();
  SyntaxTree(const SyntaxTree&) = delete;
  SyntaxTree& operator=(const SyntaxTree&) = delete;

  TSNode root() const { return ts_tree_root_node(tree_); }
  const std::string& text() const { return text_; }
  std::string_view text_of(TSNode n) const {
    return std::string_view(text_).substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }

 private:
  SyntaxTree(std::string text, TSTree* tree) : text_(std::move(text)), tree_(tree) {}
  std::string text_;
  TSTree* tree_;
};

// Small readers over TSNode, named after what they answer.
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

// First ERROR or MISSING node under `n` in document order, or a null node.
TSNode first_syntax_error(TSNode n);

}  // namespace mine
