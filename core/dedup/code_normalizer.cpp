#include "core/dedup/code_normalizer.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/sha256.h"

extern "C" const TSLanguage* tree_sitter_python();

namespace mine::dedup {
namespace {

// ts_node_type(n) as a string_view, from a table built once: the hot loops compare types of every
// node, and ts_node_type would make each comparison a symbol-name lookup plus a strlen.
std::string_view type_of(TSNode n) {
  static const std::vector<std::string_view> names = [] {
    const TSLanguage* lang = tree_sitter_python();
    std::vector<std::string_view> out(ts_language_symbol_count(lang));
    for (TSSymbol i = 0; i < out.size(); ++i) {
      const char* name = ts_language_symbol_name(lang, i);
      out[i] = name ? name : "";
    }
    return out;
  }();
  TSSymbol sym = ts_node_symbol(n);
  return sym < names.size() ? names[sym] : std::string_view(ts_node_type(n));
}

std::string_view text_of(std::string_view src, TSNode n) {
  uint32_t b = ts_node_start_byte(n), e = ts_node_end_byte(n);
  if (b > src.size() || e > src.size() || e < b) return {};
  return src.substr(b, e - b);
}

bool is_trivia(std::string_view t) { return t == "comment" || t == "line_continuation"; }

TSNode first_statement(TSNode body) {
  uint32_t n = ts_node_named_child_count(body);
  for (uint32_t i = 0; i < n; ++i) {
    TSNode c = ts_node_named_child(body, i);
    if (!is_trivia(type_of(c))) return c;
  }
  return TSNode{};
}

// A docstring is a lone string expression that opens a module, function or class body; Python
// stores it in __doc__ and never runs it, and people edit it freely when copying code.
bool is_docstring(TSNode stmt, TSNode parent) {
  if (type_of(stmt) != "expression_statement" || ts_node_named_child_count(stmt) != 1) return false;
  std::string_view inner = type_of(ts_node_named_child(stmt, 0));
  if (inner != "string" && inner != "concatenated_string") return false;
  std::string_view pt = type_of(parent);
  if (pt == "block") {
    std::string_view owner = type_of(ts_node_parent(parent));
    if (owner != "function_definition" && owner != "class_definition") return false;
  } else if (pt != "module") {
    return false;
  }
  TSNode first = first_statement(parent);
  return !ts_node_is_null(first) && ts_node_eq(first, stmt);
}

}  // namespace

std::string normalized_string(std::string_view raw) {
  size_t p = 0;
  while (p < raw.size() && raw[p] != '\'' && raw[p] != '"') ++p;
  if (p >= raw.size()) return std::string(raw);
  char q = raw[p];
  size_t qlen = (raw.size() >= p + 6 && raw[p + 1] == q && raw[p + 2] == q) ? 3 : 1;
  if (raw.size() < p + 2 * qlen) return std::string(raw);
  std::string out;
  for (size_t i = 0; i < p; ++i) out += static_cast<char>(std::tolower(static_cast<unsigned char>(raw[i])));
  out += '"';
  std::string_view body = raw.substr(p + qlen, raw.size() - p - 2 * qlen);
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] == '\\' && i + 1 < body.size()) {
      if (body[i + 1] != '\'' && body[i + 1] != '"') out += '\\';
      out += body[++i];
    } else {
      out += body[i];
    }
  }
  out += '"';
  return out;
}

namespace {

void collect_target_names(TSNode n, std::string_view src, std::unordered_set<std::string_view>& out) {
  std::string_view t = type_of(n);
  if (t == "identifier") {
    out.emplace(text_of(src, n));
    return;
  }
  // attribute and subscript targets bind nothing new; everything else here destructures.
  if (t == "pattern_list" || t == "tuple_pattern" || t == "list_pattern" || t == "tuple" || t == "list" ||
      t == "parenthesized_expression" || t == "list_splat_pattern" || t == "list_splat" ||
      t == "as_pattern_target" || t == "expression_list") {
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; ++i) collect_target_names(ts_node_named_child(n, i), src, out);
  }
}

void collect_parameter_names(TSNode params, std::string_view src, std::unordered_set<std::string_view>& out) {
  uint32_t k = ts_node_named_child_count(params);
  for (uint32_t i = 0; i < k; ++i) {
    TSNode p = ts_node_named_child(params, i);
    std::string_view t = type_of(p);
    if (t == "identifier") {
      out.emplace(text_of(src, p));
    } else if (t == "default_parameter" || t == "typed_default_parameter") {
      TSNode name = ts_node_child_by_field_name(p, "name", 4);
      if (!ts_node_is_null(name)) collect_target_names(name, src, out);
    } else if (t == "typed_parameter" || t == "list_splat_pattern" || t == "dictionary_splat_pattern") {
      if (ts_node_named_child_count(p) > 0) {
        TSNode first = ts_node_named_child(p, 0);
        if (type_of(first) == "identifier") {
          out.emplace(text_of(src, first));
        } else {
          collect_parameter_names(p, src, out);  // typed_parameter wrapping *args / **kwargs
        }
      }
    }
  }
}

