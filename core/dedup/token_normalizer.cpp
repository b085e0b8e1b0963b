#include "core/dedup/token_normalizer.h"

#include "core/sha256.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mine::dedup {
namespace {

thread_local int last_decline_line = 0;

// Every refusal goes through here, so that bench/normalizer_agreement can say which rule declines.
bool declined(int line) {
  last_decline_line = line;
  return false;
}

enum class Kind : uint8_t { Name, Number, String, Op, Newline, Indent, Dedent, End };

struct Tok {
  Kind kind;
  std::string_view text;
};

inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
inline bool ident_start(unsigned char c) { return is_alpha(c) || c == '_'; }
inline bool ident_char(unsigned char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

// Python's string prefixes (r, b, u, f and the two-letter rb/br/rf/fr), any case.
bool valid_prefix(std::string_view p) {
  if (p.size() == 1) {
    char c = static_cast<char>(p[0] | 0x20);
    return c == 'r' || c == 'b' || c == 'u' || c == 'f';
  }
  if (p.size() != 2) return declined(__LINE__);
  char a = static_cast<char>(p[0] | 0x20), b = static_cast<char>(p[1] | 0x20);
  return (a == 'r' && (b == 'b' || b == 'f')) || (b == 'r' && (a == 'b' || a == 'f'));
}

bool hard_keyword(std::string_view w) {
  switch (w.size()) {
    case 2: return w == "as" || w == "if" || w == "in" || w == "is" || w == "or";
    case 3: return w == "and" || w == "def" || w == "del" || w == "for" || w == "not" || w == "try";
    case 4: return w == "None" || w == "True" || w == "elif" || w == "else" || w == "from" || w == "pass" || w == "with";
    case 5:
      return w == "False" || w == "async" || w == "await" || w == "break" || w == "class" || w == "raise" ||
             w == "while" || w == "yield";
    case 6: return w == "assert" || w == "except" || w == "global" || w == "import" || w == "lambda" || w == "return";
    case 7: return w == "finally";
    case 8: return w == "continue" || w == "nonlocal";
    default: return declined(__LINE__);
  }
}

// Python's tokenizer, with its INDENT/DEDENT/NEWLINE rules. Declines (returns false) on what
// tree-sitter might read otherwise: tabs or form feeds in indentation, non-ASCII outside strings
// and comments, unbalanced brackets, unterminated strings, odd numbers.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  bool run(std::vector<Tok>& toks, std::vector<uint8_t>& comment_inside) {
    toks_ = &toks;
    comment_inside_ = &comment_inside;
    const size_t n = s_.size();
    size_t i = 0;
    bool line_start = true;
    std::vector<size_t> indents{0};
    while (true) {
      if (line_start) {
        size_t j = i, col = 0;
        while (j < n && s_[j] == ' ') ++j, ++col;
        if (j >= n) break;
        char c = s_[j];
        if (c == '\t' || c == '\f' || c == '\\') return declined(__LINE__);
        if (c == '\n') {
          i = j + 1;
          continue;
        }
        if (c == '\r') {
          if (j + 1 < n && s_[j + 1] == '\n') {
            i = j + 2;
            continue;
          }
          return declined(__LINE__);
        }
        if (c == '#') {
          while (j < n && s_[j] != '\n') ++j;
          i = j;
          continue;
        }
        if (col > indents.back()) {
          indents.push_back(col);
          push(Kind::Indent, {});
        } else {
          while (col < indents.back()) {
            indents.pop_back();
            push(Kind::Dedent, {});
          }
          if (col != indents.back()) return declined(__LINE__);
        }
        i = j;
        line_start = false;
      }
      if (i >= n) break;
      unsigned char c = static_cast<unsigned char>(s_[i]);
      if (c == '\n') {
        if (open_.empty()) {
          push(Kind::Newline, {});
          line_start = true;
        }
        ++i;
      } else if (c == ' ' || c == '\t' || c == '\f') {
        ++i;
      } else if (c == '\r') {
        if (i + 1 >= n || s_[i + 1] != '\n') return declined(__LINE__);
        ++i;
      } else if (c == '#') {
        for (size_t o : open_) (*comment_inside_)[o] = 1;
        while (i < n && s_[i] != '\n') ++i;
      } else if (c == '\\') {
        if (i + 1 < n && s_[i + 1] == '\n') {
          i += 2;
        } else if (i + 2 < n && s_[i + 1] == '\r' && s_[i + 2] == '\n') {
          i += 3;
        } else {
          return declined(__LINE__);
        }
      } else if (c == '"' || c == '\'') {
        if (!string_at(i, i, i)) return false;
      } else if (ident_start(c)) {
        size_t j = i + 1;
        while (j < n && ident_char(static_cast<unsigned char>(s_[j]))) ++j;
        if (j < n && static_cast<unsigned char>(s_[j]) >= 0x80) return declined(__LINE__);
        if (j < n && (s_[j] == '"' || s_[j] == '\'') && j - i <= 2) {
          if (!valid_prefix(s_.substr(i, j - i))) return declined(__LINE__);
          if (!string_at(i, j, i)) return false;
        } else {
          push(Kind::Name, s_.substr(i, j - i));
          i = j;
        }
      } else if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(static_cast<unsigned char>(s_[i + 1])))) {
        if (!number_at(i)) return false;
      } else {
        if (!operator_at(i)) return false;
      }
    }
    if (!open_.empty()) return declined(__LINE__);
    if (!line_start) push(Kind::Newline, {});
    for (size_t k = 1; k < indents.size(); ++k) push(Kind::Dedent, {});
    push(Kind::End, {});
    return true;
  }

 private:
  void push(Kind k, std::string_view t) {
    toks_->push_back(Tok{k, t});
    comment_inside_->push_back(0);
  }

  // The string whose prefix starts at `from` and quote at `q`; `i` is left after it.
  bool string_at(size_t from, size_t q, size_t& i) {
    const size_t n = s_.size();
    char quote = s_[q];
    bool triple = q + 2 < n && s_[q + 1] == quote && s_[q + 2] == quote;
    size_t open = triple ? 3 : 1;
    bool f = false;
    for (size_t k = from; k < q; ++k) f |= (s_[k] | 0x20) == 'f';
    int braces = 0;
    size_t j = q + open;
    while (j < n) {
      char ch = s_[j];
      if (ch == '\\') {
        j += 2;
        continue;
      }
      if (f && ch == '{') {
        if (braces == 0 && j + 1 < n && s_[j + 1] == '{') {
          j += 2;
          continue;
        }
        ++braces;
      } else if (f && ch == '}' && braces > 0) {
        --braces;
      }
      if (!triple && ch == '\n') return declined(__LINE__);
      if (ch == quote && (!triple || (j + 2 < n && s_[j + 1] == quote && s_[j + 2] == quote))) {
        if (braces > 0) return declined(__LINE__);  // a Python 3.12 f-string with nested quotes
        push(Kind::String, s_.substr(from, j + open - from));
        i = j + open;
        return true;
      }
      ++j;
    }
    return declined(__LINE__);
  }

  bool number_at(size_t& i) {
    const size_t n = s_.size();
    size_t j = i;
    bool prefixed = s_[i] == '0' && i + 1 < n && ((s_[i + 1] | 0x20) == 'x' || (s_[i + 1] | 0x20) == 'o' ||
                                                    (s_[i + 1] | 0x20) == 'b');
    while (j < n) {
      unsigned char d = static_cast<unsigned char>(s_[j]);
      if (is_alpha(d) || is_digit(d) || d == '_' || d == '.') {
        ++j;
      } else if ((d == '+' || d == '-') && (s_[j - 1] | 0x20) == 'e' && !prefixed) {
        ++j;
      } else {
        break;
      }
    }
    if (j < n && static_cast<unsigned char>(s_[j]) >= 0x80) return declined(__LINE__);
    std::string_view t = s_.substr(i, j - i);
    int dots = 0;
    for (size_t k = prefixed ? 2 : 0; k < t.size(); ++k) {
      char d = static_cast<char>(t[k] | 0x20);
      if (prefixed) {
        if (!(is_digit(static_cast<unsigned char>(t[k])) || (d >= 'a' && d <= 'f') || t[k] == '_' || d == 'l'))
          return declined(__LINE__);
      } else if (t[k] == '.') {
        ++dots;
      } else if (!(is_digit(static_cast<unsigned char>(t[k])) || t[k] == '_' || d == 'e' || d == 'j' || d == 'l' ||
                   t[k] == '+' || t[k] == '-')) {
        return declined(__LINE__);
      }
    }
    if (dots > 1 || (prefixed && t.size() < 3)) return declined(__LINE__);
    push(Kind::Number, t);
    i = j;
    return true;
  }

  bool operator_at(size_t& i) {
    const size_t n = s_.size();
    char a = s_[i], b = i + 1 < n ? s_[i + 1] : '\0', c = i + 2 < n ? s_[i + 2] : '\0';
    size_t len = 0;
    bool doubled = a == b && (a == '*' || a == '/' || a == '<' || a == '>');
    if ((doubled && c == '=') || (a == '.' && b == '.' && c == '.')) {
      len = 3;
    } else if (doubled || (a == '-' && b == '>') || (a == ':' && b == '=')) {
      len = 2;
    } else if (b == '=' && (a == '+' || a == '-' || a == '*' || a == '/' || a == '%' || a == '&' || a == '|' ||
                            a == '^' || a == '@' || a == '<' || a == '>' || a == '=' || a == '!')) {
      len = 2;
    } else {
      switch (a) {
        case '(': case '[': case '{':
          open_.push_back(toks_->size());
          len = 1;
          break;
        case ')': case ']': case '}': {
          if (open_.empty()) return declined(__LINE__);
          char o = (*toks_)[open_.back()].text[0];
          if ((a == ')' && o != '(') || (a == ']' && o != '[') || (a == '}' && o != '{')) return declined(__LINE__);
          open_.pop_back();
          len = 1;
          break;
        }
        case '+': case '-': case '*': case '/': case '%': case '@': case '&': case '|': case '^': case '~':
        case '<': case '>': case ',': case ':': case '.': case ';': case '=':
          len = 1;
          break;
        default:
          return declined(__LINE__);  // `!`, `$`, `?`, backticks, non-ASCII: not Python tree-sitter reads plainly
      }
    }
    if (a == '<' && b == '>') return declined(__LINE__);
    push(Kind::Op, s_.substr(i, len));
    i += len;
    return true;
  }

  std::string_view s_;
  std::vector<Tok>* toks_ = nullptr;
  std::vector<uint8_t>* comment_inside_ = nullptr;
  std::vector<size_t> open_;
};

