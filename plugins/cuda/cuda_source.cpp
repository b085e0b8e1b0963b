#include "plugins/cuda/cuda_source.h"

#include <algorithm>
#include <functional>
#include <map>
#include <regex>

#include "core/error.h"
#include "plugins/cuda/cuda_tree.h"
#include "plugins/cuda/implied_includes.h"
#include "plugins/cuda/include_resolver.h"

namespace mine {
namespace {

constexpr int kMaxNesting = 200;
// Headers including headers: real trees rarely go past a handful of levels.
constexpr int kMaxIncludeDepth = 16;

using namespace cuda_tree;

bool has_token(TSNode n, std::string_view token, const std::string& text) {
  uint32_t count = ts_node_child_count(n);
  for (uint32_t i = 0; i < count; ++i) {
    TSNode c = ts_node_child(n, i);
    if (type_of(c) == token) return true;
    if (is(c, "type_qualifier") &&
        std::string_view(text).substr(ts_node_start_byte(c), ts_node_end_byte(c) - ts_node_start_byte(c)) == token)
      return true;
  }
  return false;
}

// Stand-ins for a template kernel's integer parameters (see instantiation_of): the check's
// default block (the harness's DEFAULT_BLOCK) and a small count.
const char* const kStandInThreads = "256";
const char* const kStandInCount = "4";

bool integral_type(const std::string& type) {
  static const std::regex integral(
      R"(^(const\s+)?((unsigned|signed)\s+)?(int|long|long\s+long|short|size_t|u?int(8|16|32|64)_t|unsigned|index_t)$)");
  return std::regex_match(type, integral);
}

// Whether the kernel sizes its thread block by template parameter `name`:
// `__launch_bounds__(BLOCK)`, `cub::BlockReduce<float, BLOCK>` (the thread count of CUB's
// block-wide algorithms, their second argument).
bool sizes_block(const std::string& kernel, const std::string& name) {
  if (name.empty()) return false;
  std::regex bounds("__launch_bounds__\\s*\\(\\s*" + name + "\\b");
  std::regex cub_block("Block[A-Z]\\w*\\s*<\\s*[^,<>;]+,\\s*" + name + "\\s*[,>]");  // the thread count
  return std::regex_search(kernel, bounds) || std::regex_search(kernel, cub_block);
}

// Whether `text` spells `name<` (a launch or instantiation of the template kernel `name`), not
// only its definition `name(`.
bool mentions_template_use(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
    size_t next = text.find_first_not_of(" \t", at + name.size());
    if (starts && next != std::string::npos && text[next] == '<') return true;
  }
  return false;
}

// Macros an nvcc build for Linux leaves undefined: other platforms' and compilers' (`_WIN32`,
// `_MSC_VER`, HIP's), and PyTorch's `USE_ROCM`, which only its ROCm builds define.
bool undefined_under_nvcc(const std::string& macro) {
  static const std::set<std::string> names = {"_WIN32", "_WIN64", "_MSC_VER", "__APPLE__", "__HIPCC__", "__HIP__",
                                              "__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__", "__HIP_DEVICE_COMPILE__",
                                              "USE_ROCM"};
  return names.count(macro) > 0;
}

bool is_container(TSNode n) {
  auto t = type_of(n);
  return t == "namespace_definition" || t == "linkage_specification" || t == "preproc_if" ||
         t == "preproc_ifdef" || t == "preproc_else" || t == "preproc_elif" || t == "declaration_list";
}

// The C library's and POSIX's headers, which every Linux host compiling CUDA has. A quoted
// include of one (`#include "assert.h"`) that the repository does not hold finds it too: a
// compiler falls back to the system folders for quoted names.
bool system_header(const std::string& header) {
  static const std::set<std::string> standard = {
      "assert.h", "ctype.h", "errno.h", "float.h", "limits.h", "math.h", "stddef.h", "stdint.h", "stdio.h",
      "stdlib.h", "string.h", "time.h", "stdbool.h", "inttypes.h", "memory.h", "stdarg.h", "signal.h",
      "locale.h", "wchar.h", "fenv.h", "setjmp.h", "complex.h", "unistd.h", "pthread.h", "dirent.h", "fcntl.h",
      "sched.h", "strings.h", "getopt.h", "libgen.h", "dlfcn.h", "omp.h"};
  static const std::regex posix_sys(R"(^(sys|arpa|netinet)/\w+\.h$)");
  return standard.count(header) > 0 || std::regex_match(header, posix_sys);
}

// The C++ library's headers, named without extension or folder: <vector>, <cstdio>.
bool library_header(const std::string& header) {
  return header.find('.') == std::string::npos && header.find('/') == std::string::npos;
}

// Headers nvcc finds on its own: the CUDA toolkit's and the C/C++ standard library's. Anything
// else lives in the repository or a third-party tree the standalone cannot see.
bool toolkit_header(const std::string& header) {
  static const std::regex toolkit(
      R"(^(cuda|cuComplex|cublas|cufft|curand|cusparse|cusolver|cudnn|nvrtc|nvtx3|nvToolsExt|nvml|nvfunctional|)"
      R"(cooperative_groups|cub/|thrust/|mma\.h|sm_\d+|device_|vector_|math_|crt/|texture_|surface_|driver_|host_|)"
      R"(channel_descriptor|common_functions|library_types|builtin_types)[\w/.]*$)");
  if (system_header(header)) return true;
  return library_header(header) || std::regex_match(header, toolkit);
}

// PyTorch's C++ headers (a CUDA extension's `torch/extension.h`, `ATen/cuda/CUDAContext.h`): not
// the repository's, and found wherever torch is installed (the check's GPU machine has it), so
// they stay in the standalone as external headers, as the toolkit's do.
bool torch_header(const std::string& header) {
  static const std::regex torch(R"(^(torch|ATen|c10|caffe2)/[\w/.]+$)");
  return std::regex_match(header, torch);
}

// The function a (possibly templated) definition defines: `template <...> __global__ void k(...)`
// holds its function_definition as a child. Null for anything else.
TSNode function_in(TSNode n) {
  if (is(n, "function_definition")) return n;
  TSNode fn{};
  if (is(n, "template_declaration"))
    for (uint32_t j = 0; j < ts_node_named_child_count(n); ++j)
      if (is(ts_node_named_child(n, j), "function_definition")) fn = ts_node_named_child(n, j);
  return fn;
}

// `"x.h"` -> `x.h`: an include's name as written between its quotes.
std::string unquoted(const std::string& quoted) {
  return quoted.size() > 2 ? quoted.substr(1, quoted.size() - 2) : quoted;
}

// Types nvcc knows without any #include (it includes cuda_runtime.h on its own).
bool implicit_type(const std::string& name) {
  static const std::regex builtin(
      R"(^((u?(char|short|int|long|longlong)|float|double)[1-4]|dim3|size_t|ptrdiff_t|u?int(8|16|32|64)_t|)"
      R"(cuda\w*_t|cuda\w+|CU\w+|__\w+|wchar_t|bool|nullptr_t)$)");
  return std::regex_match(name, builtin);
}

}  // namespace

