#pragma once
// C++ conveniences over include/mine/plugin.h for plugins written in C++. Everything here goes
// through the C ABI's host table: a plugin built on it needs nothing else of mine.
#include "include/mine/plugin.h"
#include "include/mine/ts_nodes.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mine::sdk {

using namespace ts;  // node_type, is_type, field, first_line, last_line, for_each_named_child

// One file (or, in a label callback, one module of the repository) as the host shows it.
class PythonFile {
 public:
  PythonFile(const mine_host* host, const mine_file* file) : host_(host), file_(file) {}

  const mine_host* host() const { return host_; }
  const mine_file* handle() const { return file_; }
  std::string path() const { return host_->file_path(file_); }
  std::string_view text() const {
    size_t n = 0;
    const char* t = host_->file_text(file_, &n);
    return {t, n};
  }
  const TSTree* tree() const { return host_->python_tree(file_); }  // nullptr: not Python
  TSNode root() const { return ts_tree_root_node(tree()); }

  std::string_view view_of(TSNode n) const {
    size_t len = 0;
    const char* t = host_->python_node_text(file_, n, &len);
    return {t, len};
  }
  std::string text_of(TSNode n) const { return std::string(view_of(n)); }
  std::string dedented_text(TSNode n, int indent) const { return host_->python_dedented_text(file_, n, indent); }
  std::optional<std::string> qualified_name(TSNode n) const {
    const char* q = host_->python_qualified_name(file_, n);
    return q ? std::optional<std::string>(q) : std::nullopt;
  }

  size_t function_count() const { return host_->python_function_count(file_); }
  mine_python_function function(size_t i) const {
    mine_python_function f{};
    host_->python_function(file_, i, &f);
    return f;
  }
  std::vector<TSNode> decorators(size_t function, size_t count) const {
    std::vector<TSNode> out;
    for (size_t d = 0; d < count; ++d) out.push_back(host_->python_decorator_node(file_, function, d));
    return out;
  }
  std::string decorator_name(size_t function, size_t d) const {
    const char* n = host_->python_decorator(file_, function, d);
    return n ? n : "";
  }
  std::string parameters_json(size_t function) const { return host_->python_parameters(file_, function); }

  size_t statement_count() const { return host_->python_statement_count(file_); }
  mine_python_statement statement(size_t i) const {
    mine_python_statement s{};
    host_->python_statement(file_, i, &s);
    return s;
  }
  std::vector<size_t> bindings_of(const std::string& name) const {
    size_t n = host_->python_bindings(file_, name.c_str(), nullptr, 0);
    std::vector<size_t> out(n);
    if (n) host_->python_bindings(file_, name.c_str(), out.data(), n);
    return out;
  }
  // Other files of the repository whose text calls `name`, at most `limit` (mine_host's
  // python_files_calling): whether they call this file's `name` is the caller's to check.
  std::vector<PythonFile> files_calling(const std::string& name, size_t limit) const {
    std::vector<const mine_file*> handles(limit);
    size_t n = limit ? host_->python_files_calling(file_, name.c_str(), handles.data(), limit) : 0;
    std::vector<PythonFile> out;
    for (size_t i = 0; i < n && i < limit; ++i) out.emplace_back(host_, handles[i]);
    return out;
  }
  // Any file of the repository by path (mine_host's repository_file_text); none outside a scan.
  std::optional<std::string_view> repository_file(const std::string& path) const {
    size_t n = 0;
    const char* t = host_->repository_file_text ? host_->repository_file_text(file_, path.c_str(), &n) : nullptr;
    if (!t) return std::nullopt;
    return std::string_view(t, n);
  }
  // The repository's paths equal to `tail` or ending in "/" + `tail`, in path order.
  std::vector<std::string> repository_paths_ending(const std::string& tail) const {
    size_t n = host_->repository_paths_ending ? host_->repository_paths_ending(file_, tail.c_str(), nullptr, 0) : 0;
    std::vector<const char*> raw(n);
    if (n) n = std::min(n, host_->repository_paths_ending(file_, tail.c_str(), raw.data(), n));
    return std::vector<std::string>(raw.begin(), raw.begin() + static_cast<std::ptrdiff_t>(n));
  }

 private:
  const mine_host* host_;
  const mine_file* file_;
};

// Value of keyword argument `name` in a call node, or a null node.
TSNode keyword_argument(const PythonFile& file, TSNode call, const std::string& name);

}  // namespace mine::sdk
