#include "plugins/cuda/static_python_value.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

#include "plugins/cuda/embedded_sources.h"

namespace mine {
namespace {

using namespace sdk;
using Known = StaticValue::Known;

// Names followed through assignments and calls: a bound on hostile or circular code.
constexpr int kMaxDepth = 24;

StaticValue unknown(std::string why) {
  StaticValue v;
  v.text = std::string(1, StaticValue::kUnknownPart);
  v.why = std::move(why);
  return v;
}

StaticValue fixed_text(std::string text) {
  StaticValue v;
  v.known = Known::fixed;
  v.text = std::move(text);
  return v;
}

// The less certain of two: what a value built from both is.
Known worse(Known a, Known b) { return static_cast<int>(a) > static_cast<int>(b) ? a : b; }

void absorb(StaticValue& into, const StaticValue& part) {
  if (static_cast<int>(part.known) >= static_cast<int>(into.known) && !part.why.empty() &&
      (into.why.empty() || part.known != Known::fixed))
    into.why = part.why;
  into.known = worse(into.known, part.known);
}

// Python's str() of a float: the shortest text that reads back the same, with a ".0" when integral.
std::string float_text(double d) {
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  if (std::isnan(d)) return "nan";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  std::string s(buf, ec == std::errc() ? end : buf);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

bool is_int_text(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i])) && s[i] != '_') return false;
  return true;
}

std::string without_underscores(std::string s) {
  std::string out;
  for (char c : s)
    if (c != '_') out += c;
  return out;
}

std::string folder_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string path_join(const std::string& a, const std::string& b) {
  if (!b.empty() && b[0] == '/') return b;
  if (a.empty()) return b;
  return a.back() == '/' ? a + b : a + "/" + b;
}

bool is_scope(TSNode n) {
  return is_type(n, "function_definition") || is_type(n, "class_definition") || is_type(n, "lambda");
}

TSNode enclosing_function(TSNode n) {
  for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up))
    if (is_type(up, "function_definition")) return up;
    else if (is_type(up, "class_definition")) return TSNode{};  // class bodies see module names
  return TSNode{};
}

// Visits the statements of a scope's body, into blocks (if, for, try, with) but not into the
// functions and classes it defines, which are scopes of their own.
template <typename F>
void walk_scope(TSNode body, F&& f, int depth = 0) {
  if (ts_node_is_null(body) || depth > 200) return;
  for_each_named_child(body, [&](TSNode c) {
    if (is_scope(c) || is_type(c, "decorated_definition")) return;
    f(c);
    walk_scope(c, f, depth + 1);
  });
}

class Evaluator {
 public:
  explicit Evaluator(const PythonFile& m, const ArgumentSource* arguments = nullptr) : m_(m), arguments_(arguments) {}

  StaticValue value(TSNode n, int depth);
  StaticList list(TSNode n, int depth, bool& complete);
  TSNode dict_entry(TSNode n, const std::string& key, int depth);

 private:
  // Where a name read at `use` gets its value: the assignments of the innermost scope that has
  // one, else a parameter of an enclosing function.
  struct Binding {
    std::vector<TSNode> assignments;  // `name = value` statements' assignment nodes, in order
    TSNode parameter{};               // the parameter node, when a parameter binds it
    std::string function;             // the function whose parameter it is
    TSNode scope_body{};              // where the assignments are
  };
  Binding binding_of(const std::string& name, TSNode use) const;
  StaticValue name_value(TSNode n, int depth);
  StaticValue call_value(TSNode n, int depth);
  StaticValue string_value(TSNode n, int depth);
  StaticValue binary_value(TSNode n, int depth);
  TSNode argument(TSNode call, size_t position) const;

  const PythonFile& m_;
  const ArgumentSource* arguments_;
};

TSNode Evaluator::argument(TSNode call, size_t position) const {
  TSNode found{};
  size_t index = 0;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (is_type(a, "keyword_argument") || is_type(a, "comment")) return;
    if (index++ == position) found = a;
  });
  return found;
}

