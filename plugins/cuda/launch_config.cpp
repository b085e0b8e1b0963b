#include "plugins/cuda/launch_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <optional>

#include "plugins/cuda/cuda_tree.h"

namespace mine {
namespace {

using namespace cuda_tree;

constexpr int kMaxDepth = 8;           // names resolving to names: macros of macros
constexpr int64_t kMaxValue = 1 << 30;  // past this no launch dimension is meant

// Integer arithmetic over the text of an expression, with names resolved by `resolve` to the
// text they stand for. nullopt for anything else (a runtime value, a call, a float).
class IntegerText {
 public:
  using Resolve = std::function<std::optional<std::string>(const std::string&)>;
  IntegerText(std::string text, const Resolve& resolve, int depth) : text_(std::move(text)), resolve_(resolve), depth_(depth) {}

  std::optional<int64_t> value() {
    auto v = conditional();
    skip_space();
    if (!v || pos_ != text_.size()) return std::nullopt;
    return v;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool take(std::string_view op) {
    skip_space();
    if (text_.compare(pos_, op.size(), op) != 0) return false;
    // `<` is not `<<`, `>` not `>>`.
    if ((op == "<" || op == ">") && pos_ + 1 < text_.size() && text_[pos_ + 1] == op[0]) return false;
    pos_ += op.size();
    return true;
  }
  std::optional<int64_t> conditional() {
    auto c = comparison();
    if (!c || !take("?")) return c;
    auto a = conditional();
    if (!a || !take(":")) return std::nullopt;
    auto b = conditional();
    if (!b) return std::nullopt;
    return *c ? a : b;
  }
  // One left-associative level, `next (op next)*`: `apply` combines two values (nullopt: the
  // text is no launch dimension).
  template <typename Apply>
  std::optional<int64_t> level(std::optional<int64_t> (IntegerText::*next)(), std::initializer_list<std::string_view> ops,
                               Apply apply) {
    auto l = (this->*next)();
    while (l) {
      std::string_view op;
      for (std::string_view o : ops)
        if (take(o)) {
          op = o;
          break;
        }
      if (op.empty()) break;
      auto r = (this->*next)();
      if (!r) return std::nullopt;
      l = apply(op, *l, *r);
    }
    return l;
  }
  std::optional<int64_t> comparison() {
    return level(&IntegerText::shift, {"<=", ">=", "==", "!=", "<", ">"},
                 [](std::string_view op, int64_t l, int64_t r) -> std::optional<int64_t> {
                   return op == "<=" ? l <= r : op == ">=" ? l >= r : op == "==" ? l == r : op == "!=" ? l != r
                                                                       : op == "<"  ? l < r
                                                                                    : l > r;
                 });
  }
  std::optional<int64_t> shift() {
    return level(&IntegerText::sum, {"<<", ">>"}, [](std::string_view op, int64_t l, int64_t r) -> std::optional<int64_t> {
      if (r < 0 || r > 40) return std::nullopt;
      return op == "<<" ? l << r : l >> r;
    });
  }
  std::optional<int64_t> sum() {
    return level(&IntegerText::product, {"+", "-"}, [](std::string_view op, int64_t l, int64_t r) -> std::optional<int64_t> {
      return op == "+" ? l + r : l - r;
    });
  }
  std::optional<int64_t> product() {
    return level(&IntegerText::unary, {"*", "/", "%"}, [](std::string_view op, int64_t l, int64_t r) -> std::optional<int64_t> {
      if (op != "*" && r == 0) return std::nullopt;
      int64_t v = op == "*" ? l * r : op == "/" ? l / r : l % r;
      if (std::abs(v) > kMaxValue) return std::nullopt;
      return v;
    });
  }
  std::optional<int64_t> unary() {
    if (take("-")) {
      auto v = unary();
      return v ? std::optional<int64_t>(-*v) : std::nullopt;
    }
    if (take("+")) return unary();
    return primary();
  }
  std::string identifier() {
    skip_space();
    size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                   (text_[pos_] == ':' && pos_ + 1 < text_.size() && text_[pos_ + 1] == ':' && ++pos_)))
      ++pos_;
    return text_.substr(start, pos_ - start);
  }
  std::optional<int64_t> primary() {
    skip_space();
    if (pos_ >= text_.size()) return std::nullopt;
    char c = text_[pos_];
    if (c == '(') {
      // `(int)x`: a cast to an integer type changes no launch dimension.
      size_t at = ++pos_;
      std::string type = identifier();
      if (!type.empty() && (type == "int" || type == "unsigned" || type == "size_t" || type == "int64_t" ||
                            type == "uint32_t" || type == "long") && take(")"))
        return unary();
      pos_ = at;
      auto v = conditional();
      return v && take(")") ? v : std::nullopt;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t used = 0;
      int64_t v = 0;
      try {
        v = std::stoll(text_.substr(pos_), &used, 0);
      } catch (...) {
        return std::nullopt;
      }
      pos_ += used;
      while (pos_ < text_.size() && std::strchr("uUlL", text_[pos_])) ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'f' || text_[pos_] == 'e')) return std::nullopt;
      return v;
    }
    std::string name = identifier();
    if (name.empty() || depth_ >= kMaxDepth) return std::nullopt;
    if (name == "min" || name == "max" || name == "std::min" || name == "std::max") {
      if (!take("(")) return std::nullopt;
      auto a = conditional();
      if (!a || !take(",")) return std::nullopt;
      auto b = conditional();
      if (!b || !take(")")) return std::nullopt;
      return name.find("min") != std::string::npos ? std::min(*a, *b) : std::max(*a, *b);
    }
    auto text = resolve_(name);
    if (!text) return std::nullopt;
    return IntegerText(*text, resolve_, depth_ + 1).value();
  }

  std::string text_;
  const Resolve& resolve_;
  int depth_;
  size_t pos_ = 0;
};

