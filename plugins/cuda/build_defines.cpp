#include "plugins/cuda/build_defines.h"

#include <cctype>
#include <functional>
#include <tuple>
#include <mutex>
#include <memory>
#include <map>

#include "plugins/cuda/build_source_match.h"

namespace mine {
namespace {

using namespace sdk;
using Known = StaticValue::Known;

// Callees that build a CUDA source with flags: torch.utils.cpp_extension's load, its
// CUDAExtension/CppExtension for setup.py, setuptools' Extension.
const char* const kBuildCalls[] = {"load", "CUDAExtension", "CppExtension", "Extension"};
// Python files asked about per name: repositories rarely build from more files than this.
constexpr size_t kMaxCallers = 256;

std::string last_name(const std::string& dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

TSNode argument(const PythonFile& m, TSNode call, int position, const char* keyword) {
  TSNode found{};
  int index = 0;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (!ts_node_is_null(found) || is_type(a, "comment")) return;
    if (is_type(a, "keyword_argument")) {
      if (keyword && m.view_of(field(a, "name")) == keyword) found = field(a, "value");
    } else if (!is_type(a, "list_splat") && !is_type(a, "dictionary_splat")) {
      if (index++ == position) found = a;
    }
  });
  return found;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// One word of a flag list (`-DTmax=1024`), with how far the code fixes the element it is in.
struct Token {
  std::string text;
  Known known;
  std::string why;
};

void define(const Token& t, const std::string& definition, const std::string& from, std::vector<BuildDefine>& out) {
  size_t eq = definition.find('=');
  BuildDefine d;
  d.name = definition.substr(0, eq);
  if (!is_identifier(d.name)) return;  // a part of the name is not fixed, or not a macro name
  d.from = from;
  d.known = t.known == Known::unknown ? Known::fixed : t.known;
  d.why = d.known == Known::fixed ? "" : t.why;
  if (eq != std::string::npos) {
    d.has_value = true;
    d.value = definition.substr(eq + 1);
    if (d.value.find(StaticValue::kUnknownPart) != std::string::npos) {
      d.known = Known::unknown;
      d.why = t.why;
      d.value.clear();
    }
  }
  for (auto it = out.begin(); it != out.end();)  // the last definition of a name is the one in force
    it = it->name == d.name ? out.erase(it) : it + 1;
  out.push_back(std::move(d));
}

void undefine(const std::string& name, std::vector<BuildDefine>& out) {
  for (auto it = out.begin(); it != out.end();) it = it->name == name ? out.erase(it) : it + 1;
}

// The `-D`/`-U` flags (also `-D NAME`, `--define-macro NAME=V`, several in one string as a
// shell would split them) of a flag list.
void read_flags(const StaticList& flags, const std::string& from, std::vector<BuildDefine>& out) {
  std::vector<Token> tokens;
  for (const auto& f : flags) {
    std::string word;
    for (size_t i = 0; i <= f.text.size(); ++i) {
      if (i == f.text.size() || std::isspace(static_cast<unsigned char>(f.text[i]))) {
        if (!word.empty()) tokens.push_back({word, f.known, f.why});
        word.clear();
      } else {
        word += f.text[i];
      }
    }
  }
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& w = tokens[i].text;
    bool has_next = i + 1 < tokens.size();
    if ((w == "-D" || w == "--define-macro" || w == "-define-macro") && has_next) {
      define(tokens[i + 1], tokens[i + 1].text, from, out);
      ++i;
    } else if ((w == "-U" || w == "--undefine-macro" || w == "-undefine-macro") && has_next) {
      undefine(tokens[++i].text, out);
    } else if (w.rfind("--define-macro=", 0) == 0) {
      define(tokens[i], w.substr(15), from, out);
    } else if (w.rfind("-D", 0) == 0 && w.size() > 2) {
      define(tokens[i], w.substr(2), from, out);
    } else if (w.rfind("-U", 0) == 0 && w.size() > 2) {
      undefine(w.substr(2), out);
    }
  }
}

// setuptools' `define_macros=[("NAME", "1"), ("FLAG", None)]`.
void read_define_macros(const PythonFile& m, TSNode list, const std::string& from, std::vector<BuildDefine>& out) {
  if (!is_type(list, "list") && !is_type(list, "tuple")) return;
  for_each_named_child(list, [&](TSNode pair) {
    if (!is_type(pair, "tuple") || ts_node_named_child_count(pair) != 2) return;
    StaticValue name = static_value(m, ts_node_named_child(pair, 0));
    StaticValue value = static_value(m, ts_node_named_child(pair, 1));
    std::string definition = name.text;
    if (!(value.known != Known::unknown && value.text == "None")) definition += "=" + value.text;
    Known known = static_cast<int>(name.known) > static_cast<int>(value.known) ? name.known : value.known;
    Token t{definition, known, value.known != Known::fixed ? value.why : name.why};
    define(t, definition, from, out);
  });
}

std::string from_of(const PythonFile& m, TSNode call) { return m.path() + ":" + std::to_string(first_line(call)); }

// Each call node under `root` in source order, until `visit` returns false; a cursor, no recursion.
void each_call(TSNode root, const std::function<bool(TSNode)>& visit) {
  TSTreeCursor c = ts_tree_cursor_new(root);
  for (bool more = true; more;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    if (is_type(n, "call") && !visit(n)) break;
    if (ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c))
      if (!ts_tree_cursor_goto_parent(&c)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&c);
}

// `def load_kernel(head_size): load(..., extra_cuda_cflags=[f"-D_C_={head_size}"])`: the value
// the repository's calls of load_kernel pass (a test's `load_kernel(128)`, `headsz = 128` at its
// module level), the first that a call fixes; one hop, the caller's own parameters are not followed.
// `scanned` is the file being scanned: only its handle can list the repository's files.
ArgumentSource callers_of(const PythonFile& scanned) {
  return [&scanned](const std::string& function, const std::string& parameter, size_t position) -> std::optional<StaticValue> {
    for (const PythonFile& caller : scanned.files_calling(function, kMaxCallers)) {
      if (!caller.tree()) continue;
      std::optional<StaticValue> found;
      each_call(caller.root(), [&](TSNode n) {
        if (last_name(caller.text_of(field(n, "function"))) != function) return true;
        TSNode arg = argument(caller, n, static_cast<int>(position), parameter.c_str());
        StaticValue v = ts_node_is_null(arg) ? StaticValue{} : static_value(caller, arg);
        if (v.known == Known::unknown || v.text.find(StaticValue::kUnknownPart) != std::string::npos) return true;
        v.known = Known::stand_in;
        v.why = "passed to " + function + "() at " + from_of(caller, n);
        found = v;
        return false;
      });
      if (found) return found;
    }
    return std::nullopt;
  };
}

}  // namespace