// One function or lambda scope: the names it binds, numbered as the alpha form meets them.
struct Scope {
  int parent = -1;
  std::vector<std::string_view> locals;
  std::vector<std::string_view> declared_outer;  // `global` / `nonlocal` names: never local
  std::vector<std::pair<std::string_view, size_t>> numbers;

  bool binds(std::string_view n) const {
    for (auto l : locals)
      if (l == n) return true;
    return declined(__LINE__);
  }
};

enum : int32_t { kIndent = -1, kDedent = -2, kNl = -3 };
enum : uint8_t { kExempt = 1, kTuple1 = 2 };
enum class Owner { Module, Def, Class, Other };

// Finds statements, blocks and scopes in the token stream and records, in source order, the
// tokens and layout markers the normal forms consist of (`events`), the scope each name is looked
// up in, and the names no scope may rename (attributes, keyword arguments). Mirrors the
// tree-sitter walk of code_normalizer.cpp: each rule below names the node it stands for.
class Reader {
 public:
  Reader(const std::vector<Tok>& t, const std::vector<uint8_t>& comment_inside)
      : t_(t), comment_inside_(comment_inside), scope_of_(t.size(), -1), flags_(t.size(), 0) {}

  bool run() {
    if (!block_body(Owner::Module, -1, -1, false) || t_[pos_].kind != Kind::End) return false;
    for (auto& s : scopes) {
      for (auto name : s.declared_outer) {
        for (size_t i = 0; i < s.locals.size(); ++i) {
          if (s.locals[i] == name) {
            s.locals.erase(s.locals.begin() + static_cast<long>(i));
            break;
          }
        }
      }
    }
    return true;
  }

