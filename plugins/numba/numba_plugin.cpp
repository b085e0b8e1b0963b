#include "plugins/numba/numba_plugin.h"

#include <re2/re2.h>

#include <optional>

#include "plugins/python_definitions/python_definition.h"

namespace mine {
namespace {

bool is_cuda_jit(const std::string& q) {
  return q == "numba.cuda.jit" || q == "numba.cuda.decorators.jit";
}

bool is_ufunc_builder(const std::string& q) {
  return q == "numba.vectorize" || q == "numba.guvectorize" || q == "numba.np.ufunc.vectorize" ||
         q == "numba.np.ufunc.guvectorize";
}

// A string literal's content without quotes or prefix; empty for anything else.
std::string string_value(const PythonModule& m, TSNode n) {
  if (!is_type(n, "string")) return "";
  std::string t = m.text_of(n);
  size_t b = t.find_first_of("'\"");
  if (b == std::string::npos) return "";
  char q = t[b];
  size_t e = t.find_last_of(q);
  return e > b ? t.substr(b + 1, e - b - 1) : "";
}

// The explicit signatures a jit call names (first positional argument), as written.
nlohmann::json signatures_of(const PythonModule& m, TSNode call) {
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

std::string role_of_decorators(const PythonModule& m, const std::vector<TSNode>& decorators, TSNode* which) {
  for (TSNode d : decorators) {
    std::string role = numba_cuda_role(m, d);
    if (!role.empty()) {
      if (which) *which = d;
      return role;
    }
  }
  return "";
}

class KernelBuilder {
 public:
  KernelBuilder(const FileView& file, KernelSink& sink) : file_(file), m_(*file.python()), sink_(sink) {
    labeler_ = [](const PythonModule& m, const ModuleStatement& s) -> std::string {
      std::string role = role_of_decorators(m, decorators_of(s.node), nullptr);
      if (role == "device_function") return "device_function";
      return role.empty() ? "" : "cuda_" + role;
    };
  }

  void from_function(const FunctionSite& site) {
    TSNode decorator{};
    std::string role = role_of_decorators(m_, site.decorators, &decorator);
    if (role.empty()) return;
    if (ts_node_has_error(site.node)) {
      sink_.problem(first_line(site.node), "syntax", "kernel " + site.qualname + " contains a syntax error; skipped");
      return;
    }
    ExtractedKernel k = kernel_from_function(file_, site, definition_at_top_level(m_, site), labeler_);
    nlohmann::json names = nlohmann::json::array();
    for (TSNode d : site.decorators) {
      auto q = m_.qualified_name(d);
      names.push_back(q ? *q : m_.text_of(d));
    }
    k.meta["decorators"] = names;
    describe(k, role, decorator);
    sink_.kernel(std::move(k));
  }

  // `k = cuda.jit(fn)`, `k = cuda.jit("sig")(fn)`, `d = cuda.jit(device=True)(fn)`.
  void from_assignment(const ModuleStatement& s) {
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
    const FunctionSite* target = nullptr;
    for (const auto& f : m_.functions())
      if (f.statement && f.name == m_.text_of(fn)) target = &f;
    if (!target) return;

    ClosureRoot root;
    root.text = m_.dedented_text(s.node, s.indent);
    root.reads = s.reads;
    root.binds = s.binds;
    root.statement = &s;
    root.pieces = {{s.node, s.indent, "", ""}};
    root.node = s.node;
    ClosureResult closure = file_.close_over(root, labeler_);
    ExtractedKernel k;
    k.name = m_.text_of(left);
    k.qualname = k.name;
    k.start_line = s.start_line;
    k.end_line = s.end_line;
    k.source = root.text;
    k.standalone = std::move(closure.standalone);
    k.dependencies = std::move(closure.dependencies);
    k.external_modules = std::move(closure.external_modules);
    k.self_contained = closure.self_contained;
    k.meta["functional"] = true;
    k.meta["parameters"] = parameters_of(m_, target->definition);
    describe(k, role, compiler);
    sink_.kernel(std::move(k));
  }

 private:
  void describe(ExtractedKernel& k, const std::string& role, TSNode compiler) {
    k.meta["role"] = role;
    nlohmann::json sigs = signatures_of(m_, compiler);
    if (!sigs.empty()) k.meta["signatures"] = sigs;
  }

  const FileView& file_;
  const PythonModule& m_;
  KernelSink& sink_;
  DependencyLabeler labeler_;
};

}  // namespace

// `cuda.jit` where `cuda` comes from an import inside an enclosing function (usual in numba's
// docs and tests): the module model resolves module-level imports only. The nearest enclosing
// function that imports a `cuda` decides; nothing at module level may bind it.
std::optional<std::string> locally_imported_jit(const PythonModule& m, TSNode decorator) {
  TSNode callee = is_type(decorator, "call") ? field(decorator, "function") : decorator;
  if (m.text_of(callee) != "cuda.jit" || !m.bindings_of("cuda").empty()) return std::nullopt;
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

std::string numba_cuda_role(const PythonModule& m, TSNode decorator) {
  auto q = m.qualified_name(decorator);
  if (!q) q = locally_imported_jit(m, decorator);
  if (!q) return "";
  if (is_cuda_jit(*q)) {
    TSNode device = keyword_argument(m, decorator, "device");
    return !ts_node_is_null(device) && m.text_of(device) == "True" ? "device_function" : "kernel";
  }
  if (is_ufunc_builder(*q)) {
    TSNode target = keyword_argument(m, decorator, "target");
    if (!ts_node_is_null(target) && string_value(m, target) == "cuda") return "ufunc";
  }
  return "";
}

void NumbaPlugin::extract(const FileView& file, KernelSink& sink) const {
  const PythonModule* m = file.python();
  if (!m) return;
  KernelBuilder builder(file, sink);
  for (const auto& site : m->functions()) builder.from_function(site);
  for (const auto& s : m->statements())
    if (s.kind == StatementKind::Assignment) builder.from_assignment(s);
}

}  // namespace mine
