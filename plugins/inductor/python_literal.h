#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/python/syntax_tree.h"

namespace mine::inductor {

// The text a syntax tree's nodes point into: a SyntaxTree's own, or a scanned file's as the
// plugin host shows it.
struct SourceText {
  std::string_view text;
  SourceText(std::string_view t) : text(t) {}
  SourceText(const SyntaxTree& tree) : text(tree.text()) {}
  std::string_view text_of(TSNode n) const {
    return text.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
  }
};

// The value of a Python string literal node (`string` or `concatenated_string`), escapes decoded
// unless the literal is raw. nullopt for f-strings, whose value is only known at run time.
std::optional<std::string> string_value(const SourceText& tree, TSNode node);

// Reads a literal expression into JSON without evaluating anything: dict, list, tuple, set,
// strings, numbers, True/False/None. Anything else (calls such as `AttrsDescriptor(...)`,
// attribute references, names) becomes its source text. Dict keys that are not strings (`0`,
// `(0,)`) become their source text too, since JSON keys are strings.
nlohmann::json literal_value(const SourceText& tree, TSNode node);

}  // namespace mine::inductor