// Names a function or lambda binds locally: its parameters plus every assignment target, loop
// and comprehension variable, `as` alias, walrus target and nested def/class name in its body,
// minus those declared global or nonlocal. Nested function, lambda and class bodies are their
// own business and are not entered.
std::unordered_set<std::string_view> local_names(TSNode fn, std::string_view src) {
  std::unordered_set<std::string_view> names, declared_outer;
  TSNode params = ts_node_child_by_field_name(fn, "parameters", 10);
  if (!ts_node_is_null(params)) collect_parameter_names(params, src, names);
  TSNode body = ts_node_child_by_field_name(fn, "body", 4);
  if (ts_node_is_null(body)) return names;
  // Cursor walk: ts_node_named_child(n, i) is linear in i, so indexing children would be
  // quadratic in long bodies.
  TSTreeCursor c = ts_tree_cursor_new(body);
  while (true) {
    TSNode n = ts_tree_cursor_current_node(&c);
    std::string_view t = type_of(n);
    bool descend = true;
    auto field_target = [&](const char* f) {
      TSNode x = ts_node_child_by_field_name(n, f, static_cast<uint32_t>(std::char_traits<char>::length(f)));
      if (!ts_node_is_null(x)) collect_target_names(x, src, names);
    };
    if (t == "function_definition" || t == "class_definition") {
      field_target("name");
      descend = false;
    } else if (t == "lambda") {
      descend = false;
    } else if (t == "assignment" || t == "augmented_assignment" || t == "for_statement" || t == "for_in_clause") {
      field_target("left");
    } else if (t == "named_expression") {
      field_target("name");
    } else if (t == "as_pattern") {
      field_target("alias");
    } else if (t == "global_statement" || t == "nonlocal_statement") {
      uint32_t k = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < k; ++i) declared_outer.emplace(text_of(src, ts_node_named_child(n, i)));
    }
    if (descend && ts_tree_cursor_goto_first_child(&c)) continue;
    bool done = false;
    while (!ts_tree_cursor_goto_next_sibling(&c)) {
      if (!ts_tree_cursor_goto_parent(&c)) {
        done = true;
        break;
      }
    }
    if (done) break;
  }
  ts_tree_cursor_delete(&c);
  for (const auto& g : declared_outer) names.erase(g);
  return names;
}

struct Scope {
  TSNode owner;
  std::unordered_set<std::string_view> names;
  // Until the walk passes the function's own name, references resolve in the enclosing scope:
  // `def f(...)` binds f outside f.
  bool active = false;
  std::unordered_map<std::string_view, size_t> numbers;
};

struct Frame {
  TSNode node;
  bool skipped;
  bool pushed_scope;
};

class Walker {
 public:
  Walker(std::string_view src, NormalizedCode& out) : src_(src), out_(out) {}

  void run(TSNode root) {
    TSTreeCursor c = ts_tree_cursor_new(root);
    bool descend = enter(c);
    while (true) {
      if (descend && ts_tree_cursor_goto_first_child(&c)) {
        descend = enter(c);
        continue;
      }
      leave();
      bool done = false;
      while (!ts_tree_cursor_goto_next_sibling(&c)) {
        if (!ts_tree_cursor_goto_parent(&c)) {
          done = true;
          break;
        }
        leave();
      }
      if (done) break;
      descend = enter(c);
    }
    ts_tree_cursor_delete(&c);
  }

 private:
  void emit(std::string exact, std::string alpha) {
    out_.exact.push_back(std::move(exact));
    out_.alpha.push_back(std::move(alpha));
  }
  void emit(const std::string& both) { emit(both, both); }

  TSNode parent() const { return frames_.empty() ? TSNode{} : frames_.back().node; }