CudaSource::CudaSource(std::string text) : text_(std::move(text)) {
  parser_ = ts_parser_new();
  if (!ts_parser_set_language(parser_, tree_sitter_cuda())) {
    ts_parser_delete(parser_);
    throw Error("tree-sitter-cuda grammar version is not supported by this tree-sitter");
  }
  // `struct __align__(16) STile {...}`: the grammar takes `__align__` for the struct's name, and the
  // struct for a function. The parse reads the text with each `__align__(...)` blanked (same
  // length, so every node's bytes are the original's, which the standalone keeps); the toolkit's
  // `__CUDA_ALIGN__(8)` (TensorRT-LLM's `typedef struct __CUDA_ALIGN__(8) {...} name;`) alike.
  std::string parsed = text_;
  for (std::string_view word : {std::string_view("__align__"), std::string_view("__CUDA_ALIGN__")})
    for (size_t at = parsed.find(word); at != std::string::npos; at = parsed.find(word, at + 1)) {
      size_t open = parsed.find_first_not_of(" \t", at + word.size());
      if (open == std::string::npos || parsed[open] != '(') continue;
      size_t close = parsed.find(')', open);
      if (close == std::string::npos || parsed.find('\n', open) < close) continue;
      std::fill(parsed.begin() + static_cast<std::ptrdiff_t>(at), parsed.begin() + static_cast<std::ptrdiff_t>(close) + 1,
                ' ');
    }
  tree_ = ts_parser_parse_string(parser_, nullptr, parsed.data(), static_cast<uint32_t>(parsed.size()));
  walk(root(), [&](TSNode c) {
    if (!is(c, "preproc_include")) return;
    has_includes_ = true;
    if (is(field_of(c, "path"), "string_literal")) local_includes_.push_back(c);
  });

  // Names a node defines, looking through declarators and into containers.
  std::function<void(TSNode, std::set<std::string>&, int)> defines = [&](TSNode n, std::set<std::string>& out,
                                                                        int depth) {
    if (depth > kMaxNesting || ts_node_is_null(n)) return;
    auto name_of_declarator = [&](TSNode d) {
      for (int guard = 0; guard < kMaxNesting && !ts_node_is_null(d); ++guard) {
        auto t = type_of(d);
        if (t == "identifier" || t == "type_identifier" || t == "field_identifier" || t == "operator_name") {
          out.insert(text_of(d));
          return;
        }
        if (t == "qualified_identifier" || t == "template_function") {
          d = field_of(d, "name");
          continue;
        }
        // `uint& as_uint(const bf2& x)`: a reference declarator holds its declarator unnamed.
        d = t == "reference_declarator" ? ts_node_named_child(d, 0) : field_of(d, "declarator");
      }
    };
    auto t = type_of(n);
    if (t == "preproc_def" || t == "preproc_function_def" || t == "struct_specifier" || t == "class_specifier" ||
        t == "union_specifier" || t == "alias_declaration" || t == "namespace_definition" ||
        t == "namespace_alias_definition") {
      TSNode name = field_of(n, "name");
      if (!ts_node_is_null(name)) out.insert(text_of(name));
      // `template <> struct InternalType<float> {...}`: a specialization defines the template's
      // name too, so that a kernel naming the template gets its specializations with it.
      if (is(name, "template_type") && !ts_node_is_null(field_of(name, "name"))) out.insert(text_of(field_of(name, "name")));
    }
    if (t == "enum_specifier") {
      TSNode name = field_of(n, "name");
      if (!ts_node_is_null(name)) out.insert(text_of(name));
      TSNode body = field_of(n, "body");
      for (uint32_t i = 0; !ts_node_is_null(body) && i < ts_node_named_child_count(body); ++i) {
        TSNode e = ts_node_named_child(body, i);
        if (is(e, "enumerator")) out.insert(text_of(field_of(e, "name")));
      }
    }
    if (t == "function_definition" || t == "declaration" || t == "type_definition" || t == "field_declaration") {
      // A cursor, not ts_node_field_name_for_child: the latter misreports fields in tree-sitter 0.20.
      TSTreeCursor c = ts_tree_cursor_new(n);
      if (ts_tree_cursor_goto_first_child(&c)) {
        do {
          const char* f = ts_tree_cursor_current_field_name(&c);
          if (f && std::string_view(f) == "declarator") name_of_declarator(ts_tree_cursor_current_node(&c));
        } while (ts_tree_cursor_goto_next_sibling(&c));
      }
      ts_tree_cursor_delete(&c);
      TSNode type = field_of(n, "type");
      if (!ts_node_is_null(type) && !ts_node_is_null(field_of(type, "body"))) defines(type, out, depth + 1);
      return;
    }
    if (t == "template_declaration" || is_container(n) || t == "namespace_definition") {
      for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
        TSNode c = ts_node_named_child(n, i);
        if (is(c, "template_parameter_list")) continue;
        if (t == "namespace_definition" && !is(c, "declaration_list")) continue;
        defines(c, out, depth + 1);
      }
    }
  };

  static const std::regex word(R"([A-Za-z_]\w*)");
  auto mentions = [&](TSNode n) {
    std::set<std::string> out;
    walk(n, [&](TSNode c) {
      auto t = type_of(c);
      if (t == "identifier" || t == "type_identifier" || t == "namespace_identifier") {
        out.insert(text_of(c));
      } else if (t == "preproc_arg") {
        std::string body = text_of(c);
        for (std::sregex_iterator it(body.begin(), body.end(), word), end; it != end; ++it) out.insert(it->str());
      }
    });
    return out;
  };

  // An include guard (`#ifndef X / #define X ... #endif` around the whole header) is not a
  // container: its contents are the unit's items. `#ifndef BLOCK / #define BLOCK 256` is a
  // default a build may override, the definition of BLOCK: a guard defines its name as nothing.
  auto is_include_guard = [&](TSNode n) {
    if (!is(n, "preproc_ifdef") || text_of(n).rfind("#ifndef", 0) != 0) return false;
    TSNode name = field_of(n, "name");
    TSNode first = ts_node_named_child(n, 1);
    return is(first, "preproc_def") && text_of(field_of(first, "name")) == text_of(name) &&
           ts_node_is_null(field_of(first, "value"));
  };

  std::function<void(TSNode)> add_items = [&](TSNode parent) {
    for (uint32_t i = 0; i < ts_node_named_child_count(parent); ++i) {
      TSNode n = ts_node_named_child(parent, i);
      auto t = type_of(n);
      if (t == "comment") continue;
      if (is_include_guard(n)) {
        guarded_ = true;
        for (uint32_t j = 2; j < ts_node_named_child_count(n); ++j) {
          TSNode c = ts_node_named_child(n, j);
          if (is(c, "preproc_else") || is(c, "preproc_elif") || is(c, "comment")) continue;
          CudaItem item;
          item.node = c;
          items_.push_back(item);
        }
        continue;
      }
      CudaItem item;
      item.node = n;
      items_.push_back(item);
    }
  };
  add_items(root());

  // `#ifndef _WIN32 / #include <sys/sysinfo.h> / #endif`: an #if block of nothing but includes of
  // headers nvcc finds, in every branch this build may take (`#ifndef USE_ROCM <cub> #else
  // <hipcub>`: the #else is not; see undefined_under_nvcc). It defines no name a kernel could
  // need, yet what it includes is used as the unit's own includes are, so it goes into every
  // standalone of the unit as they do. Returns whether the block (its branches too) holds only
  // `#include <...>` lines; `found` is cleared where a branch the build may take (`may_take`)
  // includes a header nvcc does not find; `direct` counts the block's own includes.
  std::function<bool(TSNode, int, bool, bool&, int&)> include_block = [&](TSNode block, int depth, bool may_take,
                                                                            bool& found, int& direct) -> bool {
    if (depth > 8) return false;
    TSNode condition = field_of(block, "condition"), name = field_of(block, "name");
    // Whether the block's own branch is taken: 1 yes, 0 no, -1 cannot tell.
    int taken = -1;
    if (is(block, "preproc_ifdef")) {
      bool ifdef = text_of(block).rfind("#ifdef", 0) == 0;
      if (undefined_under_nvcc(text_of(name))) taken = ifdef ? 0 : 1;
    } else if (!ts_node_is_null(condition)) {
      TSNode c = condition;
      bool negated = false;
      if (is(c, "unary_expression") && text_of(field_of(c, "operator")) == "!") {
        negated = true;
        c = field_of(c, "argument");
      }
      TSNode macro = is(c, "preproc_defined") ? ts_node_named_child(c, 0) : is(c, "identifier") ? c : TSNode{};
      if (!ts_node_is_null(macro) && undefined_under_nvcc(text_of(macro))) taken = negated ? 1 : 0;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(block); ++i) {
      TSNode c = ts_node_named_child(block, i);
      if (ts_node_eq(c, condition) || ts_node_eq(c, name) || is(c, "comment")) continue;
      if (is(c, "preproc_else") || is(c, "preproc_elif")) {
        int inner = 0;
        if (!include_block(c, depth + 1, may_take && taken != 1, found, inner)) return false;
        continue;
      }
      TSNode path = field_of(c, "path");
      if (!is(c, "preproc_include") || !is(path, "system_lib_string")) return false;
      ++direct;
      std::string bare = unquoted(text_of(path));
      if (may_take && taken != 0 && !toolkit_header(bare) && !torch_header(bare)) found = false;
    }
    return true;
  };
  for (size_t i = 0; i < items_.size(); ++i) {
    CudaItem& item = items_[i];
    TSNode n = item.node;
    auto t = type_of(n);
    if (t == "preproc_include") {
      item.kind = "include";
      TSNode path = field_of(n, "path");
      item.local_include = is(path, "string_literal");
      item.defines.insert(text_of(path));
      continue;
    }
    if (t == "comment") {
      item.kind = "other";
      continue;
    }
    defines(n, item.defines, 0);
    item.mentions = mentions(n);
    TSNode fn = function_in(n);
    if (!ts_node_is_null(fn)) {
      item.kind = has_token(fn, "__global__", text_) ? "kernel"
                  : has_token(fn, "__device__", text_) ? "device_function"
                                                        : "function";
      if (t == "template_declaration") item.kind = "template_" + item.kind;
    } else if (t == "preproc_def" || t == "preproc_function_def") {
      item.kind = "macro";
    } else if (t == "template_declaration") {
      item.kind = "template";
    } else if (t == "declaration") {
      item.kind = has_token(n, "__constant__", text_) ? "constant" : "variable";
    } else if (t == "type_definition" || t == "alias_declaration" || t == "struct_specifier" ||
               t == "class_specifier" || t == "enum_specifier" || t == "union_specifier") {
      item.kind = "type";
    } else if (t == "namespace_alias_definition") {
      item.kind = "namespace_alias";
    } else if (t == "using_declaration") {
      item.kind = "using";
    } else if (is_container(n)) {
      bool found = true;
      int includes = 0;
      item.kind = (is(n, "preproc_if") || is(n, "preproc_ifdef")) && include_block(n, 0, true, found, includes) &&
                          found && includes > 0
                      ? "include_block"
                      : "container";
    } else {
      item.kind = "other";
    }
    std::vector<TSNode> namespaces;
    collect_kernels(n, i, namespaces, 0);
  }
}

