#pragma once
#include <initializer_list>
#include <string_view>
#include <vector>

#include "core/python/syntax_tree.h"

namespace mine {

// A set of node types of the Python grammar, held as a table by grammar symbol: asking whether a
// node's type is in it costs ts_node_symbol and a lookup, where ts_node_type's name lookup, its
// strlen and a string compare per name were most of what the statement walks spent per node.
// A type name can stand for several symbols (aliases): every symbol of that name is in.
class PythonTypeSet {
 public:
  PythonTypeSet(std::initializer_list<std::string_view> types) {
    const TSLanguage* language = tree_sitter_python();
    uint32_t count = ts_language_symbol_count(language);
    in_.assign(count, false);
    for (uint32_t sym = 0; sym < count; ++sym) {
      const char* name = ts_language_symbol_name(language, static_cast<TSSymbol>(sym));
      for (std::string_view type : types)
        if (name && type == name) in_[sym] = true;
    }
  }
  // is_type(n, t) for one t of the set; false for a null node. `n` is of a Python tree.
  bool has(TSNode n) const { return !ts_node_is_null(n) && has(ts_node_symbol(n)); }
  // The same for a node's ts_node_symbol, read once where several sets are asked.
  bool has(TSSymbol sym) const { return sym < in_.size() && in_[sym]; }

 private:
  std::vector<bool> in_;
};

}  // namespace mine