  std::vector<int32_t> events;
  std::vector<Scope> scopes;
  const std::vector<int32_t>& scope_of() const { return scope_of_; }
  const std::vector<uint8_t>& flags() const { return flags_; }

 private:
  bool is_op(size_t i, std::string_view o) const { return t_[i].kind == Kind::Op && t_[i].text == o; }
  bool is_name(size_t i, std::string_view w) const { return t_[i].kind == Kind::Name && t_[i].text == w; }
  bool opens(size_t i) const {
    return t_[i].kind == Kind::Op && t_[i].text.size() == 1 &&
           (t_[i].text[0] == '(' || t_[i].text[0] == '[' || t_[i].text[0] == '{');
  }
  bool closes(size_t i) const {
    return t_[i].kind == Kind::Op && t_[i].text.size() == 1 &&
           (t_[i].text[0] == ')' || t_[i].text[0] == ']' || t_[i].text[0] == '}');
  }
  bool operand(size_t i) const {
    const Tok& t = t_[i];
    return t.kind == Kind::Number || t.kind == Kind::String || (t.kind == Kind::Name && !hard_keyword(t.text));
  }
  size_t line_end(size_t i) const {
    while (t_[i].kind != Kind::Newline && t_[i].kind != Kind::End) ++i;
    return i;
  }
  size_t matching(size_t open) const {
    int depth = 0;
    for (size_t i = open;; ++i) {
      if (opens(i)) ++depth;
      if (closes(i) && --depth == 0) return i;
    }
  }
  void bind(int collector, std::string_view name) {
    if (collector < 0) return;
    Scope& s = scopes[static_cast<size_t>(collector)];
    if (!s.binds(name)) s.locals.push_back(name);
  }
  int new_scope(int parent) {
    Scope s;
    s.parent = parent;
    scopes.push_back(std::move(s));
    return static_cast<int>(scopes.size()) - 1;
  }
  void emit_range(size_t a, size_t b) {
    for (size_t i = a; i < b; ++i)
      if (!is_op(i, ";")) events.push_back(static_cast<int32_t>(i));
  }

