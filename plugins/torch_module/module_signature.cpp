#include "plugins/torch_module/module_signature.h"
#include "plugins/torch_module/tree_walk.h"

#include <functional>

namespace mine::torch_module {
namespace {

using namespace sdk;

TSNode class_node(const PythonFile& m, size_t statement) {
  TSNode s = m.statement(statement).node;
  return is_type(s, "decorated_definition") ? field(s, "definition") : s;
}

bool inside(TSNode outer, TSNode n) {
  return ts_node_start_byte(n) >= ts_node_start_byte(outer) && ts_node_start_byte(n) < ts_node_end_byte(outer);
}

nlohmann::json without_self(const nlohmann::json& params) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < params.size(); ++i)
    if (i > 0 || params[i].value("name", "") != "self") out.push_back(params[i]);
  return out;
}

// `self.proj = nn.Linear(dim, dim)` anywhere in __init__ (loops and branches included).
nlohmann::json submodules_built(const PythonFile& m, TSNode init) {
  nlohmann::json out = nlohmann::json::array();
  walk(field(init, "body"), [&](TSNode n) {
    if (!is_type(n, "assignment")) return;
    TSNode left = field(n, "left"), right = field(n, "right");
    if (!is_type(left, "attribute") || !is_type(right, "call")) return;
    if (m.view_of(field(left, "object")) != "self") return;
    TSNode callee = field(right, "function");
    std::optional<std::string> q = m.qualified_name(callee);
    out.push_back({{"name", m.text_of(field(left, "attribute"))},
                   {"type", q ? *q : m.text_of(callee)},
                   {"args", m.text_of(field(right, "arguments"))}});
  });
  return out;
}

}  // namespace

std::optional<size_t> method_of(const PythonFile& m, const ModuleClass& cls, const std::string& name) {
  for (size_t statement : cls.lineage) {
    TSNode node = class_node(m, statement);
    std::string q = m.text_of(field(node, "name")) + "." + name;
    for (size_t i = 0, n = m.function_count(); i < n; ++i) {
      mine_python_function f = m.function(i);
      if (f.in_class && !f.in_function && f.qualname == q && inside(node, f.node)) return i;
    }
  }
  return std::nullopt;
}

nlohmann::json module_signature(const PythonFile& m, const ModuleClass& cls) {
  nlohmann::json out = {{"init", nlohmann::json::array()},
                        {"forward", nlohmann::json::array()},
                        {"submodules", nlohmann::json::array()}};
  if (auto init = method_of(m, cls, "__init__")) {
    out["init"] = without_self(nlohmann::json::parse(m.parameters_json(*init)));
    out["submodules"] = submodules_built(m, m.function(*init).definition);
  }
  if (auto forward = method_of(m, cls, "forward"))
    out["forward"] = without_self(nlohmann::json::parse(m.parameters_json(*forward)));
  return out;
}

}  // namespace mine::torch_module
