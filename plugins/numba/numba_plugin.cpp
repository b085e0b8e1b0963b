#include "plugins/numba/numba_plugin.h"

#include <re2/re2.h>

#include <nlohmann/json.hpp>
#include <optional>

#include "plugins/sdk/file_reports.h"
#include "plugins/sdk/plugin_entry.h"
#include "plugins/sdk/python_file.h"

namespace mine {
namespace {

using namespace sdk;

bool is_cuda_jit(const std::string& q) {
  return q == "numba.cuda.jit" || q == "numba.cuda.decorators.jit";
}

bool is_ufunc_builder(const std::string& q) {
  return q == "numba.vectorize" || q == "numba.guvectorize" || q == "numba.np.ufunc.vectorize" ||
         q == "numba.np.ufunc.guvectorize";
}

// A string literal's content without quotes or prefix; empty for anything else.
std::string string_value(const PythonFile& m, TSNode n) {
  if (!is_type(n, "string")) return "";
  std::string t = m.text_of(n);
  size_t b = t.find_first_of("'\"");
  if (b == std::string::npos) return "";
  char q = t[b];
  size_t e = t.find_last_of(q);
  return e > b ? t.substr(b + 1, e - b - 1) : "";
}

// The explicit signatures a jit call names (first positional argument), as written.
nlohmann::json signatures_of(const PythonFile& m, TSNode call) {
  nlohmann::json out = nlohmann::json::array();
  if (!is_type(call, "call")) return out;
  TSNode first = ts_node_named_child(field(call, "arguments"), 0);
  if (is_type(first, "string")) out.push_back(string_value(m, first));
  if (is_type(first, "list") || is_type(first, "tuple"))
    for_each_named_child(first, [&](TSNode s) {
      if (is_type(s, "string")) out.push_back(string_value(m, s));
    });
  return out;
}

// `cuda.jit` where `cuda` comes from an import inside an enclosing function (usual in numba's
// docs and tests): the host resolves module-level imports only. The nearest enclosing
// function that imports a `cuda` decides; nothing at module level may bind it.
std::optional<std::string> locally_imported_jit(const PythonFile& m, TSNode decorator) {
  TSNode callee = is_type(decorator, "call") ? field(decorator, "function") : decorator;
  if (m.view_of(callee) != "cuda.jit" || !m.bindings_of("cuda").empty()) return std::nullopt;
  static const RE2 local_import(
      R"((?m)^[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t][^\n]*\bcuda\b|import[ \t]+([\w.]+)[ \t]+as[ \t]+cuda\b))");
  for (TSNode n = ts_node_parent(decorator); !ts_node_is_null(n); n = ts_node_parent(n)) {
    if (!is_type(n, "function_definition")) continue;
    std::string body = m.text_of(field(n, "body")), from, module;
    if (!RE2::PartialMatch(body, local_import, &from, &module)) continue;
    if (from == "numba" || module == "numba.cuda") return std::string("numba.cuda.jit");
    return std::nullopt;
  }
  return std::nullopt;
}

// What a decorator or jit call makes of a function: "kernel", "device_function", "ufunc", or ""
// when it is no Numba CUDA compilation.
std::string numba_cuda_role(const PythonFile& m, TSNode decorator) {
  auto q = m.qualified_name(decorator);
  if (!q) q = locally_imported_jit(m, decorator);
  if (!q) return "";
  if (is_cuda_jit(*q)) {
    TSNode device = keyword_argument(m, decorator, "device");
    return !ts_node_is_null(device) && m.view_of(device) == "True" ? "device_function" : "kernel";
  }
  if (is_ufunc_builder(*q)) {
    TSNode target = keyword_argument(m, decorator, "target");
    if (!ts_node_is_null(target) && string_value(m, target) == "cuda") return "ufunc";
  }
  return "";
}

std::string role_of_decorators(const PythonFile& m, const std::vector<TSNode>& decorators, TSNode* which) {
  for (TSNode d : decorators) {
    std::string role = numba_cuda_role(m, d);
    if (!role.empty()) {
      if (which) *which = d;
      return role;
    }
  }
  return "";
}

// Dependency kinds of the definitions a kernel's closure pulls in, in any module it reaches.
const char* label(void*, const mine_host* host, const mine_file* module, size_t statement) {
  PythonFile m(host, module);
  std::string role = role_of_decorators(m, decorators_of(m.statement(statement).node), nullptr);
  if (role == "device_function") return "device_function";
  if (role == "kernel") return "cuda_kernel";
  if (role == "ufunc") return "cuda_ufunc";
  return nullptr;
}

class KernelBuilder {
 public:
  KernelBuilder(const PythonFile& file, mine_sink* sink) : m_(file), reports_(file, sink, "numba", label) {}

