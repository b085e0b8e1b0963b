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
  return ts::keyword_value(call, name, [&](TSNode n) { return file.view_of(n); });
}

}  // namespace mine::sdk