CudaSource::~CudaSource() {
  if (tree_) ts_tree_delete(tree_);
  if (parser_) ts_parser_delete(parser_);
}

std::string CudaSource::text_of(TSNode n) const {
  if (ts_node_is_null(n)) return "";
  return text_.substr(ts_node_start_byte(n), ts_node_end_byte(n) - ts_node_start_byte(n));
}

void CudaSource::collect_kernels(TSNode n, size_t item, std::vector<TSNode>& namespaces, int depth) {
  if (depth > kMaxNesting) return;
  auto t = type_of(n);
  TSNode fn = function_in(n);
  if (!ts_node_is_null(fn)) {
    if (!has_token(fn, "__global__", text_)) return;
    std::set<std::string> names;
    TSNode d = field_of(fn, "declarator");
    for (int guard = 0; guard < kMaxNesting && !ts_node_is_null(d); ++guard) {
      auto dt = type_of(d);
      if (dt == "identifier" || dt == "field_identifier") break;
      d = (dt == "qualified_identifier" || dt == "template_function") ? field_of(d, "name") : field_of(d, "declarator");
    }
    CudaKernelSite site;
    site.node = n;
    site.name = text_of(d);
    site.qualname = site.name;
    for (auto it = namespaces.rbegin(); it != namespaces.rend(); ++it) {
      TSNode name = field_of(*it, "name");
      site.qualname = (ts_node_is_null(name) ? std::string("(anonymous)") : text_of(name)) + "::" + site.qualname;
    }
    site.item = item;
    site.namespaces = namespaces;
    if (!site.name.empty()) kernels_.push_back(site);
    return;
  }
  if (!is_container(n)) return;
  // `#if 0` is how C comments code out: the repository's build never compiles a kernel there
  // (only what its `#else` holds), as a Python kernel in a comment is no kernel either.
  if (t == "preproc_if" || t == "preproc_elif") {
    std::string condition = text_of(field_of(n, "condition"));
    if (condition == "0" || condition == "false") {
      TSNode alternative = field_of(n, "alternative");
      if (!ts_node_is_null(alternative)) collect_kernels(alternative, item, namespaces, depth + 1);
      return;
    }
  }
  bool ns = t == "namespace_definition";
  if (ns) namespaces.push_back(n);
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) collect_kernels(ts_node_named_child(n, i), item, namespaces, depth + 1);
  if (ns) namespaces.pop_back();
}

// The name a function definition declares (`k` of `__global__ void k(...)`), else "".
std::string CudaSource::declared_name(TSNode function) const {
  std::string name;
  walk(field_of(function, "declarator"), [&](TSNode c) {
    if (name.empty() && is(c, "identifier")) name = text_of(c);
  });
  return name;
}

// The name the `index`th parameter of template `definition` declares, else "".
std::string CudaSource::template_parameter_name(TSNode definition, uint32_t index) const {
  TSNode params = field_of(definition, "parameters");
  if (ts_node_is_null(params) || index >= ts_node_named_child_count(params)) return "";
  std::string declared;
  walk(ts_node_named_child(params, index), [&](TSNode c) {
    if (declared.empty() && (is(c, "type_identifier") || is(c, "identifier"))) declared = text_of(c);
  });
  return declared;
}

