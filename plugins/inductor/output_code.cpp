#include "plugins/inductor/output_code.h"

#include <cctype>

#include "plugins/inductor/python_literal.h"

namespace mine::inductor {
namespace {

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

nlohmann::json split_list(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '[') s.remove_prefix(1);
  if (!s.empty() && s.back() == ']') s.remove_suffix(1);
  nlohmann::json out = nlohmann::json::array();
  while (!s.empty()) {
    size_t comma = s.find(',');
    std::string_view item = trim(s.substr(0, comma));
    if (!item.empty()) out.push_back(std::string(item));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

// `assignment` read as a kernel call, when it is one. `statement` is the module statement it
// is (the assignment or its expression_statement); `comments` are those right above it.
std::optional<KernelCall> kernel_call(const SourceText& tree, TSNode assignment, TSNode statement,
                                      const std::vector<TSNode>& comments) {
  if (!is_type(assignment, "assignment")) return std::nullopt;
  TSNode right = field(assignment, "right");
  if (!is_type(right, "call") || tree.text_of(field(right, "function")) != "async_compile.triton") return std::nullopt;
  KernelCall call;
  call.variable = std::string(tree.text_of(field(assignment, "left")));
  call.start_line = first_line(statement);
  call.end_line = last_line(statement);
  std::vector<TSNode> positional;
  TSNode source{};
  for_each_named_child(field(right, "arguments"), [&](TSNode a) {
    if (is_type(a, "comment")) return;
    if (!is_type(a, "keyword_argument")) return positional.push_back(a);
    std::string_view key = tree.text_of(field(a, "name"));
    if (key == "source_code") source = field(a, "value");
    if (key == "kernel_name") positional.insert(positional.begin(), field(a, "value"));
  });
  // 2023 Inductor passed the source alone; later versions pass (name, source). A lone
  // argument that is a plain name is the name of a kernel whose source is elsewhere.
  std::optional<std::string> first = positional.empty() ? std::nullopt : string_value(tree, positional[0]);
  bool first_is_name = first && !first->empty() && first->find_first_of(" \t\r\n()") == std::string::npos;
  if (ts_node_is_null(source) && positional.size() >= 2) source = positional[1];
  if (ts_node_is_null(source) && positional.size() == 1 && !first_is_name) source = positional[0];
  if (first_is_name) call.registered_name = *first;
  if (!ts_node_is_null(source)) {
    call.source = string_value(tree, source);
    call.source_line = first_line(source);
    if (call.source && call.source->find_first_not_of(" \t\r\n") == std::string::npos) call.source.reset();
  }
  std::vector<std::string_view> texts;
  for (TSNode c : comments) texts.push_back(tree.text_of(c));
  call.comments = read_kernel_comments(texts);
  return call;
}

// Kernel calls among the children of `n`, and below them (module-level blocks, error-recovery
// nodes), never inside functions, classes or strings. Children are walked with a cursor and the
// comments above each statement collected on the way: ts_node_named_child, ts_node_prev_sibling
// and ts_node_parent each walk from the first child or the root, quadratic over a module's
// hundreds of statements.
void collect_calls(const SourceText& tree, TSNode n, std::vector<KernelCall>& out, int depth) {
  std::string_view type = node_type(n);
  if (depth > 200 || type == "function_definition" || type == "class_definition" || type == "string") return;
  std::vector<TSNode> comments;  // the comments right above the current child
  TSTreeCursor cursor = ts_tree_cursor_new(n);
  for (bool more = ts_tree_cursor_goto_first_child(&cursor); more; more = ts_tree_cursor_goto_next_sibling(&cursor)) {
    TSNode child = ts_tree_cursor_current_node(&cursor);
    if (is_type(child, "comment")) {
      comments.push_back(child);
      continue;
    }
    std::optional<KernelCall> call = kernel_call(tree, child, child, comments);
    if (!call && is_type(child, "expression_statement"))
      for_each_named_child(child, [&](TSNode c) {
        if (!call) call = kernel_call(tree, c, child, comments);
      });
    if (call) out.push_back(std::move(*call));
    else if (ts_node_is_named(child)) collect_calls(tree, child, out, depth + 1);
    comments.clear();
  }
  ts_tree_cursor_delete(&cursor);
}

}  // namespace

KernelComments read_kernel_comments(const std::vector<std::string_view>& comments) {
  KernelComments c;
  bool fragment = false;
  for (std::string_view raw : comments) {
    std::string_view line = trim(raw);
    if (starts_with(line, "#")) line = trim(line.substr(1));
    if (starts_with(line, "kernel path:")) {
      c.kernel_path = std::string(trim(line.substr(12)));
      fragment = false;
      continue;
    }
    if (starts_with(line, "Graph fragment:")) {
      fragment = true;  // FX node dumps follow; they hold no `=>` mappings of ours
      continue;
    }
    if (fragment) continue;
    size_t aten = line.find("Original ATen:");
    if (aten != std::string_view::npos) {
      c.aten_ops = split_list(line.substr(aten + 14));
      size_t nodes = line.find("Source Nodes:");
      if (nodes != std::string_view::npos && nodes < aten) {
        std::string_view list = line.substr(nodes + 13, aten - nodes - 13);
        list = trim(list);
        if (!list.empty() && list.back() == ',') list.remove_suffix(1);
        c.source_nodes = split_list(list);
      }
      continue;
    }
    size_t arrow = line.find(" => ");
    if (arrow != std::string_view::npos) {
      std::string lhs(trim(line.substr(0, arrow)));
      if (!lhs.empty()) c.node_mapping[lhs] = split_list(line.substr(arrow + 4));
    }
  }
  return c;
}

std::vector<KernelCall> find_kernel_calls(TSNode root, const SourceText& tree) {
  std::vector<KernelCall> out;
  collect_calls(tree, root, out, 0);
  return out;
}

std::vector<int> kernel_call_lines_by_text(std::string_view text) {
  std::vector<int> lines;
  static constexpr std::string_view kCall = "async_compile.triton(";
  int line = 1;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    std::string_view l = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    size_t at = l.find(kCall);
    if (at != std::string_view::npos && l.substr(0, at).find('#') == std::string_view::npos) lines.push_back(line);
    if (end == std::string_view::npos) break;
    start = end + 1;
    ++line;
  }
  return lines;
}

namespace {

constexpr std::string_view kKernelCall = "async_compile.triton(";

size_t line_start(std::string_view text, size_t at) {
  size_t nl = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

bool at_line_start(std::string_view text, std::string_view line) {
  if (text.substr(0, line.size()) == line) return true;
  std::string nl_line = "\n" + std::string(line);
  return text.find(nl_line) != std::string_view::npos;
}

}  // namespace

std::vector<size_t> kernel_binding_lines(std::string_view text, size_t end) {
  std::vector<size_t> out;
  for (size_t at = text.find(kKernelCall); at < end && at != std::string_view::npos; at = text.find(kKernelCall, at + 1)) {
    size_t ls = line_start(text, at);
    std::string_view head = text.substr(ls, at - ls);
    if (head.size() > 3 && head.substr(head.size() - 3) == " = " && is_identifier(head.substr(0, head.size() - 3)) &&
        (out.empty() || out.back() != ls))
      out.push_back(ls);
  }
  return out;
}

bool is_output_code(std::string_view text) {
  return at_line_start(text, "async_compile = AsyncCompile()") && !kernel_binding_lines(text).empty();
}

size_t kernel_region_end(std::string_view text) {
  size_t last = std::string_view::npos;
  for (size_t at = text.find(kKernelCall); at != std::string_view::npos; at = text.find(kKernelCall, at + 1))
    if (text.substr(line_start(text, at), at - line_start(text, at)).find('#') == std::string_view::npos) last = at;
  if (last == std::string_view::npos) return std::string_view::npos;
  size_t wait = text.find("\nasync_compile.wait(", last);
  return wait == std::string_view::npos ? wait : wait + 1;
}

std::string normalized_module(std::string_view source) {
  size_t begin = 0;
  while (begin < source.size()) {
    size_t eol = source.find('\n', begin);
    if (eol == std::string_view::npos) break;
    if (trim(source.substr(begin, eol - begin)).empty()) begin = eol + 1;
    else break;
  }
  size_t end = source.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos || end < begin) return "";
  return std::string(source.substr(begin, end - begin + 1)) + "\n";
}

}  // namespace mine::inductor
