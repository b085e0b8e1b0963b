#include "plugins/cuda/embedded_sources.h"

#include <cctype>

namespace mine {
namespace {

using namespace sdk;

struct Compiler {
  const char* name;
  int code_position;       // positional index of the source argument
  const char* code_keyword;
  int name_position;       // positional index of the kernel name, -1 when none
};

const Compiler kCompilers[] = {
    {"cupy.RawKernel", 0, "code", 1},
    {"cupy.RawModule", 0, "code", -1},
    {"cupy.cuda.compiler.compile_with_cache", 0, "source", -1},
    {"torch.utils.cpp_extension.load_inline", 2, "cuda_sources", -1},
};

TSNode argument(const PythonFile& m, TSNode call, int position, const char* keyword) {
  TSNode found{};
  int index = 0;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (!ts_node_is_null(found)) return;
    if (is_type(a, "keyword_argument")) {
      if (keyword && m.view_of(field(a, "name")) == keyword) found = field(a, "value");
    } else if (!is_type(a, "list_splat") && !is_type(a, "dictionary_splat")) {
      if (index++ == position) found = a;
    }
  });
  return found;
}

// The literal an expression stands for, following one module-level `NAME = "..."`.
TSNode literal_of(const PythonFile& m, TSNode n) {
  if (is_type(n, "identifier")) {
    auto bindings = m.bindings_of(m.text_of(n));
    if (bindings.size() != 1) return TSNode{};
    mine_python_statement s = m.statement(bindings[0]);
    if (s.kind != MINE_STATEMENT_ASSIGNMENT) return TSNode{};
    TSNode assign = ts_node_named_child(s.node, 0);
    if (!is_type(assign, "assignment")) return TSNode{};
    return field(assign, "right");
  }
  return n;
}

// Appends the sources `n` holds: a string, an implicit concatenation, a list/tuple of them.
void read_sources(const PythonFile& m, TSNode n, const std::string& host, std::vector<EmbeddedSource>& out,
                  std::vector<std::pair<int, std::string>>& skipped, int depth = 0) {
  if (ts_node_is_null(n) || depth > 4) return;
  TSNode lit = literal_of(m, n);
  if (ts_node_is_null(lit)) {
    skipped.push_back({first_line(n), "source of " + host + " is not a literal or a module-level string constant"});
    return;
  }
  if (is_type(lit, "list") || is_type(lit, "tuple")) {
    for_each_named_child(lit, [&](TSNode e) { read_sources(m, e, host, out, skipped, depth + 1); });
    return;
  }
  EmbeddedSource s;
  s.host = host;
  s.line_offset = first_line(lit) - 1;
  s.string_start = ts_node_start_byte(lit);
  bool ok = false;
  if (is_type(lit, "string")) {
    ok = python_string_value(m.text_of(lit), s.code);
  } else if (is_type(lit, "concatenated_string")) {
    ok = true;
    for_each_named_child(lit, [&](TSNode part) {
      std::string v;
      ok = ok && python_string_value(m.text_of(part), v);
      s.code += v;
    });
  }
  if (!ok) {
    skipped.push_back({first_line(lit), "source of " + host + " is computed (f-string or expression); not read"});
    return;
  }
  out.push_back(std::move(s));
}

}  // namespace

bool python_string_value(const std::string& literal, std::string& value) {
  size_t q = literal.find_first_of("'\"");
  if (q == std::string::npos) return false;
  std::string prefix = literal.substr(0, q);
  bool raw = false;
  for (char c : prefix) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l == 'f' || l == 'b') return false;
    if (l == 'r') raw = true;
  }
  size_t quote_len = literal.compare(q, 3, std::string(3, literal[q])) == 0 ? 3 : 1;
  if (literal.size() < q + 2 * quote_len) return false;
  std::string body = literal.substr(q + quote_len, literal.size() - q - 2 * quote_len);
  if (raw) {
    value = body;
    return true;
  }
  value.clear();
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      value += body[i];
      continue;
    }
    char e = body[++i];
    switch (e) {
      case 'n': value += '\n'; break;
      case 't': value += '\t'; break;
      case 'r': value += '\r'; break;
      case '0': value += '\0'; break;
      case '\\': value += '\\'; break;
      case '\'': value += '\''; break;
      case '"': value += '"'; break;
      case '\n': break;  // line continuation
      default: value += '\\'; value += e;
    }
  }
  return true;
}

std::vector<EmbeddedSource> embedded_cuda_sources(const PythonFile& m,
                                                  std::vector<std::pair<int, std::string>>& skipped) {
  std::vector<EmbeddedSource> out;
  TSTreeCursor c = ts_tree_cursor_new(m.root());
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    if (is_type(n, "call")) {
      auto q = m.qualified_name(n);
      for (const auto& compiler : kCompilers) {
        if (!q || *q != compiler.name) continue;
        size_t before = out.size();
        read_sources(m, argument(m, n, compiler.code_position, compiler.code_keyword), compiler.name, out, skipped);
        for (size_t i = before; i < out.size(); ++i) out[i].call = n;
        if (compiler.name_position >= 0) {
          TSNode name = argument(m, n, compiler.name_position, "name");
          std::string v;
          if (is_type(name, "string") && python_string_value(m.text_of(name), v))
            for (size_t i = before; i < out.size(); ++i) out[i].kernel_name = v;
        }
      }
    }
    if (ts_tree_cursor_goto_first_child(&c)) continue;
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
  return out;
}

}  // namespace mine
