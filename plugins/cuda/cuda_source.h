#pragma once
#include <tree_sitter/api.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/plugin.h"

extern "C" const TSLanguage* tree_sitter_cuda();

namespace mine {

class IncludeResolver;

// One top-level item of a CUDA translation unit and the names it defines and mentions.
// Containers (namespaces, extern "C" blocks, #if/#ifdef blocks) are one item: splitting them
// would break the preprocessor or scoping structure they carry.
struct CudaItem {
  TSNode node{};
  std::string kind;  // include | macro | function | device_function | kernel | template | type | variable | container | other
  std::set<std::string> defines;
  std::set<std::string> mentions;  // every identifier-like token; C has no cheap scope analysis
  bool local_include = false;      // #include "..." (lives in the repository, not the toolkit)
};

// A __global__ function found anywhere in the unit (top level, in a namespace, under #if, as a template).
struct CudaKernelSite {
  TSNode node{};           // the template_declaration when templated, else the function_definition
  std::string name;
  std::string qualname;    // `ns::name` inside namespaces
  size_t item = 0;         // index of the top-level item holding it
  std::vector<TSNode> namespaces;  // enclosing namespace_definitions, outermost first
};

// A parsed CUDA C++ source. Nodes stay valid as long as the object lives.
class CudaSource {
 public:
  explicit CudaSource(std::string text);
  ~CudaSource();
  CudaSource(const CudaSource&) = delete;
  CudaSource& operator=(const CudaSource&) = delete;

  const std::string& text() const { return text_; }
  std::string text_of(TSNode n) const;
  TSNode root() const { return ts_tree_root_node(tree_); }
  const std::vector<CudaItem>& items() const { return items_; }
  const std::vector<CudaKernelSite>& kernels() const { return kernels_; }
  // Names declared const or constexpr with a value outside any function, at file scope or in a
  // namespace, extern "C" or #if block (`namespace { constexpr int THREADS = 256; }`): name to
  // the value's text. `file_scope`: only those file scope code names unqualified (not in a named
  // namespace).
  std::map<std::string, std::string> constants(bool file_scope = false) const;

  // The kernel with the same-unit definitions it reaches (transitively), every include, and a
  // standalone translation unit made of them in source order. `line_offset` shifts reported lines
  // (for sources embedded in another file).
  // With `includes`, the repository's headers the unit includes take part as if pasted in place.
  // `build_defines`: macros the repository's build defines for the unit, name to value (they head
  // the standalone), which a launch may hand a template (`k<_N_><<<...>>>`).
  ExtractedKernel extract(const CudaKernelSite& site, const std::string& path, int line_offset,
                          IncludeResolver* includes = nullptr, const std::map<std::string, std::string>& build_defines = {}) const;

 private:
  // How a template kernel becomes a kernel in the standalone.
  struct Instantiation {
    bool explicit_item = false;  // the unit instantiates it itself: that item goes in
    size_t item = 0;
    std::string arguments_text;  // else `128, float`, or " " for all defaults; empty: none found
    TSNode arguments_node{};     // the launch's argument list the text came from, if any
    std::string from;            // where the arguments came from, for meta
    bool stand_ins = false;      // integer parameters given stand-ins (the last resort)
  };
  Instantiation instantiation_of(const CudaKernelSite& site, const std::map<std::string, std::string>& build_defines) const;
  bool counts_with(TSNode definition, const std::string& type, int depth = 0) const;
  bool counts_in_body(TSNode definition, const std::string& type) const;
  std::string template_parameter_name(TSNode definition, uint32_t index) const;
  std::string declared_name(TSNode function) const;
  // The names `n` spells (identifiers, types, namespaces); none for a null node.
  void identifiers_in(TSNode n, std::set<std::string>& out) const;
  void collect_kernels(TSNode n, size_t item, std::vector<TSNode>& namespaces, int depth);

  std::string text_;
  TSParser* parser_ = nullptr;
  TSTree* tree_ = nullptr;
  std::vector<CudaItem> items_;
  std::vector<CudaKernelSite> kernels_;
  // Every `#include "..."` of the unit in source order, at any depth (inside a namespace or an #if
  // block too): found once, looked up by byte range for each kernel extracted.
  std::vector<TSNode> local_includes_;
  bool has_includes_ = false;  // any #include, inside containers too
  bool guarded_ = false;       // an include guard around the whole text
};

}  // namespace mine
