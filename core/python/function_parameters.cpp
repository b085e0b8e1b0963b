#include "core/python/function_parameters.h"

namespace mine {

std::vector<ParameterNodes> parameter_nodes(const PythonModule& m, TSNode definition) {
  std::vector<ParameterNodes> out;
  for_each_named_child(field(definition, "parameters"), [&](TSNode p) {
    std::string_view t = node_type(p);
    ParameterNodes n;
    if (t == "identifier") {
      n.name = m.text_of(p);
    } else if (t == "default_parameter" || t == "typed_default_parameter") {
      n.name = m.text_of(field(p, "name"));
      n.default_value = field(p, "value");
      if (t == "typed_default_parameter") n.annotation = field(p, "type");
    } else if (t == "typed_parameter" && is_type(ts_node_named_child(p, 0), "identifier")) {
      n.name = m.text_of(ts_node_named_child(p, 0));
      n.annotation = field(p, "type");
    } else {
      return;  // *args, **kwargs, `/`, `*`
    }
    out.push_back(n);
  });
  return out;
}

const FunctionSite* module_function(const PythonModule& m, const std::string& name) {
  const FunctionSite* found = nullptr;
  for (const auto& f : m.functions())
    if (f.statement && f.name == name && !f.in_class) found = &f;
  return found;
}

}  // namespace mine
