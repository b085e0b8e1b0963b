#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/plugin.h"

namespace mine {

// Pieces every decorator-based Python kernel plugin needs; kept out of the core because they
// shape what a plugin reports, not how files are modelled. (decorators_of is in
// include/mine/ts_nodes.h: it needs nothing but tree-sitter.)

// Parameters with their annotations and defaults, for signature inference by `mine check`.
nlohmann::json parameters_of(const PythonModule& m, TSNode definition);

// The definition rewritten at column 0 with its decorators; staticmethod/classmethod are dropped
// because they only make sense inside a class.
std::string definition_at_top_level(const PythonModule& m, const FunctionSite& site);
// The same, as the pieces of the module's source it is made of (see ClosureRoot::pieces).
std::vector<ClosureRoot::Piece> definition_pieces(const PythonModule& m, const FunctionSite& site);
// What the closure needs to know about the function at `site`, whose text is `definition`.
ClosureRoot function_root(const PythonModule& m, const FunctionSite& site, std::string definition);

// A kernel record for `site` with name, lines, source and the closure the core computes.
ExtractedKernel kernel_from_function(const FileView& file, const FunctionSite& site, const std::string& definition,
                                     const DependencyLabeler& labeler);

// Value of keyword argument `name` in a call node, or a null node.
TSNode keyword_argument(const PythonModule& m, TSNode call, const std::string& name);

}  // namespace mine