  // A block's statements (the module's, or an indented block's up to its DEDENT).
  bool block_body(Owner owner, int scope, int collector, bool until_dedent) {
    bool first = true;
    while (true) {
      Kind k = t_[pos_].kind;
      if (k == Kind::Dedent && until_dedent) {
        ++pos_;
        return true;
      }
      if (k == Kind::End) return !until_dedent;
      if (k != Kind::Name && k != Kind::Op && k != Kind::String && k != Kind::Number) return declined(__LINE__);
      if (!statement(first && owner != Owner::Other, scope, collector)) return false;
      first = false;
    }
  }

  bool statement(bool docstring_allowed, int scope, int collector) {
    size_t a = pos_;
    if (is_op(a, "@")) {  // decorated_definition: decorators, then one def or class, one <nl>
      while (is_op(pos_, "@")) {
        size_t e = line_end(pos_);
        if (t_[e].kind != Kind::Newline) return declined(__LINE__);
        if (!walk(pos_, e, scope, collector, false)) return false;
        emit_range(pos_, e);
        pos_ = e + 1;
      }
      bool async_def = is_name(pos_, "async") && is_name(pos_ + 1, "def");
      if (async_def || is_name(pos_, "def")) return function_definition(scope, collector);
      if (is_name(pos_, "class")) return class_definition(scope, collector);
      return declined(__LINE__);
    }
    if (t_[a].kind == Kind::Name) {
      std::string_view w = t_[a].text;
      if (w == "async") {
        if (is_name(a + 1, "def")) return function_definition(scope, collector);
        if (is_name(a + 1, "for") || is_name(a + 1, "with")) return compound(scope, collector);
      }
      if (w == "def") return function_definition(scope, collector);
      if (w == "class") return class_definition(scope, collector);
      if (w == "if" || w == "while" || w == "for" || w == "try" || w == "with") return compound(scope, collector);
      if (w == "elif" || w == "else" || w == "except" || w == "finally") return declined(__LINE__);
      size_t e = line_end(a);
      if ((w == "match" || w == "case") && e > a + 1 && is_op(e - 1, ":")) return declined(__LINE__);  // match_statement
      if (w == "type" && t_[a + 1].kind == Kind::Name) return declined(__LINE__);                      // type_alias_statement
    }
    return simple_line(docstring_allowed, scope, collector);
  }

  // Simple statements up to the end of the logical line, `;`-separated, each followed by <nl>;
  // a lone string first in a module, def or class body is its docstring and leaves no trace.
  bool simple_line(bool docstring_allowed, int scope, int collector) {
    size_t e = line_end(pos_);
    if (t_[e].kind != Kind::Newline) return declined(__LINE__);
    size_t a = pos_;
    bool first = true;
    int depth = 0;
    for (size_t i = pos_; i <= e; ++i) {
      if (i < e && opens(i)) ++depth;
      if (i < e && closes(i)) --depth;
      if (i < e && !(depth == 0 && is_op(i, ";"))) continue;
      if (a == i) {
        if (i < e || first) return declined(__LINE__);  // `;;`, a leading `;`, or nothing
      } else {
        bool all_strings = true;
        for (size_t k = a; k < i; ++k) all_strings &= t_[k].kind == Kind::String;
        if (!(first && docstring_allowed && all_strings)) {
          if (!simple_statement(a, i, scope, collector)) return false;
          emit_range(a, i);
          events.push_back(kNl);
        }
      }
      first = false;
      a = i + 1;
    }
    pos_ = e + 1;
    return true;
  }

