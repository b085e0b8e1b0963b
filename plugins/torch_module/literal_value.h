#pragma once
#include <optional>
#include <string>

#include <tree_sitter/api.h>

#include "plugins/sdk/python_file.h"

namespace mine::torch_module {

// The Python literal an argument expression stands for, as text the harness can literal_eval:
// numbers, strings, booleans, None; tuples, lists and dicts of them (comments inside allowed);
// `dict(k=v, ...)` of them, written as a dict; and a name bound to one of these where the code
// says so: the one assignment of the name in the function the expression is in, before it
// (`cfg = {'num_blocks': [2, 2]}; return DPN(cfg)`), else the one module-level assignment of it.
// nullopt for anything else (a call, an attribute, a parameter, a name assigned twice).
std::optional<std::string> literal_value(const sdk::PythonFile& file, TSNode expression);

}  // namespace mine::torch_module