// Whether the kernel `definition` uses values of its type parameter `type` as counts: a subscript
// (`x[j]`), an offset added to one of its pointers (`counts + col`), an operand of a shift, `%`
// or a bitwise operator. A float there does not compile. A kernel that hands its values to a
// template helper of the unit declaring a parameter of the same name (`ScatterRange(weights,
// indices, out, begin, end)` of `template <typename WeightT, typename IndexT, ...>`) counts with
// what the helper counts with.
bool CudaSource::counts_with(TSNode definition, const std::string& type, int depth) const {
  if (type.empty()) return false;
  if (counts_in_body(definition, type)) return true;
  if (depth >= 2) return false;
  std::set<std::string> callees;
  walk(definition, [&](TSNode c) {
    if (!is(c, "call_expression")) return;
    TSNode f = field_of(c, "function");
    if (is(f, "template_function")) f = field_of(f, "name");
    if (is(f, "identifier")) callees.insert(text_of(f));
  });
  if (callees.empty()) return false;
  bool counts = false;
  walk(root(), [&](TSNode t) {
    if (counts || !is(t, "template_declaration") || ts_node_eq(t, definition)) return;
    TSNode fn = function_in(t);
    if (ts_node_is_null(fn) || !callees.count(declared_name(fn))) return;
    TSNode params = field_of(t, "parameters");
    for (uint32_t i = 0; !counts && !ts_node_is_null(params) && i < ts_node_named_child_count(params); ++i)
      if (template_parameter_name(t, i) == type) counts = counts_with(t, type, depth + 1);
  });
  return counts;
}

// counts_with's reading of `definition`'s own parameters and body.
bool CudaSource::counts_in_body(TSNode definition, const std::string& type) const {
  std::set<std::string> values, pointers;
  walk(definition, [&](TSNode c) {
    if (!is(c, "declaration") && !is(c, "parameter_declaration")) return;
    TSNode t = field_of(c, "type");
    bool typed = !ts_node_is_null(t) && text_of(t) == type;
    for (uint32_t i = 0; i < ts_node_named_child_count(c); ++i) {
      TSNode d = ts_node_named_child(c, i);
      if (ts_node_eq(d, t)) continue;
      if (is(d, "init_declarator")) d = field_of(d, "declarator");
      if (is(d, "identifier") && typed) values.insert(text_of(d));
      if (is(d, "pointer_declarator"))
        walk(d, [&](TSNode x) {
          if (is(x, "identifier")) pointers.insert(text_of(x));
        });
    }
  });
  if (values.empty()) return false;
  auto value = [&](TSNode x) { return is(x, "identifier") && values.count(text_of(x)); };
  bool counts = false;
  walk(definition, [&](TSNode c) {
    if (counts) return;
    if (is(c, "subscript_expression")) {
      for (uint32_t i = 1; i < ts_node_named_child_count(c); ++i) {
        TSNode index = ts_node_named_child(c, i);
        if (is(index, "subscript_argument_list") && ts_node_named_child_count(index) == 1) index = ts_node_named_child(index, 0);
        counts = counts || value(index);
      }
    } else if (is(c, "binary_expression")) {
      std::string op = text_of(field_of(c, "operator"));
      TSNode l = field_of(c, "left"), r = field_of(c, "right");
      auto pointer = [&](TSNode x) { return is(x, "identifier") && pointers.count(text_of(x)); };
      if (op == ">>" || op == "<<" || op == "%" || op == "&" || op == "|" || op == "^") counts = value(l) || value(r);
      if (op == "+" || op == "-") counts = (pointer(l) && value(r)) || (value(l) && pointer(r));
    }
  });
  return counts;
}

std::map<std::string, std::string> CudaSource::constants(bool file_scope) const {
  std::map<std::string, std::string> out;
  std::vector<TSNode> stack{root()};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
      TSNode c = ts_node_named_child(n, i);
      if (is_container(c) || is(c, "preproc_ifdef") || is(c, "linkage_specification")) {
        if (file_scope && is(c, "namespace_definition") && !ts_node_is_null(field_of(c, "name"))) continue;
        stack.push_back(c);
        continue;
      }
      if (!is(c, "declaration") || !(has_token(c, "constexpr", text_) || has_token(c, "const", text_))) continue;
      for (uint32_t j = 0; j < ts_node_named_child_count(c); ++j) {
        TSNode d = ts_node_named_child(c, j);
        if (is(d, "init_declarator") && is(field_of(d, "declarator"), "identifier") && !ts_node_is_null(field_of(d, "value")))
          out.emplace(text_of(field_of(d, "declarator")), text_of(field_of(d, "value")));
      }
    }
  }
  return out;
}

