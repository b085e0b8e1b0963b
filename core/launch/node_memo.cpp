#include "core/launch/node_memo.h"

#include "core/python/module_model.h"
#include "core/python/named_children.h"

namespace mine {

TSNode NodeMemo::field_named(TSNode n, const char* literal) {
  if (ts_node_is_null(n)) return ts::field(n, literal);
  auto [slot, fresh] = fields_.try_emplace(FieldKey{n.id, literal});
  if (fresh) slot->second = ts::field(n, literal);
  return slot->second;
}

const std::vector<TSNode>& NodeMemo::named_children(TSNode n) {
  static const std::vector<TSNode> kNone;
  if (ts_node_is_null(n)) return kNone;
  auto [slot, fresh] = children_.try_emplace(n.id);
  if (fresh) slot->second = mine::named_children(n);
  return slot->second;
}

const std::vector<ParameterNodes>& NodeMemo::parameters(const PythonModule& m, TSNode definition) {
  auto [slot, fresh] = parameters_.try_emplace(definition.id);
  if (fresh) slot->second = parameter_nodes(m, definition);
  return slot->second;
}

const std::optional<std::string>& NodeMemo::qualified_name(const PythonModule& m, TSNode expression) {
  static const std::optional<std::string> kNone;
  if (ts_node_is_null(expression)) return kNone;  // as qualified_name answers: no name
  auto [slot, fresh] = qualified_.try_emplace(expression.id);
  if (fresh) slot->second = m.qualified_name(expression);
  return slot->second;
}

}  // namespace mine