Evaluator::Binding Evaluator::binding_of(const std::string& name, TSNode use) const {
  Binding b;
  uint32_t at = ts_node_start_byte(use);
  auto assignments_in = [&](TSNode body, bool before_only) {
    std::vector<TSNode> out;
    walk_scope(body, [&](TSNode c) {
      if (!is_type(c, "assignment") || m_.view_of(field(c, "left")) != name) return;
      if (!is_type(field(c, "left"), "identifier") || ts_node_is_null(field(c, "right"))) return;
      if (before_only && ts_node_end_byte(c) > at) return;
      out.push_back(c);
    });
    return out;
  };
  for (TSNode fn = enclosing_function(use); !ts_node_is_null(fn); fn = enclosing_function(fn)) {
    b.assignments = assignments_in(field(fn, "body"), true);
    if (!b.assignments.empty()) {
      b.scope_body = field(fn, "body");
      return b;
    }
    for_each_named_child(field(fn, "parameters"), [&](TSNode p) {
      if (!ts_node_is_null(b.parameter)) return;
      TSNode id = is_type(p, "identifier") ? p : field(p, "name");
      if (is_type(p, "typed_parameter")) id = ts_node_named_child(p, 0);
      if (is_type(id, "identifier") && m_.view_of(id) == name) b.parameter = p;
    });
    if (!ts_node_is_null(b.parameter)) {
      b.function = m_.text_of(field(fn, "name"));
      return b;
    }
  }
  // Module level: what code there has assigned before it, or for a function body (called later)
  // every assignment of the module.
  bool at_module = ts_node_is_null(enclosing_function(use));
  b.scope_body = m_.root();
  b.assignments = assignments_in(m_.root(), at_module);
  return b;
}

StaticValue Evaluator::name_value(TSNode n, int depth) {
  std::string name = m_.text_of(n);
  if (name == "True" || name == "False" || name == "None") return fixed_text(name);
  Binding b = binding_of(name, n);
  if (!ts_node_is_null(b.parameter)) {
    TSNode def = field(b.parameter, "value");
    std::string what = "parameter " + name + " of " + b.function + "()";
    if (ts_node_is_null(def) && arguments_) {
      // Its position as callers write it: a method's callers pass no `self`.
      size_t position = 0, index = 0;
      for_each_named_child(ts_node_parent(b.parameter), [&](TSNode p) {
        if (index == 0 && (m_.view_of(p) == "self" || m_.view_of(p) == "cls")) return;
        if (ts_node_eq(p, b.parameter)) position = index;
        ++index;
      });
      if (auto passed = (*arguments_)(b.function, name, position)) return *passed;
    }
    if (ts_node_is_null(def)) return unknown(what + " has no default");
    StaticValue v = value(def, depth + 1);
    if (v.known == Known::unknown) return v;
    v.known = Known::stand_in;
    v.why = "default of " + what;
    return v;
  }
  if (b.assignments.empty()) {
    if (name == "__file__") {
      StaticValue v = fixed_text("/" + m_.path());
      v.rooted = true;
      return v;
    }
    return unknown(name + " is not assigned in " + m_.path());
  }
  StaticValue v = value(field(b.assignments.back(), "right"), depth + 1);
  // Assigned in several places (branches of an `if`): the last one is one possibility.
  if (b.assignments.size() > 1 && v.known == Known::fixed) {
    bool same = true;
    for (TSNode a : b.assignments) same = same && value(field(a, "right"), depth + 1).text == v.text;
    if (!same) {
      v.known = Known::stand_in;
      v.why = name + " is assigned " + std::to_string(b.assignments.size()) + " times; the last (line " +
              std::to_string(first_line(b.assignments.back())) + ") taken";
    }
  }
  return v;
}

StaticValue Evaluator::string_value(TSNode n, int depth) {
  std::string literal = m_.text_of(n);
  size_t q = literal.find_first_of("'\"");
  if (q == std::string::npos) return unknown("a string literal that does not read");
  std::string prefix = literal.substr(0, q), plain_prefix;
  bool f = false;
  for (char c : prefix) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == 'b') return unknown("a byte string");
    if (l == 'f') f = true;
    else plain_prefix += c;
  }
  if (!f) {
    std::string v;
    if (!python_string_value(literal, v)) return unknown("a string literal that does not read");
    return fixed_text(v);
  }
  size_t quote_len = literal.compare(q, 3, std::string(3, literal[q])) == 0 ? 3 : 1;
  std::string quote = literal.substr(q, quote_len);
  // The literal pieces between the interpolations, read as the plain string they are, and each
  // interpolation's value.
  StaticValue out = fixed_text("");
  uint32_t base = ts_node_start_byte(n);
  size_t piece_start = q + quote_len, body_end = literal.size() - quote_len;
  auto literal_piece = [&](size_t from, size_t to) {
    if (to <= from) return;
    std::string v;
    python_string_value(plain_prefix + quote + literal.substr(from, to - from) + quote, v);
    for (size_t at; (at = v.find("{{")) != std::string::npos;) v.erase(at, 1);
    for (size_t at; (at = v.find("}}")) != std::string::npos;) v.erase(at, 1);
    out.text += v;
  };
  for_each_named_child(n, [&](TSNode c) {
    if (!is_type(c, "interpolation")) return;
    literal_piece(piece_start, ts_node_start_byte(c) - base);
    piece_start = ts_node_end_byte(c) - base;
    StaticValue part;
    if (!ts_node_is_null(field(c, "format_specifier")) || !ts_node_is_null(field(c, "type_conversion")))
      part = unknown("a formatted field " + m_.text_of(c));
    else
      part = value(field(c, "expression"), depth + 1);
    out.text += part.text;
    absorb(out, part);
  });
  literal_piece(piece_start, body_end);
  return out;
}