std::vector<BuildDefine> build_defines_of_call(const PythonFile& m, TSNode call, const ArgumentSource* arguments) {
  std::vector<BuildDefine> out;
  if (!is_type(call, "call")) return out;
  std::string callee = last_name(m.text_of(field(call, "function")));
  std::string from = from_of(m, call);
  bool complete = true;
  const ArgumentSource* callers = arguments;
  if (callee == "load" || callee == "load_inline") {
    TSNode flags = argument(m, call, callee == "load" ? 3 : 5, "extra_cuda_cflags");
    if (!ts_node_is_null(flags)) read_flags(static_list(m, flags, complete, callers), from, out);
  } else if (callee == "RawKernel" || callee == "RawModule") {
    TSNode flags = argument(m, call, callee == "RawKernel" ? 2 : -1, "options");
    if (!ts_node_is_null(flags)) read_flags(static_list(m, flags, complete, callers), from, out);
  } else {
    read_define_macros(m, keyword_argument(m, call, "define_macros"), from, out);
    TSNode args = keyword_argument(m, call, "extra_compile_args");
    TSNode nvcc = static_dict_entry(m, args, "nvcc");
    // A list (not a dict) is every compiler's, nvcc's too.
    if (ts_node_is_null(nvcc) && !ts_node_is_null(args) && ts_node_is_null(static_dict_entry(m, args, "cxx"))) nvcc = args;
    if (!ts_node_is_null(nvcc)) read_flags(static_list(m, nvcc, complete, callers), from, out);
  }
  return out;
}