// The template arguments of `name<...>` references in the unit outside the kernel itself: an
// explicit instantiation, else a launch (`name<128, float><<<g, b>>>(...)`) whose arguments are
// literals, types, or names a declaration before it in the same function binds to a literal
// (`const int BM = 128;`, substituted) or the unit defines (macros, constants: kept, closed over).
CudaSource::Instantiation CudaSource::instantiation_of(const CudaKernelSite& site,
                                                      const std::map<std::string, std::string>& build_defines) const {
  Instantiation out;
  for (size_t i = 0; i < items_.size(); ++i) {
    TSNode n = items_[i].node;
    if (!is(n, "template_instantiation")) continue;
    bool names_it = false;
    walk(n, [&](TSNode c) {
      if (is(c, "template_function") && text_of(field_of(c, "name")) == site.name) names_it = true;
    });
    if (names_it) {
      out.explicit_item = true;
      out.item = i;
      out.from = "by the unit's explicit instantiation (line " + std::to_string(line_of(n)) + ")";
      return out;
    }
  }
  // Names the unit binds to compile-time values: macros and const/constexpr declarations.
  std::set<std::string> defined, types;
  for (const auto& item : items_) {
    if (item.kind == "macro") defined.insert(item.defines.begin(), item.defines.end());
    if (item.kind == "type") types.insert(item.defines.begin(), item.defines.end());
  }
  // The instantiation sits at file scope: constants of a named namespace are out of its sight.
  for (const auto& [name, value] : constants(true)) defined.insert(name);
  for (const auto& [name, value] : build_defines) defined.insert(name);
  // A type argument names only types the unit defines or nvcc knows (`float`, `half`), not the
  // launching template's own parameters (`integrateBodies<T>` inside `template <typename T>`).
  auto known_type_name = [&](const std::string& t) {
    return types.count(t) || defined.count(t) || implicit_type(t) || t == "half" || t == "half2" ||
           t == "nv_bfloat16" || t == "nv_bfloat162";
  };
  auto known_type = [&](TSNode a) {
    bool ok = true;
    walk(a, [&](TSNode c) {
      if (is(c, "type_identifier")) ok = ok && known_type_name(text_of(c));
    });
    return ok;
  };
  // Literal values of `const int X = 128;`-like declarations in a function body, before `at`.
  auto local_literal = [&](TSNode at, const std::string& name) -> std::string {
    TSNode body{};
    for (TSNode up = ts_node_parent(at); !ts_node_is_null(up); up = ts_node_parent(up))
      if (is(up, "function_definition")) {
        body = field_of(up, "body");
        break;
      }
    std::string value;
    if (ts_node_is_null(body)) return value;
    walk(body, [&](TSNode c) {
      if (!is(c, "init_declarator") || ts_node_start_byte(c) > ts_node_start_byte(at)) return;
      if (text_of(field_of(c, "declarator")) != name) return;
      TSNode v = field_of(c, "value");
      if (is(v, "number_literal") || is(v, "true") || is(v, "false")) value = text_of(v);
    });
    return value;
  };
  // `template <int M, int BM> void launch(...) { k<M, BM><<<g, b>>>(...); }` launched as
  // `launch<1024, 128>(...)` (or with constants of its caller): a parameter of the launching
  // template takes what the one instantiation of that template outside it gives, where literal.
  // Set for a second look at the launches, after none named its types outright: a type the host
  // code leaves open (a host template's type parameter, AT_DISPATCH's scalar_t) is float then.
  bool assume_float = false;
  auto template_argument = [&](TSNode at, const std::string& name, bool first_of_several = false) -> std::string {
    TSNode function{}, declaration{};
    for (TSNode up = ts_node_parent(at); !ts_node_is_null(up); up = ts_node_parent(up))
      if (is(up, "function_definition")) {
        function = up;
        declaration = ts_node_parent(up);
        break;
      }
    if (ts_node_is_null(function) || !is(declaration, "template_declaration")) return "";
    TSNode params = field_of(declaration, "parameters");
    int index = -1;
    for (uint32_t i = 0; !ts_node_is_null(params) && i < ts_node_named_child_count(params); ++i)
      if (template_parameter_name(declaration, i) == name) index = static_cast<int>(i);
    if (index < 0) return "";
    // A type parameter (`template <typename scalar_t> void launch(...)`, typically called from
    // an AT_DISPATCH lambda): the one type its callers name when they agree on one the unit
    // knows, else float, as for a kernel's own type parameters.
    bool type_parameter = is(ts_node_named_child(params, static_cast<uint32_t>(index)), "type_parameter_declaration");
    std::string launcher = declared_name(function);
    std::string value;
    bool several = false;
    walk(root(), [&](TSNode c) {
      if (!is(c, "template_function") || text_of(field_of(c, "name")) != launcher) return;
      if (ts_node_start_byte(c) >= ts_node_start_byte(function) && ts_node_end_byte(c) <= ts_node_end_byte(function)) return;
      TSNode args = field_of(c, "arguments");
      if (ts_node_is_null(args) || static_cast<int>(ts_node_named_child_count(args)) <= index) return;
      TSNode a = ts_node_named_child(args, static_cast<uint32_t>(index));
      std::string piece = text_of(a);
      if (type_parameter) {
        if (!is(a, "type_descriptor") || !known_type(a)) piece.clear();
      } else if (!is(a, "number_literal") && !is(a, "true") && !is(a, "false")) {
        // Literals only: a macro of the caller's would need its definition carried too.
        piece = local_literal(c, piece);
      }
      if (piece.empty()) return;
      several = several || (!value.empty() && value != piece);
      if (value.empty()) value = piece;
    });
    if (type_parameter) return (several && !first_of_several) || value.empty() ? (assume_float ? "float" : "") : value;
    // Values the callers disagree on (`launch<true>` and `launch<false>`) are each an
    // instantiation the repository makes: the first one written.
    return value;
  };
  // `AT_DISPATCH_FLOATING_TYPES(t, "name", [&] { k<scalar_t><<<...>>>(...); })`: PyTorch's
  // dispatch macros bind `scalar_t` to each type they dispatch to, float among them.
  auto dispatched_type = [&](TSNode at, const std::string& name) {
    if (name != "scalar_t") return false;
    for (TSNode up = ts_node_parent(at); !ts_node_is_null(up); up = ts_node_parent(up))
      if (is(up, "call_expression") && text_of(field_of(up, "function")).rfind("AT_DISPATCH", 0) == 0) return true;
    return false;
  };
  auto from_launches = [&](TSNode c) {
    if (!out.arguments_text.empty() || !is(c, "template_function") || text_of(field_of(c, "name")) != site.name)
      return;
    if (ts_node_start_byte(c) >= ts_node_start_byte(site.node) && ts_node_end_byte(c) <= ts_node_end_byte(site.node))
      return;
    TSNode args = field_of(c, "arguments");
    std::string text;
    bool ok = !ts_node_is_null(args) && ts_node_named_child_count(args) > 0;
    for (uint32_t i = 0; ok && i < ts_node_named_child_count(args); ++i) {
      TSNode a = ts_node_named_child(args, i);
      std::string piece = text_of(a);
      // A lone name parses as a type: a macro, a constant or a type of the unit, else a literal
      // constant of the launching function.
      TSNode lone = is(a, "identifier") ? a : TSNode{};
      if (is(a, "type_descriptor"))
        walk(a, [&](TSNode t) {
          if (is(t, "type_identifier") && text_of(t) == piece) lone = t;
        });
      if (!ts_node_is_null(lone) && !known_type_name(piece)) {
        std::string literal = local_literal(c, piece);
        piece = !literal.empty()                           ? literal
                : assume_float && dispatched_type(c, piece) ? "float"
                                                            : template_argument(c, piece);
        ok = !piece.empty();
        // An open type the kernel counts with (`IndexT col = indices[j]`) is an integer.
        if (assume_float && piece == "float" && counts_with(site.node, template_parameter_name(site.node, i))) piece = "int";
      } else if (is(a, "type_descriptor")) {
        ok = known_type(a);
      } else if (!is(a, "number_literal") && !is(a, "true") && !is(a, "false") && !is(a, "identifier")) {
        ok = false;  // expressions of the launcher's values: not known here
      }
      text += (i ? ", " : "") + piece;
    }
    if (!ok) return;
    out.arguments_text = text;
    out.arguments_node = args;
    out.from = "as launched at line " + std::to_string(line_of(c)) + (assume_float ? ", its open types as float" : "");
  };
  walk(root(), from_launches);
  if (!out.arguments_text.empty()) return out;
  // A launch that names no template arguments (`lookup<<<g, b>>>(n, keys.data_ptr<K>(), ...)`
  // inside `template <typename K, typename V> void dispatch(...)`) lets nvcc deduce them from the
  // arguments: each type parameter is the element type of the `data_ptr<...>()` handed to a
  // parameter of that type, the launcher's own parameter resolved through its callers
  // (`dispatch<uint32_t, uint64_t>(...)`, the first one written: each is an instantiation the
  // repository makes). Every parameter must be deduced so.
  auto from_deduced_launches = [&](TSNode c) {
    if (!out.arguments_text.empty() || !is(c, "call_expression")) return;
    TSNode f = field_of(c, "function");
    if (!is(f, "identifier") || text_of(f) != site.name) return;
    if (ts_node_start_byte(c) >= ts_node_start_byte(site.node) && ts_node_end_byte(c) <= ts_node_end_byte(site.node))
      return;
    TSNode kernel = function_in(site.node), tparams = field_of(site.node, "parameters");
    TSNode args = field_of(c, "arguments");
    if (ts_node_is_null(kernel) || ts_node_is_null(tparams) || ts_node_is_null(args)) return;
    // The kernel's function parameters, in order: (declared type, whether a pointer).
    std::vector<std::string> declared;
    walk(field_of(kernel, "declarator"), [&](TSNode d) {
      if (is(d, "parameter_declaration")) declared.push_back(text_of(field_of(d, "type")));
    });
    std::string text;
    for (uint32_t i = 0; i < ts_node_named_child_count(tparams); ++i) {
      if (!is(ts_node_named_child(tparams, i), "type_parameter_declaration")) return;
      std::string name = template_parameter_name(site.node, i), piece;
      for (size_t j = 0; piece.empty() && j < declared.size() && j < ts_node_named_child_count(args); ++j) {
        if (declared[j] != name) continue;
        walk(ts_node_named_child(args, static_cast<uint32_t>(j)), [&](TSNode t) {
          if (!piece.empty() || !is(t, "template_argument_list")) return;
          TSNode owner = ts_node_parent(t);
          std::string method = text_of(field_of(owner, "name"));
          if (method != "data_ptr" && method != "data" && method != "mutable_data_ptr" && method != "const_data_ptr") return;
          TSNode type = ts_node_named_child(t, 0);
          if (ts_node_is_null(type)) return;
          std::string written = text_of(type);
          piece = known_type_name(written) ? written : template_argument(c, written, true);
        });
      }
      if (piece.empty()) return;
      text += (i ? ", " : "") + piece;
    }
    out.arguments_text = text;  // known types only: nothing of the unit to close over
    out.from = "as deduced from the launch at line " + std::to_string(line_of(c));
  };
  walk(root(), from_deduced_launches);
  if (!out.arguments_text.empty()) return out;
  // Defaults, before launches whose types are assumed: each parameter's own, a type parameter
  // without one as float. Integer parameters without a default take stand-ins only after the
  // assumed launches, as the last resort: without them the kernel has no entry to run at all.
  TSNode params = field_of(site.node, "parameters");
  auto from_defaults = [&](bool integer_stand_ins) {
    std::string text;
    bool ok = !ts_node_is_null(params);
    bool stood_in = false;
    for (uint32_t i = 0; ok && i < ts_node_named_child_count(params); ++i) {
      TSNode p = ts_node_named_child(params, i);
      TSNode d = field_of(p, "default_value");
      if (ts_node_is_null(d)) d = field_of(p, "default_type");
      if (!ts_node_is_null(d)) break;  // this one and the rest take their defaults
      // A flag (`template <bool TRANSPOSE>`) has two values, and kernels are written for both. A
      // type the kernel counts with (`IndexT col = indices[j]; counts + col`) is an integer.
      bool flag = is(p, "parameter_declaration") && text_of(field_of(p, "type")) == "bool";
      std::string piece = flag ? "false" : "";
      if (is(p, "type_parameter_declaration"))
        piece = counts_with(site.node, template_parameter_name(site.node, i)) ? "int" : "float";
      // An integer (`template <typename T, int64_t D>` a functor's dispatch chooses): the thread
      // count where the kernel sizes its block by it, else a small count that fits vector widths
      // and register arrays alike.
      if (integer_stand_ins && is(p, "parameter_declaration") && integral_type(text_of(field_of(p, "type")))) {
        piece = sizes_block(text_of(site.node), template_parameter_name(site.node, i)) ? kStandInThreads : kStandInCount;
        stood_in = true;
      }
      if (piece.empty()) ok = false;
      else text += std::string(text.empty() ? "" : ", ") + piece;
    }
    if (!ok) return false;
    out.arguments_text = text.empty() ? " " : text;
    out.from = stood_in ? "with its parameters' defaults, integers as stand-ins" : "with its parameters' defaults";
    out.stand_ins = stood_in;
    return true;
  };
  if (from_defaults(false)) return out;
  assume_float = true;
  walk(root(), from_launches);
  if (out.arguments_text.empty()) from_defaults(true);
  return out;
}

