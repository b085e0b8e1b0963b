#pragma once
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "core/python/syntax_tree.h"

namespace mine::python_nodes {

// The node types the scope walkers (free names, global references) tell apart, looked up once
// per grammar symbol: comparing type strings for every node of every statement was most of a
// scan's analysis time.
enum class Kind : uint8_t {
  Other, Identifier, Attribute, KeywordArgument, DecoratedDefinition, Decorator, FunctionDefinition, Lambda,
  ClassDefinition, Comprehension, ForInClause, Assignment, AugmentedAssignment, ForStatement, AsPattern,
  AsPatternTarget, NamedExpression, Import, FutureImport, Global, Comment, DefaultParameter, TypedParameter,
  Splat, Subscript, StringContent, String,
};

struct Grammar {
  std::vector<Kind> kinds;  // by symbol
  TSFieldId name, definition, parameters, body, superclasses, left, right, type, value, alternative, return_type,
      object, attribute, alias, module_name;
  Grammar() {
    const TSLanguage* lang = tree_sitter_python();
    const std::pair<const char*, Kind> named[] = {
        {"identifier", Kind::Identifier}, {"attribute", Kind::Attribute}, {"keyword_argument", Kind::KeywordArgument},
        {"decorated_definition", Kind::DecoratedDefinition}, {"decorator", Kind::Decorator},
        {"function_definition", Kind::FunctionDefinition}, {"lambda", Kind::Lambda},
        {"class_definition", Kind::ClassDefinition}, {"list_comprehension", Kind::Comprehension},
        {"set_comprehension", Kind::Comprehension}, {"dictionary_comprehension", Kind::Comprehension},
        {"generator_expression", Kind::Comprehension}, {"for_in_clause", Kind::ForInClause},
        {"assignment", Kind::Assignment}, {"augmented_assignment", Kind::AugmentedAssignment},
        {"for_statement", Kind::ForStatement}, {"as_pattern", Kind::AsPattern},
        {"as_pattern_target", Kind::AsPatternTarget}, {"named_expression", Kind::NamedExpression},
        {"import_statement", Kind::Import}, {"import_from_statement", Kind::Import},
        {"future_import_statement", Kind::FutureImport}, {"global_statement", Kind::Global},
        {"nonlocal_statement", Kind::Global}, {"comment", Kind::Comment},
        {"default_parameter", Kind::DefaultParameter}, {"typed_default_parameter", Kind::DefaultParameter},
        {"typed_parameter", Kind::TypedParameter}, {"list_splat_pattern", Kind::Splat},
        {"dictionary_splat_pattern", Kind::Splat}, {"subscript", Kind::Subscript},
        {"string_content", Kind::StringContent}, {"string", Kind::String}};
    uint32_t count = ts_language_symbol_count(lang);
    kinds.assign(count, Kind::Other);
    for (uint32_t sym = 0; sym < count; ++sym) {
      std::string_view type = ts_language_symbol_name(lang, static_cast<TSSymbol>(sym));
      for (const auto& [n, k] : named)
        if (type == n) kinds[sym] = k;
    }
    auto id = [&](const char* f) {
      return ts_language_field_id_for_name(lang, f, static_cast<uint32_t>(std::char_traits<char>::length(f)));
    };
    name = id("name"), definition = id("definition"), parameters = id("parameters"), body = id("body");
    superclasses = id("superclasses"), left = id("left"), right = id("right"), type = id("type");
    value = id("value"), alternative = id("alternative"), return_type = id("return_type"), object = id("object");
    attribute = id("attribute"), alias = id("alias"), module_name = id("module_name");
  }
  // The type ts_node_type names, as a Kind (Other for a null node).
  Kind kind(TSNode n) const {
    if (ts_node_is_null(n)) return Kind::Other;
    TSSymbol sym = ts_node_symbol(n);
    return sym < kinds.size() ? kinds[sym] : Kind::Other;
  }
};

inline const Grammar& grammar() {
  static const Grammar g;
  return g;
}

inline TSNode child(TSNode n, TSFieldId f) { return ts_node_child_by_field_id(n, f); }

}  // namespace mine::python_nodes
