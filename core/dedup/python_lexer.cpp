#include "core/dedup/python_lexer.h"


#include "core/dedup/min_hasher.h"

namespace mine::dedup {
namespace {

// ASCII classes by hand: the <cctype> ones consult the locale on every byte.
inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }
inline bool is_alpha(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
inline bool ident_start(unsigned char c) { return is_alpha(c) || c == '_' || c >= 0x80; }
inline bool ident_char(unsigned char c) { return is_alpha(c) || is_digit(c) || c == '_' || c >= 0x80; }
inline char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c | 0x20) : c; }

bool string_prefix(std::string_view p) {
  if (p.size() > 2) return false;
  for (char c : p) {
    char l = lower(c);
    if (l != 'r' && l != 'b' && l != 'u' && l != 'f') return false;
  }
  return true;
}

// Length of the operator at s[i]: Python's three- and two-character operators, else 1.
size_t operator_length(std::string_view s, size_t i) {
  char a = s[i], b = i + 1 < s.size() ? s[i + 1] : '\0', c = i + 2 < s.size() ? s[i + 2] : '\0';
  bool doubled = a == b && (a == '*' || a == '/' || a == '<' || a == '>');
  if ((doubled && c == '=') || (a == '.' && b == '.' && c == '.')) return 3;
  if (doubled || (a == '-' && b == '>')) return 2;
  if (b == '=') {
    switch (a) {
      case '+': case '-': case '*': case '/': case '%': case '&': case '|': case '^': case '@':
      case '<': case '>': case '=': case '!': case ':':
        return 2;
      default:
        break;
    }
  }
  return 1;
}

// Emits tokens, holding back one comma so that a comma before a closing bracket can be dropped.
template <typename Emit>
class Scanner {
 public:
  Scanner(std::string_view s, Emit& emit) : s_(s), emit_(emit) {}

  void run() {
    size_t i = 0;
    const size_t n = s_.size();
    while (i < n) {
      unsigned char c = static_cast<unsigned char>(s_[i]);
      if (c == '\n') {
        if (depth_ == 0) end_logical_line();
        ++i;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
        ++i;
      } else if (c == '#') {
        while (i < n && s_[i] != '\n') ++i;
      } else if (c == '\\' && i + 1 < n && (s_[i + 1] == '\n' || s_[i + 1] == '\r')) {
        i += 2;
      } else if (c == '\'' || c == '"') {
        i = string_at(i, i);
      } else if (ident_start(c)) {
        size_t j = i + 1;
        while (j < n && ident_char(static_cast<unsigned char>(s_[j]))) ++j;
        if (j < n && (s_[j] == '\'' || s_[j] == '"') && string_prefix(s_.substr(i, j - i))) {
          i = string_at(i, j);
        } else {
          word(s_.substr(i, j - i));
          i = j;
        }
      } else if (is_digit(c) || (c == '.' && i + 1 < n && is_digit(static_cast<unsigned char>(s_[i + 1])))) {
        size_t j = i;
        while (j < n) {
          unsigned char d = static_cast<unsigned char>(s_[j]);
          if (is_alpha(d) || is_digit(d) || d == '_' || d == '.') {
            ++j;
          } else if ((d == '+' || d == '-') && (s_[j - 1] == 'e' || s_[j - 1] == 'E') && !is_hex(i, j)) {
            ++j;
          } else {
            break;
          }
        }
        number_.assign(s_.substr(i, j - i));
        for (auto& ch : number_) ch = lower(ch);
        token(number_);
        i = j;
      } else {
        size_t len = operator_length(s_, i);
        std::string_view op = s_.substr(i, len);
        i += len;
        if (len == 1) {
          switch (c) {
            case '(': case '[': case '{':
              ++depth_;
              break;
            case ')': case ']': case '}':
              if (depth_ > 0) --depth_;
              comma_pending_ = false;  // a trailing comma is layout
              break;
            case ';':
              end_logical_line();
              continue;
            case ',':
              flush_comma();
              comma_pending_ = true;
              continue;
            default:
              break;
          }
        }
        token(op);
        if (c == ':' && len == 1 && depth_ == 0) last_was_colon_ = true;
      }
    }
    flush_comma();
  }