void CudaSource::identifiers_in(TSNode n, std::set<std::string>& out) const {
  if (ts_node_is_null(n)) return;
  walk(n, [&](TSNode c) {
    auto t = type_of(c);
    if (t == "identifier" || t == "type_identifier" || t == "namespace_identifier") out.insert(text_of(c));
  });
}

// `using namespace a::b;` names a namespace that the repository's headers open and the kernel
// may need nothing of, so that none of them is emitted: an empty `namespace a { namespace b {} }`
// before the directive lets it compile, and adds nothing where the namespace is open already
// (namespaces are open). Not where the unit makes the name an alias (`namespace a = x::y;`).
static std::string namespace_declared_for(const std::string& directive, const std::string& unit) {
  static const std::regex form(R"(^using\s+namespace\s+([A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)\s*;$)");
  std::smatch m;
  if (!std::regex_match(directive, m, form)) return "";
  std::vector<std::string> parts;
  std::string path = m[1].str();
  for (size_t at = 0; at <= path.size();) {
    size_t sep = std::min(path.find("::", at), path.size());
    std::string part = path.substr(at, sep - at);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    parts.push_back(part);
    at = sep + 2;
  }
  for (const auto& part : parts) {
    std::string spelled = "namespace " + part;
    for (size_t at = unit.find(spelled); at != std::string::npos; at = unit.find(spelled, at + 1)) {
      size_t next = unit.find_first_not_of(" \t", at + spelled.size());
      if (next != std::string::npos && unit[next] == '=') return "";
    }
  }
  std::string open, close;
  for (const auto& part : parts) {
    open += "namespace " + part + " { ";
    close += "}";
  }
  return open + close + "\n";
}