  bool simple_statement(size_t a, size_t b, int scope, int collector) {
    if (is_name(a, "import") || is_name(a, "from")) {
      for (size_t i = a; i < b; ++i)
        if (is_op(i, "...")) return declined(__LINE__);  // import_prefix dots
      return walk(a, b, scope, collector, true);
    }
    if (is_name(a, "global") || is_name(a, "nonlocal")) {
      for (size_t i = a + 1; i < b; ++i) {
        if (t_[i].kind == Kind::Name && collector >= 0)
          scopes[static_cast<size_t>(collector)].declared_outer.push_back(t_[i].text);
      }
    }
    bool keyword_statement = t_[a].kind == Kind::Name && hard_keyword(t_[a].text) && !is_name(a, "lambda") &&
                             !is_name(a, "not") && !is_name(a, "await") && !is_name(a, "None") &&
                             !is_name(a, "True") && !is_name(a, "False");
    if (!keyword_statement) {
      // assignment / augmented_assignment `left` fields: every target of `a = b = value`, the
      // target of `x += 1`, the annotated `x: int = 1`.
      size_t from = a;
      int depth = 0;
      for (size_t i = a; i < b; ++i) {
        if (is_name(i, "lambda") && depth == 0) {
          size_t colon = 0, end = 0;
          if (!lambda_extent(i, b, colon, end)) return false;
          i = end - 1;
          continue;
        }
        if (opens(i)) ++depth;
        if (closes(i)) --depth;
        if (depth != 0 || t_[i].kind != Kind::Op) continue;
        std::string_view o = t_[i].text;
        bool augmented = o.size() >= 2 && o.back() == '=' && o != "==" && o != "<=" && o != ">=" && o != "!=";
        if (o == ":" || augmented) {
          if (from == a) collect_targets(a, i, collector);
          break;
        }
        if (o == "=") {
          collect_targets(from, i, collector);
          from = i + 1;
        }
      }
    }
    return walk(a, b, scope, collector, false);
  }

  // if / while / for / try / with (and async ones) with their elif / else / except / finally
  // clauses, then one <nl> for the whole statement.
  bool compound(int scope, int collector) {
    if (!clause(scope, collector)) return false;
    while (is_name(pos_, "elif") || is_name(pos_, "else") || is_name(pos_, "except") || is_name(pos_, "finally")) {
      if (is_name(pos_, "except") && is_op(pos_ + 1, "*")) return declined(__LINE__);
      if (!clause(scope, collector)) return false;
    }
    events.push_back(kNl);
    return true;
  }

  bool clause(int scope, int collector) {
    size_t a = pos_;
    size_t colon = header_colon(a);
    if (colon == 0) return declined(__LINE__);
    size_t kw = is_name(a, "async") ? a + 1 : a;
    if (is_name(kw, "with") || is_name(kw, "except")) {
      // as_pattern: `with open(f) as fh:` and `except E as e:` bind their alias.
      int depth = 0;
      bool wrapped = is_op(kw + 1, "(") && matching(kw + 1) == colon - 1;
      int item_depth = wrapped ? 1 : 0;
      for (size_t i = kw + 1; i < colon; ++i) {
        if (opens(i)) ++depth;
        if (closes(i)) --depth;
        if (depth == item_depth && is_name(i, "as")) {
          size_t j = i + 1;
          int d = 0;
          while (j < colon) {
            if (opens(j)) ++d;
            if (closes(j) && d-- == 0) break;
            if (d == 0 && is_op(j, ",")) break;
            ++j;
          }
          collect_targets(i + 1, j, collector);
        }
      }
    }
    if (!walk(a, colon, scope, collector, false)) return false;
    emit_range(a, colon + 1);
    pos_ = colon + 1;
    return suite(Owner::Other, scope, collector);
  }

  // The block after a header's colon: indented, or the rest of the line. <indent> ... <dedent>.
  bool suite(Owner owner, int scope, int collector) {
    events.push_back(kIndent);
    if (t_[pos_].kind == Kind::Newline) {
      ++pos_;
      if (t_[pos_].kind != Kind::Indent) return declined(__LINE__);
      ++pos_;
      if (!block_body(owner, scope, collector, true)) return false;
    } else {
      if (!simple_line(owner != Owner::Other, scope, collector)) return false;
    }
    events.push_back(kDedent);
    return true;
  }

  // function_definition: the name binds in the enclosing scope; from the parameters on, names
  // resolve in the function's own scope, whose locals are its parameters and what its body binds.
  bool function_definition(int scope, int collector) {
    size_t a = pos_;
    size_t d = is_name(a, "async") ? a + 1 : a;
    size_t name = d + 1;
    if (t_[name].kind != Kind::Name || hard_keyword(t_[name].text) || !is_op(name + 1, "(")) return declined(__LINE__);
    bind(collector, t_[name].text);
    scope_of_[name] = scope;
    int own = new_scope(scope);
    size_t close = matching(name + 1);
    if (!parameters(name + 2, close, own, true)) return false;
    size_t colon = header_colon(close + 1);
    if (colon == 0) return declined(__LINE__);
    if (close + 1 < colon) {
      if (!is_op(close + 1, "->")) return declined(__LINE__);
      if (!walk(close + 2, colon, own, -1, false)) return false;
    }
    emit_range(a, colon + 1);
    pos_ = colon + 1;
    if (!suite(Owner::Def, own, own)) return false;
    events.push_back(kNl);
    return true;
  }