namespace {

// A build call of a Python file: the sources it names and the macros it defines.
struct BuildCall {
  StaticList sources;
  std::vector<BuildDefine> defines;
  uint32_t start = 0, end = 0;  // the call's bytes in its file, to read it again with its callers
};

// The build calls of `py` in source order, read once per file text: every CUDA file of a
// repository asks the same Python files (a walk of each per CUDA file made ROCm/aiter's scan 45%
// slower). Kept by path, size and hash of the text, a few thousand files at most.
std::shared_ptr<const std::vector<BuildCall>> build_calls_of(const PythonFile& py) {
  static std::mutex mutex;
  static std::map<std::tuple<std::string, size_t, size_t>, std::shared_ptr<const std::vector<BuildCall>>> kept;
  std::string_view text = py.text();
  auto key = std::make_tuple(py.path(), text.size(), std::hash<std::string_view>{}(text));
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto found = kept.find(key);
    if (found != kept.end()) return found->second;
  }
  auto calls = std::make_shared<std::vector<BuildCall>>();
  if (py.tree()) {
    each_call(py.root(), [&](TSNode n) {
      std::string callee = last_name(py.text_of(field(n, "function")));
      bool builds = false;
      for (const char* b : kBuildCalls) builds = builds || callee == b;
      auto q = py.qualified_name(field(n, "function"));
      if (builds && q && q->find("cpp_extension") == std::string::npos && q->find("setuptools") == std::string::npos &&
          q->find("distutils") == std::string::npos)
        builds = false;  // json.load, a module's own Extension class
      TSNode sources = builds ? argument(py, n, 1, "sources") : TSNode{};
      if (!ts_node_is_null(sources)) {
        bool complete = true;
        calls->push_back({static_list(py, sources, complete), build_defines_of_call(py, n), ts_node_start_byte(n),
                          ts_node_end_byte(n)});
      }
      return true;
    });
  }
  std::lock_guard<std::mutex> lock(mutex);
  if (kept.size() >= 4096) kept.clear();
  kept.emplace(key, calls);
  return calls;
}

// The call's defines, read again where a value is a parameter without a default, with what the
// repository's calls of that function pass (kept apart from the cache of build calls: the callers
// are the repository's, the cache is by file text).
std::vector<BuildDefine> with_callers(const PythonFile& scanned, const PythonFile& py, const BuildCall& call) {
  bool open = false;
  for (const auto& d : call.defines) open = open || d.known == Known::unknown;
  if (!open || !py.tree()) return call.defines;
  TSNode n = ts_node_descendant_for_byte_range(py.root(), call.start, call.end);
  while (!ts_node_is_null(n) && !(is_type(n, "call") && ts_node_start_byte(n) == call.start && ts_node_end_byte(n) == call.end))
    n = ts_node_parent(n);
  if (ts_node_is_null(n)) return call.defines;
  ArgumentSource callers = callers_of(scanned);
  return build_defines_of_call(py, n, &callers);
}

}  // namespace

