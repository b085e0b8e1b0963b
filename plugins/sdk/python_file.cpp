#include "plugins/sdk/python_file.h"

namespace mine::sdk {

std::vector<TSNode> decorators_of(TSNode node) {
  std::vector<TSNode> out;
  if (!is_type(node, "decorated_definition")) return out;
  for_each_named_child(node, [&](TSNode d) {
    if (is_type(d, "decorator")) out.push_back(ts_node_named_child(d, 0));
  });
  return out;
}

TSNode keyword_argument(const PythonFile& file, TSNode call, const std::string& name) {
  TSNode found{};
  if (!is_type(call, "call")) return found;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (ts_node_is_null(found) && is_type(a, "keyword_argument") && file.view_of(field(a, "name")) == name)
      found = field(a, "value");
  });
  return found;
}

}  // namespace mine::sdk