  // class_definition: its name binds in the enclosing scope; its body is no scope of its own and
  // binds nothing for the enclosing function (the tree-sitter walk does not enter it).
  bool class_definition(int scope, int collector) {
    size_t a = pos_;
    size_t name = a + 1;
    if (t_[name].kind != Kind::Name || hard_keyword(t_[name].text) || is_op(name + 1, "[")) return declined(__LINE__);
    bind(collector, t_[name].text);
    scope_of_[name] = scope;
    size_t colon = header_colon(name + 1);
    if (colon == 0) return declined(__LINE__);
    if (!walk(name + 1, colon, scope, -1, false)) return false;
    emit_range(a, colon + 1);
    pos_ = colon + 1;
    if (!suite(Owner::Class, scope, -1)) return false;
    events.push_back(kNl);
    return true;
  }

  // Parameters between `from` and `to` (exclusive): each name binds in `own`; annotations and
  // defaults are looked up in `own` too but bind nothing.
  bool parameters(size_t from, size_t to, int own, bool annotations) {
    size_t a = from;
    int depth = 0;
    for (size_t i = from; i <= to; ++i) {
      if (i < to && opens(i)) ++depth;
      if (i < to && closes(i)) --depth;
      if (i < to && !(depth == 0 && is_op(i, ","))) continue;
      size_t p = a;
      if (p < i && (is_op(p, "*") || is_op(p, "**") || is_op(p, "/"))) ++p;
      if (p < i) {
        if (t_[p].kind != Kind::Name || hard_keyword(t_[p].text)) return declined(__LINE__);
        bind(own, t_[p].text);
        scope_of_[p] = own;
        size_t q = p + 1;
        if (q < i && is_op(q, ":")) {
          if (!annotations) return declined(__LINE__);
          size_t r = q + 1;
          int dd = 0;
          while (r < i && !(dd == 0 && is_op(r, "="))) {
            if (opens(r)) ++dd;
            if (closes(r)) --dd;
            ++r;
          }
          if (!walk(q + 1, r, own, -1, false)) return false;
          q = r;
        }
        if (q < i) {
          if (!is_op(q, "=")) return declined(__LINE__);
          if (!walk(q + 1, i, own, -1, false)) return false;
        }
      }
      a = i + 1;
    }
    return true;
  }

  // The colon that ends a compound statement's header on this logical line (0: none).
  size_t header_colon(size_t a) {
    size_t e = line_end(a);
    int depth = 0;
    for (size_t i = a; i < e; ++i) {
      if (depth == 0 && is_name(i, "lambda")) {
        size_t colon = 0, end = 0;
        if (!lambda_extent(i, e, colon, end)) return 0;
        i = end - 1;
        continue;
      }
      if (opens(i)) ++depth;
      if (closes(i)) --depth;
      if (depth == 0 && is_op(i, ":")) return i;
    }
    return 0;
  }

  // A lambda at `i`: its parameters end at `colon`, its body at `end` (exclusive), the first
  // token at its own bracket depth that no expression continues with.
  bool lambda_extent(size_t i, size_t b, size_t& colon, size_t& end) {
    int depth = 0;
    size_t j = i + 1;
    for (; j < b; ++j) {
      if (opens(j)) ++depth;
      if (closes(j) && --depth < 0) return declined(__LINE__);
      if (depth == 0 && is_op(j, ":")) break;
    }
    if (j >= b) return declined(__LINE__);
    colon = j;
    size_t k = j + 1;
    depth = 0;
    for (; k < b; ++k) {
      if (opens(k)) ++depth;
      if (closes(k)) {
        if (depth == 0) break;
        --depth;
      }
      if (depth == 0 && (is_op(k, ",") || is_op(k, ";") || is_op(k, ":") || is_op(k, "=") || is_name(k, "for") ||
                         (is_name(k, "async") && is_name(k + 1, "for"))))
        break;
    }
    end = k;
    return true;
  }

  // collect_target_names: identifiers, through tuples, lists, parentheses and starred targets;
  // attributes and subscripts bind nothing.
  void collect_targets(size_t a, size_t b, int collector) {
    if (collector < 0) return;
    size_t x = a;
    int depth = 0;
    for (size_t i = a; i <= b; ++i) {
      if (i < b && opens(i)) ++depth;
      if (i < b && closes(i)) --depth;
      if (i < b && !(depth == 0 && is_op(i, ","))) continue;
      size_t p = x;
      if (p < i && is_op(p, "*")) ++p;
      if (i == p + 1 && t_[p].kind == Kind::Name && !hard_keyword(t_[p].text)) {
        bind(collector, t_[p].text);
      } else if (p < i && (is_op(p, "(") || is_op(p, "[")) && matching(p) == i - 1) {
        collect_targets(p + 1, i - 1, collector);
      }
      x = i + 1;
    }
  }

