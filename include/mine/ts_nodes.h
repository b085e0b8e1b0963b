#pragma once
// Small readers over TSNode, named after what they answer. Tree-sitter only, so that mine's own
// code and plugins built on the SDK (which must need nothing of mine but the ABI) share them.
#include <tree_sitter/api.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mine::ts {

inline std::string_view node_type(TSNode n) { return ts_node_type(n); }
inline bool is_type(TSNode n, std::string_view t) { return !ts_node_is_null(n) && node_type(n) == t; }
// The id of field `name` in `language`, looked up once per thread: ts_node_child_by_field_name
// compares the name with every field name of the grammar on each call (4% of a scan's
// instructions went to that strncmp).
inline TSFieldId field_id(const TSLanguage* language, std::string_view name) {
  thread_local std::vector<std::pair<const TSLanguage*, std::map<std::string, TSFieldId, std::less<>>>> ids;
  std::map<std::string, TSFieldId, std::less<>>* of_language = nullptr;
  for (auto& [lang, names] : ids)
    if (lang == language) of_language = &names;
  if (!of_language) of_language = &ids.emplace_back(language, std::map<std::string, TSFieldId, std::less<>>{}).second;
  auto found = of_language->find(name);
  if (found != of_language->end()) return found->second;
  TSFieldId id = ts_language_field_id_for_name(language, name.data(), static_cast<uint32_t>(name.size()));
  of_language->emplace(std::string(name), id);
  return id;
}
// Callers pass names as literals: the last answers are kept by the name's address, and a hit is
// checked against the text kept beside it (so a reused buffer holding another name is never taken
// for it). Saves the map lookup and the strlen of every call (3 million on a large repository).
inline TSNode field(TSNode n, const char* name) {
  struct Slot {
    const TSLanguage* language = nullptr;
    const char* address = nullptr;
    char text[24] = {};
    TSFieldId id = 0;
  };
  thread_local Slot slots[64];
  const TSLanguage* language = ts_tree_language(n.tree);
  Slot& slot = slots[(reinterpret_cast<uintptr_t>(name) >> 3) & 63];
  if (slot.address == name && slot.language == language && std::strcmp(slot.text, name) == 0)
    return ts_node_child_by_field_id(n, slot.id);
  std::string_view text(name);
  TSFieldId id = field_id(language, text);
  if (text.size() < sizeof slot.text) {
    slot.language = language;
    slot.address = name;
    std::memcpy(slot.text, name, text.size() + 1);
    slot.id = id;
  }
  return ts_node_child_by_field_id(n, id);
}
inline int first_line(TSNode n) { return static_cast<int>(ts_node_start_point(n).row) + 1; }
inline int last_line(TSNode n) { return static_cast<int>(ts_node_end_point(n).row) + 1; }

// The symbols of `language` whose type ts_node_type names "line_continuation" (a name can stand
// for several symbols), by symbol; built once per language and thread.
// A deque: tables stay where they are as languages are added (is_line_continuation keeps a
// pointer to the last one asked for).
inline const std::vector<bool>& line_continuation_symbols(const TSLanguage* language) {
  thread_local std::deque<std::pair<const TSLanguage*, std::vector<bool>>> tables;
  for (auto& [of, named] : tables)
    if (of == language) return named;
  std::vector<bool> named(ts_language_symbol_count(language), false);
  for (uint32_t sym = 0; sym < named.size(); ++sym) {
    const char* name = ts_language_symbol_name(language, static_cast<TSSymbol>(sym));
    named[sym] = name && std::strcmp(name, "line_continuation") == 0;
  }
  return tables.emplace_back(language, std::move(named)).second;
}