StaticValue Evaluator::binary_value(TSNode n, int depth) {
  StaticValue a = value(field(n, "left"), depth + 1), b = value(field(n, "right"), depth + 1);
  std::string op = m_.text_of(field(n, "operator"));
  StaticValue out;
  // Paths: `Path(__file__).parent / "k.cu"`.
  if (op == "/" && !b.number && !a.number) {
    out.text = path_join(a.text, b.text);
    out.known = Known::fixed;
    out.rooted = a.rooted;
    absorb(out, a);
    absorb(out, b);
    return out;
  }
  if (op == "+" && !a.number && !b.number) {
    out = fixed_text(a.text + b.text);
    out.rooted = a.rooted;
    absorb(out, a);
    absorb(out, b);
    return out;
  }
  if (a.known == Known::unknown || b.known == Known::unknown || !a.number || !b.number) {
    StaticValue u = unknown(a.known == Known::unknown ? a.why : b.known == Known::unknown ? b.why : "an expression " + m_.text_of(n));
    return u;
  }
  bool ints = is_int_text(a.text) && is_int_text(b.text);
  long long x = ints ? std::strtoll(a.text.c_str(), nullptr, 10) : 0, y = ints ? std::strtoll(b.text.c_str(), nullptr, 10) : 0;
  double dx = std::strtod(a.text.c_str(), nullptr), dy = std::strtod(b.text.c_str(), nullptr);
  std::string text;
  if (ints && op == "+") text = std::to_string(x + y);
  else if (ints && op == "-") text = std::to_string(x - y);
  else if (ints && op == "*") text = std::to_string(x * y);
  else if (ints && op == "//" && y != 0) text = std::to_string(x / y - ((x % y != 0) && ((x < 0) != (y < 0))));
  else if (ints && op == "%" && y != 0) text = std::to_string(((x % y) + y) % y);
  else if (ints && op == "<<" && y >= 0 && y < 63) text = std::to_string(x << y);
  else if (ints && op == ">>" && y >= 0 && y < 63) text = std::to_string(x >> y);
  else if (ints && op == "**" && y >= 0 && y < 63) text = std::to_string(static_cast<long long>(std::llround(std::pow(dx, dy))));
  else if (op == "+") text = float_text(dx + dy);
  else if (op == "-") text = float_text(dx - dy);
  else if (op == "*") text = float_text(dx * dy);
  else if (op == "/" && dy != 0) text = float_text(dx / dy);
  else if (op == "**") text = float_text(std::pow(dx, dy));
  else return unknown("an expression " + m_.text_of(n));
  out = fixed_text(text);
  out.number = true;
  absorb(out, a);
  absorb(out, b);
  return out;
}