  // Expression tokens in [a, b): the scope each name is looked up in, names never renamed
  // (attribute names, keyword-argument names; not inside imports' dotted names), lambdas,
  // comprehension and walrus targets, one-element tuples.
  bool walk(size_t a, size_t b, int scope, int collector, bool import_statement) {
    std::vector<char> brackets;  // 'c': a call's argument list, 'o': any other bracket
    for (size_t i = a; i < b; ++i) {
      const Tok& t = t_[i];
      // Two operands in a row (`void f`, `1 2`, `) x`) are no Python: C++ through the Python
      // normal form, Python 2, a typo; tree-sitter's error recovery is not worth imitating.
      if (i > a && operand(i) && (operand(i - 1) || closes(i - 1)) &&
          !(t.kind == Kind::String && t_[i - 1].kind == Kind::String))
        return declined(__LINE__);
      if (t.kind == Kind::Name) {
        if (t.text == "lambda" && !import_statement) {
          size_t colon = 0, end = 0;
          if (!lambda_extent(i, b, colon, end)) return false;
          int own = new_scope(scope);
          if (!parameters(i + 1, colon, own, false)) return false;
          if (!walk(colon + 1, end, own, own, false)) return false;
          i = end - 1;
          continue;
        }
        if (t.text == "for") {  // for_statement / for_in_clause `left`
          int depth = 0;
          size_t j = i + 1;
          for (; j < b; ++j) {
            if (opens(j)) ++depth;
            if (closes(j)) --depth;
            if (depth == 0 && is_name(j, "in")) break;
          }
          if (j >= b) return declined(__LINE__);
          collect_targets(i + 1, j, collector);
          continue;
        }
        if (hard_keyword(t.text)) continue;
        scope_of_[i] = scope;
        if (!import_statement && i > 0 && is_op(i - 1, ".")) flags_[i] |= kExempt;
        if (i + 1 < b && is_op(i + 1, "=") && !brackets.empty() && brackets.back() == 'c') flags_[i] |= kExempt;
        if (i + 1 < b && is_op(i + 1, ":=")) bind(collector, t.text);
      } else if (opens(i)) {
        bool call = false;
        if (t.text[0] == '(' && i > 0) {
          const Tok& p = t_[i - 1];
          call = (p.kind == Kind::Name && !hard_keyword(p.text)) || p.kind == Kind::String ||
                 (p.kind == Kind::Op && (p.text == ")" || p.text == "]" || p.text == "}"));
        }
        // An import's parenthesized names are no tuple.
        if (t.text[0] == '(' && !call && !import_statement && !tuple_of_one(i)) return declined(__LINE__);
        brackets.push_back(call ? 'c' : 'o');
      } else if (closes(i)) {
        if (!brackets.empty()) brackets.pop_back();
      }
    }
    return true;
  }

  // `(x,)`: a tuple (or tuple_pattern) whose single element is followed by a comma, written
  // <tuple1>. tree-sitter counts comments among the tuple's children: decline when one is inside.
  bool tuple_of_one(size_t open) {
    size_t close = matching(open);
    if (close < open + 3 || !is_op(close - 1, ",")) return true;
    int depth = 0, commas = 0;
    for (size_t i = open + 1; i < close; ++i) {
      if (opens(i)) ++depth;
      if (closes(i)) --depth;
      if (depth == 0 && is_op(i, ",")) ++commas;
    }
    if (commas != 1) return true;
    if (comment_inside_[open]) return declined(__LINE__);
    flags_[close - 1] |= kTuple1;
    return true;
  }

  const std::vector<Tok>& t_;
  const std::vector<uint8_t>& comment_inside_;
  std::vector<int32_t> scope_of_;
  std::vector<uint8_t> flags_;
  size_t pos_ = 0;
};

}  // namespace

int token_normalizer_decline_line() { return last_decline_line; }

