#include "plugins/inductor/python_literal.h"

#include <charconv>

namespace mine::inductor {
namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool hex_value(std::string_view digits, uint32_t& out) {
  auto r = std::from_chars(digits.data(), digits.data() + digits.size(), out, 16);
  return r.ec == std::errc() && r.ptr == digits.data() + digits.size();
}

// Python's escape rules for a non-raw str literal; unknown escapes stay as written, like Python.
std::string decode_escapes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\' || i + 1 == s.size()) {
      out += c;
      continue;
    }
    char e = s[++i];
    switch (e) {
      case '\n': break;  // line continuation
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case 'x': case 'u': case 'U': {
        size_t len = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
        uint32_t cp = 0;
        // Surrogates and code points past U+10FFFF have no UTF-8 form (Python keeps a lone
        // surrogate in a str, but it cannot be stored as text): they stay as written.
        if (i + len < s.size() && hex_value(s.substr(i + 1, len), cp) && cp <= 0x10FFFF &&
            (cp < 0xD800 || cp > 0xDFFF)) {
          append_utf8(out, cp);
          i += len;
        } else {
          out += '\\';
          out += e;
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = 0;
          size_t n = 0;
          while (n < 3 && i + n < s.size() && s[i + n] >= '0' && s[i + n] <= '7') cp = cp * 8 + (s[i + n++] - '0');
          append_utf8(out, cp);
          i += n - 1;
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  return out;
}

std::optional<std::string> single_string(std::string_view text) {
  size_t q = text.find_first_of("'\"");
  if (q == std::string_view::npos) return std::nullopt;
  std::string prefix(text.substr(0, q));
  bool raw = false;
  for (char& c : prefix) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (c == 'f') return std::nullopt;
    raw = raw || c == 'r';
  }
  std::string_view body = text.substr(q);
  size_t quote = (body.size() >= 6 && (body.substr(0, 3) == "'''" || body.substr(0, 3) == "\"\"\"")) ? 3 : 1;
  if (body.size() < 2 * quote || body.substr(body.size() - quote) != body.substr(0, quote)) return std::nullopt;
  std::string_view content = body.substr(quote, body.size() - 2 * quote);
  return raw ? std::string(content) : decode_escapes(content);
}

nlohmann::json number_value(std::string_view text, bool is_float) {
  std::string t;
  for (char c : text)
    if (c != '_') t += c;
  if (!is_float) {
    int base = 10;
    std::string_view digits = t;
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) base = 16, digits = digits.substr(2);
    else if (t.size() > 2 && t[0] == '0' && (t[1] == 'o' || t[1] == 'O')) base = 8, digits = digits.substr(2);
    else if (t.size() > 2 && t[0] == '0' && (t[1] == 'b' || t[1] == 'B')) base = 2, digits = digits.substr(2);
    int64_t v = 0;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (r.ec == std::errc() && r.ptr == digits.data() + digits.size()) return v;
    return std::string(text);  // too big for JSON's integers, or not a plain integer (`1j`)
  }
  try {
    size_t used = 0;
    double d = std::stod(t, &used);
    if (used == t.size()) return d;
  } catch (const std::exception&) {
  }
  return std::string(text);
}

nlohmann::json read(const SourceText& tree, TSNode n, int depth) {
  std::string_view type = node_type(n);
  auto as_text = [&] { return nlohmann::json(std::string(tree.text_of(n))); };
  if (depth > 64) return as_text();  // deeper than any real triton_meta; keep the stack bounded
  if (type == "string" || type == "concatenated_string") {
    auto v = string_value(tree, n);
    return v ? nlohmann::json(*v) : as_text();
  }
  if (type == "integer") return number_value(tree.text_of(n), false);
  if (type == "float") return number_value(tree.text_of(n), true);
  if (type == "true") return true;
  if (type == "false") return false;
  if (type == "none") return nullptr;
  if (type == "parenthesized_expression") {
    TSNode inner{};
    for_each_named_child(n, [&](TSNode c) {
      if (!is_type(c, "comment")) inner = c;
    });
    return ts_node_is_null(inner) ? as_text() : read(tree, inner, depth + 1);
  }
  if (type == "unary_operator") {
    TSNode arg = field(n, "argument");
    nlohmann::json v = read(tree, arg, depth + 1);
    std::string_view op = tree.text_of(field(n, "operator"));
    if (v.is_number() && op == "-") return v.is_number_integer() ? nlohmann::json(-v.get<int64_t>()) : nlohmann::json(-v.get<double>());
    if (v.is_number() && op == "+") return v;
    return as_text();
  }
  if (type == "list" || type == "tuple" || type == "set") {
    nlohmann::json out = nlohmann::json::array();
    bool ok = true;
    for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "comment")) return;
      if (is_type(c, "list_splat") || is_type(c, "parenthesized_list_splat")) ok = false;
      out.push_back(read(tree, c, depth + 1));
    });
    return ok ? out : as_text();
  }
  if (type == "dictionary") {
    nlohmann::json out = nlohmann::json::object();
    bool ok = true;
    for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "comment")) return;
      if (!is_type(c, "pair")) {
        ok = false;  // `**other`: not a literal
        return;
      }
      TSNode key = field(c, "key");
      nlohmann::json k = read(tree, key, depth + 1);
      std::string name = k.is_string() && (is_type(key, "string") || is_type(key, "concatenated_string"))
                             ? k.get<std::string>()
                             : std::string(tree.text_of(key));
      out[name] = read(tree, field(c, "value"), depth + 1);
    });
    return ok ? out : as_text();
  }
  return as_text();
}

}  // namespace

std::optional<std::string> string_value(const SourceText& tree, TSNode node) {
  if (is_type(node, "concatenated_string")) {
    std::string out;
    bool ok = true;
    for_each_named_child(node, [&](TSNode part) {
      if (!is_type(part, "string")) return;
      auto v = single_string(tree.text_of(part));
      if (!v) ok = false;
      else out += *v;
    });
    if (!ok) return std::nullopt;
    return out;
  }
  if (!is_type(node, "string")) return std::nullopt;
  return single_string(tree.text_of(node));
}

nlohmann::json literal_value(const SourceText& tree, TSNode node) {
  if (ts_node_is_null(node)) return nullptr;
  return read(tree, node, 0);
}

}  // namespace mine::inductor
