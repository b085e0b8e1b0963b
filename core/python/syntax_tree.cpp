#include "core/python/syntax_tree.h"

#include <vector>

namespace mine {

std::unique_ptr<SyntaxTree> SyntaxTree::parse(std::string text) {
  TSParser* parser = ts_parser_new();
  ts_parser_set_language(parser, tree_sitter_python());
  TSTree* tree = ts_parser_parse_string(parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
  ts_parser_delete(parser);
  return std::unique_ptr<SyntaxTree>(new SyntaxTree(std::move(text), tree));
}

SyntaxTree::~SyntaxTree() { ts_tree_delete(tree_); }

TSNode first_syntax_error(TSNode root) {
  if (!ts_node_has_error(root)) return TSNode{};
  // Iterative so that deeply nested input cannot overflow the stack.
  std::vector<TSNode> stack{root};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (node_type(n) == "ERROR" || ts_node_is_missing(n)) return n;
    if (!ts_node_has_error(n)) continue;
    uint32_t count = ts_node_child_count(n);
    for (uint32_t i = count; i > 0; --i) stack.push_back(ts_node_child(n, i - 1));
  }
  return TSNode{};
}

}  // namespace mine
