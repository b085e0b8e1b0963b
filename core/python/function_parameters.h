#pragma once
#include <string>
#include <vector>

#include "core/python/module_model.h"

namespace mine {

// A named parameter of a function definition, with the nodes of its annotation and default
// (null nodes when it has none).
struct ParameterNodes {
  std::string name;
  TSNode annotation{};
  TSNode default_value{};
};

// The named parameters of `definition` (a function_definition) in order; `*args`, `**kwargs`,
// `/` and `*` are left out.
std::vector<ParameterNodes> parameter_nodes(const PythonModule& m, TSNode definition);

// Triton 1.x kernels take their constexprs through a keyword splat (`def k(X, N, **meta)`, read
// as `meta['BLOCK']`): the splat's name and the keys the body reads, in order of first use.
// Empty name when the definition has no `**` parameter.
struct KeywordSplat {
  std::string name;
  std::vector<std::string> keys;
};
KeywordSplat keyword_splat(const PythonModule& m, TSNode definition);

// The module-level function `name` of `m` (not a method, not nested): the last definition, as
// Python binds it. nullptr when there is none.
const FunctionSite* module_function(const PythonModule& m, const std::string& name);

}  // namespace mine
