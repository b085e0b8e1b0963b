#include "core/export/chat_prompt.h"

#include <algorithm>
#include <sstream>

#include "core/python/syntax_tree.h"

namespace mine {
namespace {

std::string collapse_whitespace(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\t' || c == ' ' || c == '\r' || c == '\\') {
      space = !out.empty();
      continue;
    }
    if (space && c != ')' && c != ',' && c != ']' && out.back() != '(' && out.back() != '[') out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::string string_literal_text(std::string_view raw) {
  size_t p = 0;
  while (p < raw.size() && raw[p] != '\'' && raw[p] != '"') ++p;
  if (p >= raw.size()) return "";
  char q = raw[p];
  size_t qlen = (raw.size() >= p + 6 && raw[p + 1] == q && raw[p + 2] == q) ? 3 : 1;
  if (raw.size() < p + 2 * qlen) return "";
  std::string body(raw.substr(p + qlen, raw.size() - p - 2 * qlen));
  // Dedent: drop the common leading spaces of the lines after the first, trim blank ends.
  std::istringstream in(body);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  size_t indent = std::string::npos;
  for (size_t i = 1; i < lines.size(); ++i) {
    size_t f = lines[i].find_first_not_of(' ');
    if (f != std::string::npos) indent = std::min(indent, f);
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string l = lines[i];
    if (i > 0 && indent != std::string::npos && l.size() >= indent) l = l.substr(indent);
    if (i == 0) l = l.substr(std::min(l.size(), l.find_first_not_of(' ') == std::string::npos ? l.size() : l.find_first_not_of(' ')));
    out += l + "\n";
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

TSNode find_function(TSNode n, const SyntaxTree& tree, const std::string& name) {
  std::vector<TSNode> stack{n};
  while (!stack.empty()) {
    TSNode c = stack.back();
    stack.pop_back();
    if (is_type(c, "function_definition")) {
      TSNode nm = field(c, "name");
      if (!ts_node_is_null(nm) && tree.text_of(nm) == name) return c;
    }
    uint32_t k = ts_node_named_child_count(c);
    for (uint32_t i = k; i > 0; --i) stack.push_back(ts_node_named_child(c, i - 1));
  }
  return TSNode{};
}

}  // namespace

KernelHeader read_kernel_header(const std::string& source, const std::string& name) {
  KernelHeader h;
  auto tree = SyntaxTree::parse(source);
  TSNode fn = find_function(tree->root(), *tree, name);
  if (ts_node_is_null(fn)) return h;
  TSNode body = field(fn, "body");
  uint32_t start = ts_node_start_byte(fn);
  uint32_t end = ts_node_is_null(body) ? ts_node_end_byte(fn) : ts_node_start_byte(body);
  // Comments inside a multi-line header would end up inside the one-line signature: cut them out.
  std::string raw;
  uint32_t at = start;
  std::vector<TSNode> stack{fn};
  std::vector<std::pair<uint32_t, uint32_t>> comments;
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (ts_node_start_byte(n) >= end) continue;
    if (is_type(n, "comment")) comments.emplace_back(ts_node_start_byte(n), ts_node_end_byte(n));
    uint32_t k = ts_node_child_count(n);
    for (uint32_t i = 0; i < k; ++i) stack.push_back(ts_node_child(n, i));
  }
  std::sort(comments.begin(), comments.end());
  for (const auto& [b, e] : comments) {
    if (b < at) continue;
    raw += tree->text().substr(at, b - at);
    at = e;
  }
  if (at < end) raw += tree->text().substr(at, end - at);
  std::string header = collapse_whitespace(raw);
  size_t colon = header.rfind(':');
  if (colon != std::string::npos) header = header.substr(0, colon + 1);
  h.signature = header;
  if (!ts_node_is_null(body) && ts_node_named_child_count(body) > 0) {
    TSNode first = ts_node_named_child(body, 0);
    if (is_type(first, "expression_statement") && ts_node_named_child_count(first) == 1 &&
        is_type(ts_node_named_child(first, 0), "string"))
      h.docstring = string_literal_text(tree->text_of(ts_node_named_child(first, 0)));
  }
  return h;
}

KernelHeader read_cuda_header(const std::string& source) {
  KernelHeader h;
  size_t body = source.find('{');
  if (body == std::string::npos) return h;
  // Comment and preprocessor lines above the declaration are no part of it.
  std::istringstream in(source.substr(0, body));
  std::string declaration;
  for (std::string line; std::getline(in, line);) {
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line.compare(first, 2, "//") == 0 || line[first] == '#') continue;
    declaration += line + "\n";
  }
  h.signature = collapse_whitespace(declaration);
  return h;
}

namespace {

std::string helpers_sentence(const std::vector<std::string>& helpers) {
  std::string out = "It may call these helper functions, which you define too: ";
  for (size_t i = 0; i < helpers.size(); ++i) out += (i ? ", `" : "`") + helpers[i] + "`";
  return out + ".";
}

// How a prompt names the kernel's language and what it asks back.
struct LanguageWords {
  std::string kernel;  // "Triton kernel"
  std::string fence;   // tag of the signature's fence
  std::string answer;  // what the answer must be
};

LanguageWords words_for(const PromptFacts& f) {
  if (f.language == "cuda") return {"CUDA C++ kernel", "cuda", "a complete CUDA C++ source file with its includes"};
  std::string name = f.plugin == "triton" ? "Triton" : f.plugin == "numba" ? "Numba CUDA" : f.plugin;
  return {name + " kernel", "python", "a complete Python module with its imports"};
}

}  // namespace

std::string chat_prompt(const PromptFacts& f) {
  std::ostringstream p;
  KernelHeader h = f.language == "cuda" ? read_cuda_header(f.source) : read_kernel_header(f.source, f.name);
  if (f.plugin == "inductor") {
    std::string category = f.meta.value("category", std::string());
    p << "Write the Triton kernel that PyTorch Inductor generates";
    if (!category.empty()) p << " (a " << category << " kernel)";
    auto ops = f.meta.find("aten_ops");
    if (ops != f.meta.end() && ops->is_array() && !ops->empty()) {
      p << " for these ATen ops: ";
      for (size_t i = 0; i < ops->size(); ++i) p << (i ? ", " : "") << (*ops)[i].get<std::string>();
    }
    p << ".\n";
    auto code = f.meta.find("pytorch_code");
    if (code != f.meta.end() && code->is_array() && !code->empty()) {
      p << "\nThe PyTorch code it fuses:\n```python\n";
      for (const auto& line : *code)
        if (line.is_object()) p << line.value("code", std::string()) << "\n";
      p << "```\n";
    }
    if (!h.signature.empty()) p << "\nUse this signature:\n```python\n" << h.signature << "\n```\n";
    p << "\nReturn a complete Python module with its imports.";
    return p.str();
  }
  LanguageWords words = words_for(f);
  if (!f.launcher.empty()) {
    // The answer is a runnable unit: the launcher that takes tensors and the kernel it launches.
    KernelHeader l = read_kernel_header(f.launcher_source, f.launcher);
    p << "Implement `" << f.launcher << "` with " << (f.plugin == "triton" ? "Triton" : words.kernel);
    if (!l.docstring.empty()) p << ":\n\n" << l.docstring << "\n";
    else p << ".\n";
    if (!l.signature.empty()) p << "\nUse this signature:\n```python\n" << l.signature << "\n```\n";
    p << "\nWrite the kernel (name it `" << f.name << "`) and the function `" << f.launcher
      << "` that allocates its outputs and launches it.";
    if (!f.helpers.empty()) p << " " << helpers_sentence(f.helpers);
    p << "\n\nReturn " << words.answer << ".";
    return p.str();
  }
  p << "Write a " << words.kernel << " named `" << f.name << "`";
  if (!h.docstring.empty()) {
    p << " that does the following:\n\n" << h.docstring << "\n";
  } else {
    p << ".\n";
  }
  if (!h.signature.empty()) p << "\nUse this signature:\n```" << words.fence << "\n" << h.signature << "\n```\n";
  if (!f.helpers.empty()) p << "\n" << helpers_sentence(f.helpers) << "\n";
  p << "\nReturn " << words.answer << ".";
  return p.str();
}

}  // namespace mine