namespace {

// Where the two forms go: token vectors (NormalizedCode), or the joined streams that
// token_stream_hash hashes, built directly (a vector of strings per text cost more than reading it).
struct VectorSink {
  NormalizedCode& out;
  void push(std::string_view exact, std::string_view alpha) {
    out.exact.emplace_back(exact);
    out.alpha.emplace_back(alpha);
  }
  bool last_is_comma() const { return !out.exact.empty() && out.exact.back() == ","; }
  void pop() {
    out.exact.pop_back();
    out.alpha.pop_back();
  }
};

struct JoinedSink {
  std::string exact, alpha;  // tokens each followed by U+001F, as token_stream_hash joins them
  size_t exact_last = 0, alpha_last = 0;  // where the last token starts
  void push(std::string_view e, std::string_view a) {
    exact_last = exact.size();
    alpha_last = alpha.size();
    exact.append(e);
    exact += '\x1f';
    alpha.append(a);
    alpha += '\x1f';
  }
  bool last_is_comma() const { return exact.size() == exact_last + 2 && exact[exact_last] == ','; }
  void pop() {  // only ever the last token, right after it was pushed
    exact.resize(exact_last);
    alpha.resize(alpha_last);
  }
};

template <typename Sink>
bool read_forms(std::string_view src, Sink& sink) {
  std::vector<Tok> toks;
  std::vector<uint8_t> comment_inside;
  toks.reserve(src.size() / 3 + 8);
  comment_inside.reserve(src.size() / 3 + 8);
  if (!Lexer(src).run(toks, comment_inside)) return false;
  Reader reader(toks, comment_inside);
  if (!reader.run()) return false;

  const auto& scope_of = reader.scope_of();
  const auto& flags = reader.flags();
  size_t next_number = 0;
  std::string text, alpha;
  for (int32_t ev : reader.events) {
    if (ev == kIndent) {
      sink.push("<indent>", "<indent>");
      continue;
    }
    if (ev == kDedent) {
      sink.push("<dedent>", "<dedent>");
      continue;
    }
    if (ev == kNl) {
      sink.push("<nl>", "<nl>");
      continue;
    }
    size_t i = static_cast<size_t>(ev);
    const Tok& t = toks[i];
    switch (t.kind) {
      case Kind::String: {
        text = normalized_string(t.text);
        sink.push(text, text);
        break;
      }
      case Kind::Number: {
        text.assign(t.text);
        for (auto& ch : text) ch = static_cast<char>((ch >= 'A' && ch <= 'Z') ? (ch | 0x20) : ch);
        sink.push(text, text);
        break;
      }
      case Kind::Name: {
        bool renamed = false;
        if (scope_of[i] >= 0 && !(flags[i] & kExempt)) {
          for (int s = scope_of[i]; s >= 0; s = reader.scopes[static_cast<size_t>(s)].parent) {
            Scope& sc = reader.scopes[static_cast<size_t>(s)];
            if (!sc.binds(t.text)) continue;
            size_t number = 0;
            bool found = false;
            for (const auto& [name, n] : sc.numbers) {
              if (name == t.text) {
                number = n;
                found = true;
                break;
              }
            }
            if (!found) {
              number = next_number++;
              sc.numbers.emplace_back(t.text, number);
            }
            alpha = "v" + std::to_string(number);
            renamed = true;
            break;
          }
        }
        sink.push(t.text, renamed ? std::string_view(alpha) : t.text);
        break;
      }
      case Kind::Op: {
        if (flags[i] & kTuple1) {
          sink.push("<tuple1>", "<tuple1>");
          break;
        }
        char c = t.text[0];
        if (t.text.size() == 1 && (c == ')' || c == ']' || c == '}') && sink.last_is_comma()) sink.pop();
        sink.push(t.text, t.text);
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

}  // namespace

bool normalize_by_tokens(std::string_view src, NormalizedCode& out) {
  out = NormalizedCode{};
  VectorSink sink{out};
  return read_forms(src, sink);
}

bool hash_by_tokens(std::string_view src, std::string& exact_hash, std::string& alpha_hash) {
  JoinedSink sink;
  sink.exact.reserve(src.size());
  sink.alpha.reserve(src.size());
  if (!read_forms(src, sink)) return false;
  exact_hash = sha256_hex(sink.exact);
  alpha_hash = sha256_hex(sink.alpha);
  return true;
}

NormalizedCode normalize_python(std::string_view python_source, CodeNormalizer& parser_fallback) {
  NormalizedCode out;
  if (normalize_by_tokens(python_source, out)) return out;
  return parser_fallback.normalize(python_source);
}

void hash_python(std::string_view python_source, CodeNormalizer& parser_fallback, std::string& exact_hash,
                 std::string& alpha_hash) {
  if (hash_by_tokens(python_source, exact_hash, alpha_hash)) return;
  NormalizedCode code = parser_fallback.normalize(python_source);
  exact_hash = token_stream_hash(code.exact);
  alpha_hash = token_stream_hash(code.alpha);
}

}  // namespace mine::dedup