// `dim3(a, b)`, `dim3{a, b}` or one integer: three dimensions, the ones not given 1.
std::optional<std::vector<int64_t>> dimensions(std::string text, const IntegerText::Resolve& resolve, int depth = 0) {
  auto trimmed = [](std::string s) {
    size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
  };
  text = trimmed(text);
  if (text.rfind("dim3", 0) == 0) text = trimmed(text.substr(4));
  std::vector<std::string> parts;
  if (!text.empty() && (text.front() == '(' || text.front() == '{') && (text.back() == ')' || text.back() == '}')) {
    int level = 0;
    std::string piece;
    for (char c : text.substr(1, text.size() - 2)) {
      if (c == '(' || c == '{' || c == '[') ++level;
      if (c == ')' || c == '}' || c == ']') --level;
      if (c == ',' && level == 0) {
        parts.push_back(piece);
        piece.clear();
      } else {
        piece += c;
      }
    }
    parts.push_back(piece);
  } else {
    // A name bound to a dim3 (`dim3 block(32, 8);`) resolves to its dimensions.
    bool name = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
    if (name && !std::isdigit(static_cast<unsigned char>(text[0])) && depth < kMaxDepth)
      if (auto bound = resolve(text); bound && bound->find("dim3") != std::string::npos)
        return dimensions(*bound, resolve, depth + 1);
    parts.push_back(text);
  }
  if (parts.empty() || parts.size() > 3) return std::nullopt;
  std::vector<int64_t> out;
  for (const auto& p : parts) {
    auto v = IntegerText(p, resolve, depth).value();
    if (!v || *v < 1 || *v > kMaxValue) return std::nullopt;
    out.push_back(*v);
  }
  while (out.size() < 3) out.push_back(1);
  return out;
}

}  // namespace

UnitLaunches::UnitLaunches(const CudaSource& unit, std::map<std::string, std::string> defines)
    : unit_(unit), defines_(std::move(defines)) {
  walk(unit.root(), [&](TSNode n) {
    if (is(n, "preproc_def") && !ts_node_is_null(field_of(n, "value"))) {
      unit_values_.emplace(unit.text_of(field_of(n, "name")), unit.text_of(field_of(n, "value")));
      return;
    }
    if (!is(n, "call_expression")) return;
    TSNode syntax{};
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
      if (is(ts_node_named_child(n, i), "kernel_call_syntax")) syntax = ts_node_named_child(n, i);
    if (ts_node_is_null(syntax) || ts_node_named_child_count(syntax) < 2) return;
    TSNode callee = field_of(n, "function");
    if (is(callee, "template_function")) callee = field_of(callee, "name");
    std::string name = unit.text_of(callee);
    if (size_t colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
    launches_[name].push_back(syntax);
  });
  for (const auto& [name, value] : unit.constants()) unit_values_.emplace(name, value);
}

LaunchConfig UnitLaunches::of(const CudaKernelSite& site) const {
  LaunchConfig out;
  auto calls = launches_.find(site.name);
  if (calls == launches_.end()) return out;
  uint32_t kernel_start = ts_node_start_byte(site.node), kernel_end = ts_node_end_byte(site.node);
  for (TSNode syntax : calls->second) {
    TSNode call = ts_node_parent(syntax);
    if (ts_node_start_byte(call) >= kernel_start && ts_node_end_byte(call) <= kernel_end) continue;
    // Declarations of the launching function before the launch, the last one first.
    TSNode body{};
    for (TSNode up = ts_node_parent(call); !ts_node_is_null(up); up = ts_node_parent(up))
      if (is(up, "function_definition")) {
        body = field_of(up, "body");
        break;
      }
    std::map<std::string, std::string> locals;
    if (!ts_node_is_null(body))
      walk(body, [&](TSNode c) {
        if (!is(c, "init_declarator") || ts_node_start_byte(c) >= ts_node_start_byte(call)) return;
        TSNode value = field_of(c, "value");
        std::string text = unit_.text_of(value);
        if (is(value, "argument_list") || is(value, "initializer_list")) text = "dim3" + text;
        locals[unit_.text_of(field_of(c, "declarator"))] = text;
      });
    IntegerText::Resolve resolve = [&](const std::string& n) -> std::optional<std::string> {
      if (auto l = locals.find(n); l != locals.end()) return l->second;
      if (auto u = unit_values_.find(n); u != unit_values_.end()) return u->second;
      if (auto d = defines_.find(n); d != defines_.end()) return d->second;
      return std::nullopt;
    };
    auto block = dimensions(unit_.text_of(ts_node_named_child(syntax, 1)), resolve);
    if (!block) continue;
    out.block = *block;
    if (auto grid = dimensions(unit_.text_of(ts_node_named_child(syntax, 0)), resolve)) out.grid = *grid;
    out.line = line_of(call);
    return out;
  }
  return out;
}

}  // namespace mine