ExtractedKernel CudaSource::extract(const CudaKernelSite& site, const std::string& path, int line_offset,
                                    IncludeResolver* includes, const std::map<std::string, std::string>& build_defines) const {
  // The unit as the preprocessor would see it, as far as the repository holds its headers: each
  // `#include "x.h"` the resolver finds stands for that header's items, in place, once (the
  // include guards and `#pragma once` every header of a real build carries).
  struct Flat {
    const CudaSource* source;
    size_t item;
    std::string path;
    int line_offset;
  };
  std::vector<Flat> flat;
  std::set<std::string> expanded{path};
  std::vector<Dependency> pasted;  // the headers taken in, where they were included
  std::function<void(const CudaSource&, const std::string&, int, int)> expand = [&](const CudaSource& src,
                                                                                 const std::string& at, int offset,
                                                                                 int depth) {
    for (size_t i = 0; i < src.items_.size(); ++i) {
      const CudaItem& item = src.items_[i];
      if (includes && item.kind == "include" && item.local_include && depth < kMaxIncludeDepth) {
        const std::string& quoted = *item.defines.begin();
        std::string name = unquoted(quoted);
        if (auto header = includes->resolve(name, at)) {
          if (expanded.insert(header->path).second) {
            pasted.push_back({quoted, "include", header->path, line_of(item.node) + offset, ""});
            expand(*header->source, header->path, 0, depth + 1);
          }
          continue;
        }
      }
      flat.push_back({&src, i, at, offset});
    }
  };
  expand(*this, path, line_offset, 0);
  // An `#include "ptx.cu"` inside a namespace or an #if block stays inside its container, which is
  // emitted whole: the header's text goes in the directive's place (once per unit, as above), and
  // the names the header defines are the container's, so a kernel using them takes the container.
  auto nested_includes = [&](const CudaSource& src, TSNode container, const std::string& at) {
    std::vector<std::pair<TSNode, std::optional<IncludeResolver::Header>>> found;
    if (!includes) return found;
    uint32_t begin = ts_node_start_byte(container), end = ts_node_end_byte(container);
    for (TSNode c : src.local_includes_)
      if (!ts_node_eq(c, container) && ts_node_start_byte(c) >= begin && ts_node_end_byte(c) <= end)
        found.emplace_back(c, includes->resolve(unquoted(src.text_of(field_of(c, "path"))), at));
    return found;
  };
  std::vector<Dependency> nested_pasted;
  std::function<std::string(const CudaSource&, TSNode, const std::string&, int)> pasted_text =
      [&](const CudaSource& src, TSNode node, const std::string& at, int depth) {
        std::string s;
        uint32_t pos = ts_node_start_byte(node);
        for (const auto& [directive, header] : nested_includes(src, node, at)) {
          s += src.text_.substr(pos, ts_node_start_byte(directive) - pos);
          pos = ts_node_end_byte(directive);
          if (!header || depth >= kMaxIncludeDepth) {
            s += src.text_of(directive);
          } else if (header->source->guarded_ ? !expanded.count(header->path)
                                              : expanded.insert(header->path).second) {
            // A guarded header goes in wherever a container includes it (`#ifdef A #include
            // "a.h" #else #include "b.h"` whose a.h and b.h both include "common.h": the branch
            // the build takes needs it); its guard keeps a second copy on one path empty.
            nested_pasted.push_back({src.text_of(field_of(directive, "path")), "include", header->path,
                              line_of(directive), ""});
            s += "\n" + pasted_text(*header->source, header->source->root(), header->path, depth + 1) + "\n";
          }
        }
        return s + src.text_.substr(pos, ts_node_end_byte(node) - pos);
      };
  size_t home = 0;
  for (size_t f = 0; f < flat.size(); ++f)
    if (flat[f].source == this && flat[f].item == site.item) home = f;
  auto item_of = [&](size_t f) -> const CudaItem& { return flat[f].source->items_[flat[f].item]; };
  auto line_in = [&](size_t f) { return line_of(item_of(f).node) + flat[f].line_offset; };

  // Names -> items defining them. The kernel's own item takes part only when it is a container:
  // then siblings inside it can be needed, and the container is emitted whole.
  bool home_is_container = item_of(home).kind == "container";
  std::map<std::string, std::vector<size_t>> definers;
  std::map<size_t, std::set<std::string>> header_mentions;  // of headers a container includes
  for (size_t f = 0; f < flat.size(); ++f) {
    if (item_of(f).kind == "include") continue;
    if (f == home && !home_is_container) continue;
    for (const auto& n : item_of(f).defines) definers[n].push_back(f);
    if (item_of(f).kind != "container") continue;
    // What the headers pasted into the container define, and the headers they include in turn
    // (pasted_text pastes those too): `#else #include "pytorch_helper.hpp"` whose own
    // `#include "common_helper.hpp"` defines the loop macro a kernel uses.
    std::set<std::string> taken;
    std::function<void(const IncludeResolver::Header&, int)> take_header = [&](const IncludeResolver::Header& header,
                                                                               int depth) {
      if (!taken.insert(header.path).second) return;
      for (const CudaItem& it : header.source->items_) {
        for (const auto& n : it.defines) definers[n].push_back(f);
        header_mentions[f].insert(it.mentions.begin(), it.mentions.end());
      }
      if (depth + 1 >= kMaxIncludeDepth) return;
      for (TSNode c : header.source->local_includes_)
        if (auto inner = includes->resolve(unquoted(header.source->text_of(field_of(c, "path"))), header.path))
          take_header(*inner, depth + 1);
    };
    for (const auto& [directive, header] : nested_includes(*flat[f].source, item_of(f).node, flat[f].path))
      if (header) take_header(*header, 1);
  }

  ExtractedKernel k;
  k.dependencies = pasted;
  std::vector<bool> needed(flat.size(), false);
  std::set<std::string> seen{site.name};
  std::vector<std::string> pending;
  std::set<std::string> own;
  identifiers_in(site.node, own);
  // A template kernel is no kernel until instantiated: the unit's own instantiation of it, else
  // the arguments its launch in this unit gives, else its parameters' defaults (a type parameter
  // without one as float). The names the arguments use join the closure.
  Instantiation instantiation;
  std::string stand_in_instantiation;
  if (is(site.node, "template_declaration")) {
    instantiation = instantiation_of(site, build_defines);
    identifiers_in(instantiation.arguments_node, own);
  }
  for (const auto& n : own) pending.push_back(n);
  // `__device__ void operator+=(float2& a, const float2& b)`: an overload is used without its name
  // ever being spelled, so the unit's free operator overloads all go in, with what they need.
  for (size_t f = 0; f < flat.size(); ++f) {
    const CudaItem& item = item_of(f);
    if (f == home || item.kind.find("function") == std::string::npos) continue;
    TSNode fn = function_in(item.node);
    bool overload = false;
    walk(field_of(fn, "declarator"), [&](TSNode c) { overload = overload || is(c, "operator_name"); });
    if (!overload || needed[f]) continue;
    needed[f] = true;
    k.dependencies.push_back({flat[f].source->text_of(field_of(fn, "declarator")).substr(0, 40), item.kind, flat[f].path,
                              line_in(f), ""});
    for (const auto& m : item.mentions) pending.push_back(m);
  }
  while (!pending.empty()) {
    std::string name = pending.back();
    pending.pop_back();
    if (!seen.insert(name).second) continue;
    auto found = definers.find(name);
    if (found == definers.end()) continue;
    for (size_t f : found->second) {
      k.dependencies.push_back({name, item_of(f).kind, flat[f].path, line_in(f), ""});
      if (needed[f]) continue;
      needed[f] = true;
      for (const auto& m : item_of(f).mentions) pending.push_back(m);
      if (auto h = header_mentions.find(f); h != header_mentions.end())
        for (const auto& m : h->second) pending.push_back(m);
    }
  }

  std::string out;
  nlohmann::json left_out = nlohmann::json::array();
  std::set<std::string> emitted_includes;
  for (size_t f = 0; f < flat.size(); ++f) {
    const CudaSource& src = *flat[f].source;
    const CudaItem& item = item_of(f);
    bool include = item.kind == "include" || item.kind == "using" || item.kind == "include_block";
    if (f == home) {
      if (needed[f]) {
        out += pasted_text(src, item.node, flat[f].path, 0) + "\n";
      } else {
        std::string open, close;
        for (TSNode ns : site.namespaces) {
          TSNode name = field_of(ns, "name");
          open += "namespace " + text_of(name) + " {\n";
          close += "}\n";
        }
        out += open + text_of(site.node) + "\n" + close;
      }
      if (!instantiation.explicit_item && !instantiation.arguments_text.empty()) {
        // An anonymous namespace's names are reachable from the one around it: `a::(anonymous)::k`
        // is spelled `a::k`.
        std::string qualified = site.qualname;
        for (size_t at; (at = qualified.find("(anonymous)::")) != std::string::npos;) qualified.erase(at, 13);
        std::string line = "// instantiated " + instantiation.from + "\n" + "static void* const mine_instantiation_" +
                           site.name + " = (void*)&" + qualified + "<" + instantiation.arguments_text + ">;\n";
        if (instantiation.stand_ins) stand_in_instantiation = line;  // decided once the whole unit is out
        else out += line;
      }
    } else if (item.kind == "include") {
      // Only headers nvcc can find go into the standalone; the others are named, and make the
      // kernel not self-contained, since whether it needs them cannot be told without them.
      std::string header = *item.defines.begin();
      std::string bare = unquoted(header);
      k.dependencies.push_back({header, "include", flat[f].path, line_in(f), ""});
      // A quoted name the repository does not hold is searched for where `<...>` would be: the C
      // and POSIX headers, and the C++ library's (`"cmath"`).
      if (torch_header(bare) ||
          (item.local_include ? system_header(bare) || library_header(bare) : toolkit_header(bare))) {
        if (emitted_includes.insert(header).second) out += src.text_of(item.node) + "\n";
        k.external_modules.insert(bare);
      } else {
        if (emitted_includes.insert(header).second) left_out.push_back(header);
        k.self_contained = false;
      }
    } else if (include || needed[f] || (instantiation.explicit_item && flat[f].source == this &&
                                          flat[f].item == instantiation.item)) {
      if (item.kind == "using") out += namespace_declared_for(src.text_of(item.node), src.text_);
      // `struct S {...};` parses as the specifier followed by a lone `;` token.
      TSNode next = ts_node_next_sibling(item.node);
      out += (item.kind == "container" ? pasted_text(src, item.node, flat[f].path, 0) : src.text_of(item.node)) +
             (is(next, ";") ? ";" : "") + "\n";
    }
  }
  k.dependencies.insert(k.dependencies.end(), nested_pasted.begin(), nested_pasted.end());
  // A unit with no #include at all (not even inside an #if block) is often a fragment another .cu includes after defining its
  // types; a type it names that nothing defines marks it as such.
  if (!has_includes_) {
    std::set<std::string> defined, reported;
    for (const auto& item : items_) defined.insert(item.defines.begin(), item.defines.end());
    walk(root(), [&](TSNode c) {  // template parameters are types in scope, not unresolved ones
      if (is(c, "type_parameter_declaration") || is(c, "variadic_type_parameter_declaration") ||
          is(c, "optional_type_parameter_declaration"))
        for (uint32_t j = 0; j < ts_node_named_child_count(c); ++j)
          if (is(ts_node_named_child(c, j), "type_identifier")) defined.insert(text_of(ts_node_named_child(c, j)));
    });
    auto check = [&](TSNode n) {
      walk(n, [&](TSNode c) {
        if (!is(c, "type_identifier") || is(ts_node_parent(c), "qualified_identifier")) return;
        std::string t = text_of(c);
        if (defined.count(t) || implicit_type(t) || !reported.insert(t).second) return;
        k.dependencies.push_back({t, "unresolved", "", 0, "type defined outside this file"});
        k.self_contained = false;
      });
    };
    check(site.node);
    for (size_t f = 0; f < flat.size(); ++f)
      if (needed[f] && f != home && flat[f].source == this) check(item_of(f).node);
  }
  k.name = site.name;
  k.qualname = site.qualname;
  k.start_line = line_of(site.node) + line_offset;
  k.end_line = end_line_of(site.node) + line_offset;
  k.source = text_of(site.node);
  // Integer stand-ins only where nothing the standalone holds instantiates the kernel (a host
  // function's `k<T, VEC><<<...>>>` with the unit's explicit `template void launch<float>(...)`
  // makes the entries the harness finds): they are a last resort for a kernel with no entry.
  bool stand_in_dropped = !stand_in_instantiation.empty() && mentions_template_use(out, site.name);
  if (!stand_in_instantiation.empty() && !stand_in_dropped) out += stand_in_instantiation;
  k.standalone = implied_includes(out) + out;
  k.meta["template"] = is(site.node, "template_declaration");
  if (k.meta["template"]) {
    if (instantiation.explicit_item || (!instantiation.arguments_text.empty() && !stand_in_dropped))
      k.meta["instantiated"] = {{"arguments", instantiation.arguments_text}, {"from", instantiation.from}};
    else
      k.meta["instantiated"] = nullptr;  // no launch, instantiation or defaults say how: no entry to run
  }
  if (!left_out.empty()) k.meta["includes_left_out"] = left_out;
  // `#if GSPLAT_BUILD_ADAM` (or `#ifdef`, `defined(X) && defined(Y)`) around the kernel, of macros
  // nothing in the unit defines: the build's flags turn the kernel on, and without them the unit
  // compiles to no kernel at all. The plugin defines them where the build defines found say nothing.
  nlohmann::json guards = nlohmann::json::array();
  auto add_guard = [&](TSNode name) {
    std::string macro = text_of(name);
    // Reserved names (`__CUDA_ARCH__`, `_WIN32`) are the compiler's and the platform's to define.
    bool reserved = macro.size() > 1 && macro[0] == '_' && (macro[1] == '_' || std::isupper(static_cast<unsigned char>(macro[1])));
    if (!reserved && !definers.count(macro) && std::find(guards.begin(), guards.end(), macro) == guards.end()) guards.push_back(macro);
  };
  std::function<bool(TSNode)> guard_names = [&](TSNode c) -> bool {  // false: not a plain conjunction
    if (is(c, "identifier")) return add_guard(c), true;
    if (is(c, "preproc_defined")) return ts_node_named_child_count(c) == 1 && (add_guard(ts_node_named_child(c, 0)), true);
    if (is(c, "parenthesized_expression")) return ts_node_named_child_count(c) == 1 && guard_names(ts_node_named_child(c, 0));
    if (is(c, "binary_expression") && text_of(field_of(c, "operator")) == "&&")
      return guard_names(field_of(c, "left")) && guard_names(field_of(c, "right"));
    return false;
  };
  // Walking out from the kernel, an alternative branch (`#else`, `#elif`) is passed before its
  // `#if`: the guards stop there.
  for (TSNode up = ts_node_parent(site.node); !ts_node_is_null(up); up = ts_node_parent(up)) {
    if (is(up, "preproc_else") || is(up, "preproc_elif") || is(up, "preproc_elifdef")) break;
    nlohmann::json before = guards;
    if (is(up, "preproc_if") && !guard_names(field_of(up, "condition"))) guards = before;
    if (is(up, "preproc_ifdef") && text_of(up).rfind("#ifdef", 0) == 0) add_guard(field_of(up, "name"));
  }
  if (!guards.empty()) k.meta["guarded_by"] = guards;
  TSNode fn = site.node;
  if (is(fn, "template_declaration"))
    for (uint32_t j = 0; j < ts_node_named_child_count(fn); ++j)
      if (is(ts_node_named_child(fn, j), "function_definition")) fn = ts_node_named_child(fn, j);
  for (uint32_t j = 0; j < ts_node_named_child_count(fn); ++j)
    if (is(ts_node_named_child(fn, j), "launch_bounds")) k.meta["launch_bounds"] = text_of(ts_node_named_child(fn, j));
  nlohmann::json params = nlohmann::json::array();
  TSNode d = field_of(fn, "declarator");
  while (!ts_node_is_null(d) && !is(d, "function_declarator")) d = field_of(d, "declarator");
  TSNode list = field_of(d, "parameters");
  // Comments between parameters (`const float* x,  // [N, 3]`) are named children too.
  for (uint32_t j = 0; !ts_node_is_null(list) && j < ts_node_named_child_count(list); ++j)
    if (!is(ts_node_named_child(list, j), "comment")) params.push_back(text_of(ts_node_named_child(list, j)));
  k.meta["parameters"] = params;
  return k;
}

}  // namespace mine