  bool enter(const TSTreeCursor& c) {
    TSNode n = ts_tree_cursor_current_node(&c);
    std::string_view t = type_of(n);
    TSNode par = parent();
    bool skip = false;
    bool pushed = false;
    // Field names cost a lookup in the language's field map: fetched only where they matter.
    const char* field = nullptr;
    bool leaf_node = ts_node_child_count(n) == 0;
    bool under_scope_owner = !scopes_.empty() && !scopes_.back().active && !ts_node_is_null(par) &&
                             ts_node_eq(par, scopes_.back().owner);
    if (under_scope_owner || (leaf_node && t == "identifier")) field = ts_tree_cursor_current_field_name(&c);

    if (under_scope_owner && field && std::string_view(field) != "name") scopes_.back().active = true;

    if (is_trivia(t)) {
      skip = true;
    } else if (!ts_node_is_null(par) && is_docstring(n, par)) {
      skip = true;
    } else if (t == "string") {
      std::string s = normalized_string(text_of(src_, n));
      emit(s);
      skip = true;
    } else if (t == "block") {
      emit("<indent>");
    } else if ((t == "function_definition" || t == "lambda") && ts_node_is_named(n)) {
      // (The anonymous `lambda` keyword inside a lambda node has the same type: a token.)
      scopes_.push_back(Scope{n, local_names(n, src_), false, {}});
      pushed = true;
    } else if (leaf_node) {
      leaf(n, t, field, par);
    }
    if (t == "ERROR" || ts_node_is_missing(n)) out_.had_syntax_errors = true;
    frames_.push_back(Frame{n, skip, pushed});
    return !skip;
  }

  void leave() {
    Frame f = frames_.back();
    frames_.pop_back();
    if (f.pushed_scope) scopes_.pop_back();
    if (f.skipped) return;
    std::string_view t = type_of(f.node);
    if (t == "block") emit("<dedent>");
    TSNode par = parent();
    if (!ts_node_is_null(par) && ts_node_is_named(f.node)) {
      std::string_view pt = type_of(par);
      if (pt == "module" || pt == "block") emit("<nl>");
    }
  }

  void leaf(TSNode n, std::string_view t, const char* field, TSNode par) {
    std::string_view text = text_of(src_, n);
    if (text.empty() || t == ";") return;
    if (t == ")" || t == "]" || t == "}") {
      // A trailing comma before a closer is layout (black adds and removes it), except in `(x,)`.
      if (!out_.exact.empty() && out_.exact.back() == ",") {
        out_.exact.pop_back();
        out_.alpha.pop_back();
      }
      emit(std::string(text));
      return;
    }
    if (t == ",") {
      std::string_view pt = ts_node_is_null(par) ? std::string_view() : type_of(par);
      if ((pt == "tuple" || pt == "tuple_pattern") && ts_node_named_child_count(par) == 1) {
        emit("<tuple1>");
      } else {
        emit(",");
      }
      return;
    }
    if (t == "integer" || t == "float") {
      std::string s(text);
      for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      emit(s);
      return;
    }
    if (t == "identifier") {
      emit(std::string(text), alpha_name(text, field, par));
      return;
    }
    emit(std::string(text));
  }

  std::string alpha_name(std::string_view name, const char* field, TSNode par) {
    std::string_view pt = ts_node_is_null(par) ? std::string_view() : type_of(par);
    std::string_view f = field ? std::string_view(field) : std::string_view();
    if (pt == "attribute" && f == "attribute") return std::string(name);
    if (pt == "keyword_argument" && f == "name") return std::string(name);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (!it->active) continue;
      auto found = it->names.find(name);
      if (found == it->names.end()) continue;
      // Numbered per scope (a name reused in a sibling function is another variable) from one
      // counter, so that names of nested scopes never share a number.
      auto [pos, fresh] = it->numbers.try_emplace(*found, next_number_);
      if (fresh) ++next_number_;
      return "v" + std::to_string(pos->second);
    }
    return std::string(name);
  }

  std::string_view src_;
  NormalizedCode& out_;
  std::vector<Frame> frames_;
  std::vector<Scope> scopes_;
  size_t next_number_ = 0;
};

}  // namespace

std::string token_stream_hash(const std::vector<std::string>& tokens) {
  std::string joined;
  size_t total = 0;
  for (const auto& t : tokens) total += t.size() + 1;
  joined.reserve(total);
  for (const auto& t : tokens) {
    joined += t;
    joined += '\x1f';
  }
  return sha256_hex(joined);
}

CodeNormalizer::CodeNormalizer() : parser_(ts_parser_new()) { ts_parser_set_language(parser_, tree_sitter_python()); }

CodeNormalizer::~CodeNormalizer() { ts_parser_delete(parser_); }

NormalizedCode CodeNormalizer::normalize(std::string_view python_source) {
  NormalizedCode out;
  TSTree* tree =
      ts_parser_parse_string(parser_, nullptr, python_source.data(), static_cast<uint32_t>(python_source.size()));
  if (!tree) return out;
  Walker(python_source, out).run(ts_tree_root_node(tree));
  ts_tree_delete(tree);
  return out;
}

}  // namespace mine::dedup