StaticValue Evaluator::call_value(TSNode n, int depth) {
  std::string fn = m_.text_of(field(n, "function"));
  auto arg = [&](size_t i) { return value(argument(n, i), depth + 1); };
  if (fn == "int" || fn == "float" || fn == "str") {
    if (ts_node_is_null(argument(n, 0))) return unknown("a call " + m_.text_of(n));
    StaticValue v = arg(0);
    if (v.known == Known::unknown) return v;
    if (fn == "str") {
      v.number = false;
      return v;
    }
    std::string t = v.text;
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.erase(0, 1);
    char* end = nullptr;
    double d = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size()) return unknown(fn + "() of " + t);
    v.number = true;
    if (fn == "float") v.text = float_text(d);
    else v.text = is_int_text(t) ? without_underscores(t) : std::to_string(static_cast<long long>(std::trunc(d)));
    return v;
  }
  if (fn == "os.environ.get" || fn == "os.getenv" || fn == "environ.get" || fn == "getenv") {
    StaticValue key = arg(0);
    std::string what = "os.environ['" + key.text + "']";
    if (ts_node_is_null(argument(n, 1))) {
      TSNode kw = keyword_argument(m_, n, "default");
      if (ts_node_is_null(kw)) return unknown(what + " has no default");
      StaticValue v = value(kw, depth + 1);
      if (v.known != Known::unknown) v.known = Known::stand_in, v.why = "default of " + what;
      return v;
    }
    StaticValue v = arg(1);
    if (v.known != Known::unknown) v.known = Known::stand_in, v.why = "default of " + what;
    return v;
  }
  if (fn == "os.path.join" || fn == "join" || fn == "osp.join") {
    StaticValue out = fixed_text("");
    bool first = true;
    for (size_t i = 0; !ts_node_is_null(argument(n, i)); ++i) {
      StaticValue part = arg(i);
      out.text = first ? part.text : path_join(out.text, part.text);
      if (first || (!part.text.empty() && part.text[0] == '/')) out.rooted = part.rooted;
      first = false;
      absorb(out, part);
    }
    return out;
  }
  if (fn == "os.path.dirname" || fn == "osp.dirname" || fn == "dirname") {
    StaticValue v = arg(0);
    if (v.known != Known::unknown) v.text = folder_of(v.text);
    return v;
  }
  if (fn == "os.path.abspath" || fn == "os.path.realpath" || fn == "os.path.normpath" || fn == "osp.abspath" ||
      fn == "osp.realpath" || fn == "Path" || fn == "pathlib.Path" || fn == "abspath" || fn == "realpath")
    return arg(0);
  // `Path(__file__).resolve()`, `.absolute()`: the same path.
  TSNode callee = field(n, "function");
  if (is_type(callee, "attribute")) {
    std::string attr = m_.text_of(field(callee, "attribute"));
    if (attr == "resolve" || attr == "absolute") return value(field(callee, "object"), depth + 1);
  }
  return unknown("a call " + fn + "()");
}

StaticValue Evaluator::value(TSNode n, int depth) {
  if (ts_node_is_null(n)) return unknown("nothing");
  if (depth > kMaxDepth) return unknown("names followed too far");
  std::string_view t = node_type(n);
  if (t == "integer") {
    std::string s = without_underscores(m_.text_of(n));
    StaticValue v = fixed_text(s);
    if (s.size() > 2 && s[0] == '0' && std::isalpha(static_cast<unsigned char>(s[1]))) {
      int base = (s[1] == 'x' || s[1] == 'X') ? 16 : (s[1] == 'o' || s[1] == 'O') ? 8 : 2;
      v.text = std::to_string(std::strtoll(s.c_str() + 2, nullptr, base));
    }
    v.number = true;
    return v;
  }
  if (t == "float") {
    StaticValue v = fixed_text(float_text(std::strtod(without_underscores(m_.text_of(n)).c_str(), nullptr)));
    v.number = true;
    return v;
  }
  if (t == "true") return fixed_text("True");
  if (t == "false") return fixed_text("False");
  if (t == "none") return fixed_text("None");
  if (t == "string") return string_value(n, depth);
  if (t == "concatenated_string") {
    StaticValue out = fixed_text("");
    for_each_named_child(n, [&](TSNode part) {
      StaticValue v = value(part, depth + 1);
      out.text += v.text;
      absorb(out, v);
    });
    return out;
  }
  if (t == "parenthesized_expression") return value(ts_node_named_child(n, 0), depth + 1);
  if (t == "unary_operator") {
    StaticValue v = value(field(n, "argument"), depth + 1);
    std::string op = m_.text_of(field(n, "operator"));
    if (!v.number || v.known == Known::unknown) return v.known == Known::unknown ? v : unknown("an expression " + m_.text_of(n));
    if (op == "-") v.text = v.text[0] == '-' ? v.text.substr(1) : "-" + v.text;
    else if (op != "+") return unknown("an expression " + m_.text_of(n));
    return v;
  }
  if (t == "binary_operator") return binary_value(n, depth);
  if (t == "identifier") return name_value(n, depth);
  if (t == "call") return call_value(n, depth);
  if (t == "subscript") {
    std::string base = m_.text_of(field(n, "value"));
    if (base == "os.environ" || base == "environ") {
      StaticValue key = value(field(n, "subscript"), depth + 1);
      return unknown("os.environ['" + key.text + "'] has no default");
    }
    return unknown("an item " + m_.text_of(n));
  }
  if (t == "attribute") {
    std::string attr = m_.text_of(field(n, "attribute"));
    if (attr == "parent") {
      StaticValue v = value(field(n, "object"), depth + 1);
      if (v.known != Known::unknown) v.text = folder_of(v.text);
      return v;
    }
    return unknown("an attribute " + m_.text_of(n));
  }
  return unknown("an expression " + m_.text_of(n));
}

