#include "core/check/kernel_only_module.h"

#include "core/error.h"
#include "core/python/dependency_closure.h"
#include "core/python/module_model.h"

namespace mine::check {
namespace {

bool is_triton_jit(const std::string& qualified) {
  return qualified == "triton.jit" || qualified == "triton.runtime.jit" || qualified == "triton.runtime.jit.jit";
}

// The decorator's callee resolved through the imports: `triton.jit` for `@triton.jit` and for
// `@triton.jit(do_not_specialize=[...])`.
std::string callee(const PythonModule& m, TSNode decorator) {
  TSNode target = is_type(decorator, "call") ? field(decorator, "function") : decorator;
  auto q = m.qualified_name(target);
  return q ? *q : m.text_of(target);
}

}  // namespace

const FunctionSite* entry_function(const PythonModule& standalone, const std::string& entry) {
  const FunctionSite* site = nullptr;
  for (const auto& f : standalone.functions())
    if (f.statement && f.name == entry && !f.in_class && !f.in_function) site = &f;
  return site;
}

bool returns_value(const PythonModule& module, const FunctionSite& function) {
  std::vector<TSNode> stack{field(function.definition, "body")};
  size_t steps = 0;
  while (!stack.empty() && ++steps < 200000) {
    TSNode n = stack.back();
    stack.pop_back();
    std::string_view t = node_type(n);
    if (t == "function_definition" || t == "class_definition" || t == "lambda") continue;  // their returns are theirs
    if (t == "return_statement" && ts_node_named_child_count(n) > 0) return true;
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
  return false;
}

std::optional<std::string> kernel_only_module(const std::string& standalone, const std::string& entry) {
  std::unique_ptr<PythonModule> m;
  try {
    m = PythonModule::build("standalone.py", standalone);
  } catch (const Error&) {
    return std::nullopt;
  }
  return kernel_only_module(*m, entry);
}

std::optional<std::string> kernel_only_module(const PythonModule& standalone, const std::string& entry) {
  const PythonModule* m = &standalone;
  const FunctionSite* site = entry_function(standalone, entry);
  if (!site || site->indent != 0) return std::nullopt;

  std::string decorators;
  ClosureRoot root;
  size_t dropped = 0;
  bool jitted = false;
  for (TSNode d : site->decorators) {
    if (is_triton_jit(callee(*m, d))) {
      FreeNames reads = free_names(m->tree(), d);
      // `@triton.jit(debug=debug)` of a kernel a test defined inside itself: the option is the
      // test's parameter, which the standalone cannot bind. The jit without its options compiles
      // the same code.
      bool unbound = false;
      for (const auto& name : reads.names) unbound = unbound || (m->bindings_of(name).empty() && !m->import_of(name));
      if (unbound && is_type(d, "call")) {
        TSNode jit = field(d, "function");
        reads = free_names(m->tree(), jit);
        decorators += "@" + m->text_of(jit) + "\n";
        ++dropped;
      } else {
        decorators += "@" + m->text_of(d) + "\n";
      }
      root.reads.names.insert(reads.names.begin(), reads.names.end());
      for (auto& [base, attrs] : reads.attributes) root.reads.attributes[base].insert(attrs.begin(), attrs.end());
      jitted = true;
    } else {
      ++dropped;
    }
  }
  if (!jitted || dropped == 0) return std::nullopt;

  FreeNames body = free_names(m->tree(), site->definition);
  root.reads.names.insert(body.names.begin(), body.names.end());
  for (auto& [base, attrs] : body.attributes) root.reads.attributes[base].insert(attrs.begin(), attrs.end());
  root.text = decorators + m->text_of(site->definition);
  root.binds = {site->name};
  root.statement = site->statement;
  return DependencyClosure(*m).compute(root).standalone;
}

}  // namespace mine::check
