#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plugins/inductor/python_literal.h"

namespace mine::inductor {

// What Inductor writes in the comments above a kernel in output_code.py, across versions:
// `# kernel path: ...`, `# [Topologically Sorted ]Source Nodes: [...], Original ATen: [...]`
// (or `# Original ATen: a, b` in 2023), and `node => aten nodes` lines.
struct KernelComments {
  std::string kernel_path;
  nlohmann::json aten_ops = nlohmann::json::array();
  nlohmann::json source_nodes = nlohmann::json::array();
  nlohmann::json node_mapping = nlohmann::json::object();  // source node -> [fx nodes]
};

KernelComments read_kernel_comments(const std::vector<std::string_view>& comments);

// One `name = async_compile.triton(...)` statement.
struct KernelCall {
  std::string variable;          // the name it is bound to
  std::string registered_name;   // the name argument, when the call has one
  std::optional<std::string> source;  // the source string's value, when it is a literal
  int source_line = 0;           // line of the source literal's opening quotes
  int start_line = 0, end_line = 0;
  KernelComments comments;
};

// Every async_compile.triton call bound at module level (also inside error-recovery nodes, so a
// truncated file still gives the kernels before the damage).
std::vector<KernelCall> find_kernel_calls(TSNode root, const SourceText& tree);
inline std::vector<KernelCall> find_kernel_calls(const SyntaxTree& tree) { return find_kernel_calls(tree.root(), tree); }

// Lines where a plain text scan sees `async_compile.triton(` outside comments: the calls a
// reader should find, to report those the syntax tree lost.
std::vector<int> kernel_call_lines_by_text(std::string_view text);

// Starts of the lines that bind a kernel at column 0 (`name = async_compile.triton(`) before `end`.
std::vector<size_t> kernel_binding_lines(std::string_view text, size_t end = std::string_view::npos);

// True when `text` is an output-code module as Inductor writes it: `async_compile = AsyncCompile()`
// and at least one `name = async_compile.triton(` at the start of a line. Inductor's own sources
// and user code mention the call only indented or quoted.
bool is_output_code(std::string_view text);

// Where the kernels of an output-code module end: the start of the line `async_compile.wait(`
// that Inductor writes after the last kernel call. What follows (the `call` function that runs
// the graph, benchmark code) defines no kernel, so a reader may parse only the text before it.
// npos when there is no such line after the last call.
size_t kernel_region_end(std::string_view text);

// Inline strings start after `'''` and the cache file holds the same code: both normalize to the
// code without leading blank lines, ending in exactly one newline.
std::string normalized_module(std::string_view source);

}  // namespace mine::inductor
