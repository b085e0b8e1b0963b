#include "core/check/decorator_facts.h"

namespace mine::check {

TSNode single_return(const PythonModule& m, const std::string& function) {
  const FunctionSite* f = module_function(m, function);
  if (!f) return TSNode{};
  TSNode found{};
  int count = 0;
  std::vector<TSNode> stack{field(f->definition, "body")};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is_type(n, "function_definition") || is_type(n, "class_definition")) continue;
    if (is_type(n, "return_statement")) {
      ++count;
      found = ts_node_named_child(n, 0);
    }
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
  return count == 1 ? found : TSNode{};
}

}  // namespace mine::check
