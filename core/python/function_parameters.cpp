#include "core/python/function_parameters.h"

#include <algorithm>

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

KeywordSplat keyword_splat(const PythonModule& m, TSNode definition) {
  KeywordSplat out;
  for_each_named_child(field(definition, "parameters"), [&](TSNode p) {
    if (is_type(p, "dictionary_splat_pattern") && ts_node_named_child_count(p) == 1)
      out.name = m.text_of(ts_node_named_child(p, 0));
  });
  if (out.name.empty()) return out;
  std::vector<std::pair<uint32_t, std::string>> found;
  std::vector<TSNode> stack{field(definition, "body")};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is_type(n, "subscript") && m.text_of(field(n, "value")) == out.name) {
      TSNode key = field(n, "subscript");
      std::string text = is_type(key, "string") ? m.text_of(key) : "";
      if (text.size() >= 2 && (text.front() == '\'' || text.front() == '"') && text.back() == text.front())
        found.push_back({ts_node_start_byte(n), text.substr(1, text.size() - 2)});
    }
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
  std::sort(found.begin(), found.end());
  for (const auto& [at, key] : found)
    if (std::find(out.keys.begin(), out.keys.end(), key) == out.keys.end()) out.keys.push_back(key);
  return out;
}

const FunctionSite* module_function(const PythonModule& m, const std::string& name) {
  const FunctionSite* found = nullptr;
  for (const auto& f : m.functions())
    if (f.statement && f.name == name && !f.in_class) found = &f;
  return found;
}

}  // namespace mine