std::vector<BuildDefine> build_defines_of(const PythonFile& cuda_file) {
  std::string path = cuda_file.path();
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  auto paths_ending = [&](const std::string& tail) { return cuda_file.repository_paths_ending(tail); };
  std::vector<std::string> seen;
  for (const char* build : kBuildCalls) {
    for (const PythonFile& py : cuda_file.files_calling(build, kMaxCallers)) {
      std::string py_path = py.path();
      bool again = false;
      for (const auto& s : seen) again = again || s == py_path;
      if (again) continue;
      seen.push_back(py_path);
      // Text first: most callers of `load` (json.load, torch.load) never name the file.
      std::string_view text = py.text();
      if (text.find(name) == std::string_view::npos && text.find("glob") == std::string_view::npos) continue;
      // The first call in the file, in source order, whose sources name the file.
      std::shared_ptr<const std::vector<BuildCall>> calls = build_calls_of(py);  // alive through the loop
      for (const BuildCall& call : *calls)
        for (const auto& s : call.sources)
          if (source_names_file(s, py_path, path, paths_ending)) return with_callers(cuda_file, py, call);
    }
  }
  return {};
}

namespace {

bool word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether `text` spells `name` as a whole identifier.
bool names(const std::string& text, const std::string& name) {
  for (size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
    if ((at == 0 || !word(text[at - 1])) && (at + name.size() == text.size() || !word(text[at + name.size()])))
      return true;
  return false;
}

// Whether `text` has a `#define name` line of its own (`#ifndef _N_ / #define _N_ 64`).
bool names_definition(const std::string& text, const std::string& name) {
  for (size_t at = text.find("#define"); at != std::string::npos; at = text.find("#define", at + 1)) {
    size_t start = text.find_first_not_of(" \t", at + 7);
    if (start != std::string::npos && text.compare(start, name.size(), name) == 0 &&
        (start + name.size() == text.size() || !word(text[start + name.size()])))
      return true;
  }
  return false;
}

}  // namespace

void add_build_defines(ExtractedKernel& k, const std::vector<BuildDefine>& defines) {
  if (defines.empty()) return;
  std::string lines;
  nlohmann::json in = nlohmann::json::array(), left_out = nlohmann::json::array();
  for (const BuildDefine& given : defines) {
    bool needed = names(k.standalone, given.name);
    BuildDefine d = given;
    if (d.known == Known::unknown) {
      // A unit that defines the name itself keeps its own.
      if (!needed) continue;
      if (names_definition(k.standalone, d.name)) {
        left_out.push_back({{"name", d.name}, {"from", d.from}, {"why", d.why}});
        continue;
      }
      d.known = Known::stand_in, d.value = kUnknownDefineStandIn, d.has_value = true;
      d.why += "; " + d.value + " stands in";
    }
    if (d.known == Known::stand_in && !needed) continue;
    if (d.value.find('\n') != std::string::npos) continue;
    lines += "#define " + d.name + (d.has_value ? " " + d.value : "") + "\n";
    nlohmann::json entry = {{"name", d.name}, {"value", d.has_value ? nlohmann::json(d.value) : nlohmann::json(nullptr)},
                            {"from", d.from}};
    if (d.known == Known::stand_in) entry["stand_in"] = d.why;
    in.push_back(entry);
  }
  if (!lines.empty()) k.standalone = "// defined by the build (meta.build_defines)\n" + lines + k.standalone;
  if (!in.empty()) k.meta["build_defines"] = in;
  if (!left_out.empty()) k.meta["build_defines_left_out"] = left_out;
}

void add_guard_defines(ExtractedKernel& k, const std::vector<BuildDefine>& defines) {
  auto guards = k.meta.find("guarded_by");
  if (guards == k.meta.end()) return;
  std::string lines;
  for (const auto& g : *guards) {
    std::string name = g.get<std::string>();
    bool built = false;
    for (const auto& d : defines) built = built || d.name == name;
    if (!built) lines += "#define " + name + " 1\n";
  }
  if (!lines.empty()) k.standalone = "// the kernel lies under #if of these, which nothing in its unit defines (meta.guarded_by)\n" + lines + k.standalone;
}

std::map<std::string, std::string> define_values(const std::vector<BuildDefine>& defines) {
  std::map<std::string, std::string> out;
  for (const auto& d : defines)
    out[d.name] = d.known == Known::unknown ? kUnknownDefineStandIn : d.has_value ? d.value : "1";
  return out;
}

}  // namespace mine