 private:
  bool is_hex(size_t from, size_t to) const {
    return to - from > 1 && s_[from] == '0' && (s_[from + 1] == 'x' || s_[from + 1] == 'X');
  }

  void flush_comma() {
    if (comma_pending_) {
      comma_pending_ = false;
      emit_(std::string_view(","));
      ++line_tokens_;
      last_was_colon_ = false;
    }
  }

  void token(std::string_view t) {
    flush_comma();
    emit_(t);
    ++line_tokens_;
    last_was_colon_ = false;
  }

  void word(std::string_view w) {
    if (line_tokens_ == 0) header_line_ = (w == "def" || w == "class" || w == "async");
    token(w);
  }

  void end_logical_line() {
    if (line_tokens_ == 0) return;
    // A docstring may follow a `def ...:` or `class ...:` line that ended with its colon.
    after_header_ = header_line_ && last_was_colon_;
    at_module_start_ = false;
    line_tokens_ = 0;
    header_line_ = false;
    last_was_colon_ = false;
  }

  // Reads the string whose prefix starts at `from` and quote at `q`; returns the index after it.
  size_t string_at(size_t from, size_t q) {
    const size_t n = s_.size();
    char quote = s_[q];
    bool triple = q + 2 < n && s_[q + 1] == quote && s_[q + 2] == quote;
    size_t open = triple ? 3 : 1;
    size_t i = q + open, body_end = n, end = n;
    while (i < n) {
      char ch = s_[i];
      if (ch == '\\') {
        i += 2;
        continue;
      }
      if (!triple && ch == '\n') {
        body_end = end = i;
        break;
      }
      if (ch == quote && (!triple || (i + 2 < n && s_[i + 1] == quote && s_[i + 2] == quote))) {
        body_end = i;
        end = i + open;
        break;
      }
      ++i;
    }
    if (body_end > n) body_end = n;
    if (end > n) end = n;
    // A lone string that opens the module or a def/class body, alone on its logical line.
    bool statement_start = line_tokens_ == 0 && depth_ == 0;
    if (statement_start && (after_header_ || at_module_start_)) {
      size_t j = end;
      while (j < n && (s_[j] == ' ' || s_[j] == '\t' || s_[j] == '\r')) ++j;
      if (j < n && s_[j] == '#')
        while (j < n && s_[j] != '\n') ++j;
      if (j >= n || s_[j] == '\n' || s_[j] == ';') {
        after_header_ = false;
        at_module_start_ = false;
        return end;
      }
    }
    text_.clear();
    for (size_t k = from; k < q; ++k) text_ += lower(s_[k]);
    text_ += '"';
    for (size_t k = q + open; k < body_end; ++k) {
      if (s_[k] == '\\' && k + 1 < body_end) {
        if (s_[k + 1] != '\'' && s_[k + 1] != '"') text_ += '\\';
        text_ += s_[++k];
      } else {
        text_ += s_[k];
      }
    }
    text_ += '"';
    token(text_);
    return end;
  }

  std::string_view s_;
  Emit& emit_;
  int depth_ = 0;
  size_t line_tokens_ = 0;
  bool header_line_ = false, last_was_colon_ = false, after_header_ = false, at_module_start_ = true;
  bool comma_pending_ = false;
  std::string text_, number_;
};

}  // namespace

void lex_python(std::string_view source, const std::function<void(std::string_view)>& token) {
  auto emit = [&](std::string_view t) { token(t); };
  Scanner<decltype(emit)>(source, emit).run();
}

std::vector<std::string> lex_python_tokens(std::string_view source) {
  std::vector<std::string> out;
  auto emit = [&](std::string_view t) { out.emplace_back(t); };
  Scanner<decltype(emit)>(source, emit).run();
  return out;
}

void lex_python_hashes(std::string_view source, std::vector<uint64_t>& out) {
  out.clear();
  auto emit = [&](std::string_view t) { out.push_back(MinHasher::token_hash(t)); };
  Scanner<decltype(emit)>(source, emit).run();
}

}  // namespace mine::dedup
