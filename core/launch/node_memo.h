#pragma once
#include <tree_sitter/api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/python/function_parameters.h"

namespace mine {

class PythonModule;

// What the evaluations of a file's launchers read of the syntax tree, looked up in tree-sitter once
// per node: each launch is evaluated three to seven times over the same statements (nominal,
// alternate, skewed and larger stand-in sizes; the helpers it calls again for each), and
// tree-sitter finds a field or the i-th named child by walking the children before it on every
// call (about 40% of the launch finder's instructions). Answers are tree-sitter's own; nodes are
// keyed by id, which is unique among the trees alive, so a memo must not outlive the trees it was
// asked about. Not thread-safe: one per launch finder.
class NodeMemo {
 public:
  // ts::field(n, name). The name must be a string literal: its address keys the memo (a buffer
  // reused for another name would be taken for the first), hence the array reference.
  template <size_t N>
  TSNode field(TSNode n, const char (&name)[N]) {
    return field_named(n, name);
  }
  // ts_node_named_child(n, i) and ts_node_named_child_count(n) (line continuations included).
  const std::vector<TSNode>& named_children(TSNode n);
  // parameter_nodes(m, definition).
  const std::vector<ParameterNodes>& parameters(const PythonModule& m, TSNode definition);
  // m.qualified_name(expression).
  const std::optional<std::string>& qualified_name(const PythonModule& m, TSNode expression);

 private:
  TSNode field_named(TSNode n, const char* literal);
  struct FieldKey {
    const void* node;
    const char* name;  // the literal's address: each spelling of a name is an entry of its own
    bool operator==(const FieldKey& o) const { return node == o.node && name == o.name; }
  };
  struct FieldKeyHash {
    size_t operator()(const FieldKey& k) const {
      return std::hash<const void*>()(k.node) * 0x9E3779B97F4A7C15ull ^ std::hash<const void*>()(k.name);
    }
  };
  std::unordered_map<FieldKey, TSNode, FieldKeyHash> fields_;
  std::unordered_map<const void*, std::vector<TSNode>> children_;
  std::unordered_map<const void*, std::vector<ParameterNodes>> parameters_;
  std::unordered_map<const void*, std::optional<std::string>> qualified_;
};

}  // namespace mine
