#pragma once
#include <tree_sitter/api.h>

#include "include/mine/ts_nodes.h"

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

using namespace ts;  // node_type, is_type, field, first_line, last_line, for_each_named_child

// First ERROR or MISSING node under `n` in document order, or a null node.
TSNode first_syntax_error(TSNode n);

}  // namespace mine