// A backslash line continuation: Python's grammar makes it a named node wherever it occurs (in an
// argument list too), yet it is layout, never part of what the code says. Asked of every child
// every walk visits: a symbol lookup instead of ts_node_type's name, its strlen and a compare.
// The table of the language last asked for is kept in plain thread-local pointers (no
// initialisation guard, no search of the tables): over a million children a large scan.
inline bool is_line_continuation(TSNode n) {
  if (n.id == nullptr) return false;  // ts_node_is_null
  thread_local const TSLanguage* last_language = nullptr;
  thread_local const std::vector<bool>* last_table = nullptr;
  const TSLanguage* language = ts_tree_language(n.tree);
  if (language != last_language) {
    last_table = &line_continuation_symbols(language);
    last_language = language;
  }
  TSSymbol sym = ts_node_symbol(n);
  return sym < last_table->size() && (*last_table)[sym];
}

// For each named child but line continuations: f(child).
template <typename F>
void for_each_named_child(TSNode n, F&& f) {
  uint32_t count = ts_node_named_child_count(n);
  if (count <= 8) {
    for (uint32_t i = 0; i < count; ++i) {
      TSNode child = ts_node_named_child(n, i);
      if (!is_line_continuation(child)) f(child);
    }
    return;
  }
  // ts_node_named_child(n, i) walks from the first child every time: a cursor keeps wide nodes
  // (a module's statements, long blocks and argument lists) linear. Same children, same order.
  // The cursor is released if f throws.
  struct Cursor {
    TSTreeCursor c;
    explicit Cursor(TSNode n) : c(ts_tree_cursor_new(n)) {}
    ~Cursor() { ts_tree_cursor_delete(&c); }
  } cursor(n);
  if (!ts_tree_cursor_goto_first_child(&cursor.c)) return;
  do {
    TSNode child = ts_tree_cursor_current_node(&cursor.c);
    if (ts_node_is_named(child) && !is_line_continuation(child)) f(child);
  } while (ts_tree_cursor_goto_next_sibling(&cursor.c));
}

// The decorator expressions of a `decorated_definition` (`triton.jit`, `triton.autotune(...)`),
// in source order; none for anything else.
inline std::vector<TSNode> decorators_of(TSNode node) {
  std::vector<TSNode> out;
  if (!is_type(node, "decorated_definition")) return out;
  for_each_named_child(node, [&](TSNode d) {
    if (is_type(d, "decorator")) out.push_back(ts_node_named_child(d, 0));
  });
  return out;
}

// The value of keyword argument `name` in a call's arguments, or a null node. `text_of(node)`
// returns the node's source text (the caller knows where the text lives).
template <typename TextOf>
TSNode keyword_value(TSNode call, std::string_view name, TextOf&& text_of) {
  TSNode found{};
  if (!is_type(call, "call")) return found;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (ts_node_is_null(found) && is_type(a, "keyword_argument") && text_of(field(a, "name")) == name)
      found = field(a, "value");
  });
  return found;
}

// True when `n` lies in the body of a `with` block, below `scope` (a null scope: up to the
// module), one of whose items expects an exception: `pytest.raises(...)` (also `as e`),
// `self.assertRaises(...)`, `assertRaisesRegex(...)`. Code there is run to see it fail.
template <typename TextOf>
bool inside_error_expectation(TSNode n, TSNode scope, TextOf&& text_of) {
  for (TSNode child = n, up = ts_node_parent(n); !ts_node_is_null(up); child = up, up = ts_node_parent(up)) {
    if (!ts_node_is_null(scope) && ts_node_eq(up, scope)) return false;
    if (!is_type(up, "with_statement") || !ts_node_eq(child, field(up, "body"))) continue;
    bool expects = false;
    for_each_named_child(up, [&](TSNode clause) {
      if (!is_type(clause, "with_clause")) return;
      for_each_named_child(clause, [&](TSNode item) {
        TSNode value = field(item, "value");
        if (is_type(value, "as_pattern")) value = ts_node_named_child(value, 0);
        if (!is_type(value, "call")) return;
        auto held = text_of(field(value, "function"));  // a view or a string
        std::string_view fn = held;
        size_t dot = fn.rfind('.');
        std::string_view last = dot == std::string_view::npos ? fn : fn.substr(dot + 1);
        expects = expects || last == "raises" || last.substr(0, 12) == "assertRaises";
      });
    });
    if (expects) return true;
  }
  return false;
}

}  // namespace mine::ts