  void from_function(size_t index) {
    mine_python_function site = m_.function(index);
    TSNode decorator{};
    std::string role = role_of_decorators(m_, m_.decorators(index, site.decorator_count), &decorator);
    if (role.empty()) return;
    if (ts_node_has_error(site.node)) {
      problem(first_line(site.node), "syntax", "kernel " + std::string(site.qualname) + " contains a syntax error; skipped");
      return;
    }
    nlohmann::json meta = nlohmann::json::object();
    describe(meta, role, decorator);
    report(MINE_ROOT_FUNCTION, index, nullptr, meta, first_line(site.node));
  }

  // `k = cuda.jit(fn)`, `k = cuda.jit("sig")(fn)`, `d = cuda.jit(device=True)(fn)`.
  void from_assignment(size_t index, const mine_python_statement& s) {
    TSNode assign = ts_node_named_child(s.node, 0);
    TSNode left = field(assign, "left");
    TSNode right = field(assign, "right");
    if (!is_type(assign, "assignment") || !is_type(left, "identifier") || !is_type(right, "call")) return;
    TSNode compiler = right;  // the call that names numba
    TSNode callee = field(right, "function");
    if (is_type(callee, "call")) compiler = callee;
    std::string role = numba_cuda_role(m_, compiler);
    if (role.empty()) return;
    TSNode fn = ts_node_named_child(field(right, "arguments"), 0);
    if (!is_type(fn, "identifier")) return;  // `cuda.jit("sig")` alone builds a decorator, not a kernel
    std::string_view fn_name = m_.view_of(fn);
    std::optional<size_t> target;
    for (size_t i = 0, n = m_.function_count(); i < n; ++i) {
      mine_python_function f = m_.function(i);
      if (f.statement >= 0 && f.name == fn_name) target = i;
    }
    if (!target) return;
    nlohmann::json meta = nlohmann::json::object();
    meta["functional"] = true;
    meta["parameters"] = nlohmann::json::parse(m_.parameters_json(*target));
    describe(meta, role, compiler);
    std::string name = m_.text_of(left);
    report(MINE_ROOT_STATEMENT, index, name.c_str(), meta, s.start_line);
  }

 private:
  void describe(nlohmann::json& meta, const std::string& role, TSNode compiler) {
    meta["role"] = role;
    nlohmann::json sigs = signatures_of(m_, compiler);
    if (!sigs.empty()) meta["signatures"] = sigs;
  }

  void report(int root_kind, size_t root, const char* name, const nlohmann::json& meta, int line) {
    reports_.kernel(root_kind, root, name, meta, line);
  }
  void problem(int line, const std::string& kind, const std::string& message) { reports_.problem(line, kind, message); }

  const PythonFile& m_;
  FileReports reports_;
};

void extract(const mine_host* host, const mine_file* file, mine_sink* sink, void*) {
  run_guarded("numba", host, sink, [&] {
    PythonFile m(host, file);
    if (!m.tree()) return;
    KernelBuilder builder(m, sink);
    for (size_t i = 0, n = m.function_count(); i < n; ++i) builder.from_function(i);
    for (size_t i = 0, n = m.statement_count(); i < n; ++i) {
      mine_python_statement s = m.statement(i);
      if (s.kind == MINE_STATEMENT_ASSIGNMENT) builder.from_assignment(i, s);
    }
  });
}

const char* const kSuffixes[] = {".py", nullptr};
const char* const kPrefilters[] = {"numba", nullptr};

const mine_plugin_info kInfo = {
    MINE_PLUGIN_ABI_VERSION,
    "numba",
    "1",
    "Numba @cuda.jit kernels and device functions, CUDA-target (gu)vectorize ufuncs, with their helpers",
    kSuffixes,
    kPrefilters,
    extract,
    nullptr,
    nullptr,  // claims: never
};

}  // namespace

const mine_plugin_info* numba_plugin() { return &kInfo; }

}  // namespace mine