StaticList Evaluator::list(TSNode n, int depth, bool& complete) {
  StaticList out;
  if (ts_node_is_null(n) || depth > kMaxDepth) {
    complete = false;
    return out;
  }
  std::string_view t = node_type(n);
  if (t == "list" || t == "tuple" || t == "expression_list") {
    for_each_named_child(n, [&](TSNode e) {
      if (is_type(e, "comment")) return;
      if (is_type(e, "list_splat")) {
        auto more = list(ts_node_named_child(e, 0), depth + 1, complete);
        out.insert(out.end(), more.begin(), more.end());
      } else {
        out.push_back(value(e, depth + 1));
      }
    });
    return out;
  }
  if (t == "parenthesized_expression") return list(ts_node_named_child(n, 0), depth + 1, complete);
  if (t == "binary_operator" && m_.view_of(field(n, "operator")) == "+") {
    out = list(field(n, "left"), depth + 1, complete);
    auto more = list(field(n, "right"), depth + 1, complete);
    out.insert(out.end(), more.begin(), more.end());
    return out;
  }
  if (t == "call") {
    std::string fn = m_.text_of(field(n, "function"));
    if (fn == "glob.glob" || fn == "glob" || fn == "glob.iglob") {
      StaticValue p = value(argument(n, 0), depth + 1);
      p.pattern = true;
      out.push_back(p);
      return out;
    }
    if (fn == "list" || fn == "sorted" || fn == "tuple") return list(argument(n, 0), depth + 1, complete);
  }
  if (t == "identifier") {
    std::string name = m_.text_of(n);
    Binding b = binding_of(name, n);
    if (b.assignments.empty()) {
      complete = false;
      return out;
    }
    TSNode last = b.assignments.back();
    out = list(field(last, "right"), depth + 1, complete);
    // What the same scope adds to it between that assignment and the use.
    uint32_t from = ts_node_end_byte(last), to = ts_node_start_byte(n);
    bool use_in_scope = to > from;
    walk_scope(b.scope_body, [&](TSNode c) {
      uint32_t at = ts_node_start_byte(c);
      if (at < from || (use_in_scope && at >= to)) return;
      if (is_type(c, "augmented_assignment") && m_.view_of(field(c, "left")) == name &&
          m_.view_of(field(c, "operator")) == "+=") {
        auto more = list(field(c, "right"), depth + 1, complete);
        out.insert(out.end(), more.begin(), more.end());
      } else if (is_type(c, "call")) {
        TSNode callee = field(c, "function");
        if (!is_type(callee, "attribute") || m_.view_of(field(callee, "object")) != name) return;
        auto method = m_.view_of(field(callee, "attribute"));
        if (method == "append") {
          out.push_back(value(argument(c, 0), depth + 1));
        } else if (method == "extend") {
          auto more = list(argument(c, 0), depth + 1, complete);
          out.insert(out.end(), more.begin(), more.end());
        } else if (method == "insert") {
          out.push_back(value(argument(c, 1), depth + 1));
        }
      }
    });
    return out;
  }
  complete = false;
  return out;
}

TSNode Evaluator::dict_entry(TSNode n, const std::string& key, int depth) {
  if (ts_node_is_null(n) || depth > kMaxDepth) return TSNode{};
  if (is_type(n, "parenthesized_expression")) return dict_entry(ts_node_named_child(n, 0), key, depth + 1);
  if (is_type(n, "identifier")) {
    Binding b = binding_of(m_.text_of(n), n);
    if (b.assignments.empty()) return TSNode{};
    return dict_entry(field(b.assignments.back(), "right"), key, depth + 1);
  }
  TSNode found{};
  if (is_type(n, "dictionary")) {
    for_each_named_child(n, [&](TSNode pair) {
      if (!is_type(pair, "pair")) return;
      StaticValue k = value(field(pair, "key"), depth + 1);
      if (k.known == Known::fixed && k.text == key) found = field(pair, "value");
    });
  } else if (is_type(n, "call") && m_.view_of(field(n, "function")) == "dict") {
    found = keyword_argument(m_, n, key);
  }
  return found;
}

}  // namespace

StaticValue static_value(const PythonFile& file, TSNode expression, const ArgumentSource* arguments) {
  return Evaluator(file, arguments).value(expression, 0);
}

StaticList static_list(const PythonFile& file, TSNode expression, bool& complete, const ArgumentSource* arguments) {
  return Evaluator(file, arguments).list(expression, 0, complete);
}

TSNode static_dict_entry(const PythonFile& file, TSNode expression, const std::string& key) {
  return Evaluator(file).dict_entry(expression, key, 0);
}

}  // namespace mine
