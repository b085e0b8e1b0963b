#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/python/syntax_tree.h"

namespace mine::inductor {

// The value of a Python string literal node (`string` or `concatenated_string`), escapes decoded
// unless the literal is raw. nullopt for f-strings, whose value is only known at run time.
std::optional<std::string> string_value(const SyntaxTree& tree, TSNode node);

// Reads a literal expression into JSON without evaluating anything: dict, list, tuple, set,
// strings, numbers, True/False/None. Anything else (calls such as `AttrsDescriptor(...)`,
// attribute references, names) becomes its source text. Dict keys that are not strings (`0`,
// `(0,)`) become their source text too, since JSON keys are strings.
nlohmann::json literal_value(const SyntaxTree& tree, TSNode node);

}  // namespace mine::inductor
