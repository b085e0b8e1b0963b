#include "plugins/triton/triton_plugin.h"

#include <nlohmann/json.hpp>

#include <optional>

#include "plugins/sdk/file_reports.h"
#include "plugins/sdk/plugin_entry.h"
#include "plugins/sdk/python_file.h"
#include "plugins/triton/written_to_fail.h"

namespace mine {
namespace {

using namespace sdk;

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool decorated_with_jit(const PythonFile& m, const std::vector<TSNode>& decorators) {
  for (TSNode d : decorators) {
    auto q = m.qualified_name(d);
    if (q && is_triton_jit(*q)) return true;
  }
  return false;
}

// Helpers that are themselves @triton.jit functions are labelled so, in any module the closure reaches.
const char* label(void*, const mine_host* host, const mine_file* module, size_t statement) {
  PythonFile m(host, module);
  return decorated_with_jit(m, decorators_of(m.statement(statement).node)) ? "jit_function" : nullptr;
}

class KernelBuilder {
 public:
  KernelBuilder(const PythonFile& file, mine_sink* sink) : m_(file), reports_(file, sink, "triton", label) {}

  void from_function(size_t index, const mine_python_function& site) {
    if (ts_node_has_error(site.node)) {
      problem(first_line(site.node), "syntax", "kernel " + std::string(site.qualname) + " contains a syntax error; skipped");
      return;
    }
    bool autotune = false, heuristics = false;
    for (size_t d = 0; d < site.decorator_count; ++d) {
      std::string q = m_.decorator_name(index, d);
      autotune = autotune || ends_with(q, "triton.autotune");
      heuristics = heuristics || ends_with(q, "triton.heuristics");
    }
    nlohmann::json meta = {{"autotune", autotune}, {"heuristics", heuristics}};
    if (!substituted_) substituted_.emplace(m_.text());
    auto placeholders = source_placeholders(m_, site, *substituted_);
    if (!placeholders.empty()) meta["source_placeholders"] = placeholders;
    if (used_only_where_errors_expected(m_, site)) meta["expects_error"] = true;
    report(MINE_ROOT_FUNCTION, index, nullptr, meta, first_line(site.node));
  }

  // `k = triton.jit(fn)`: the kernel is the assignment; the closure pulls in fn.
  void from_assignment(size_t index, const mine_python_statement& s) {
    TSNode assign = ts_node_named_child(s.node, 0);
    TSNode left = field(assign, "left");
    TSNode right = field(assign, "right");
    if (!is_type(assign, "assignment") || !is_type(left, "identifier") || !is_type(right, "call")) return;
    auto q = m_.qualified_name(right);
    if (!q || !is_triton_jit(*q)) return;
    nlohmann::json meta = {{"functional", true}};
    TSNode first = ts_node_named_child(field(right, "arguments"), 0);
    if (is_type(first, "identifier")) {
      std::string_view fn = m_.view_of(first);
      for (size_t i = 0, n = m_.function_count(); i < n; ++i) {
        mine_python_function f = m_.function(i);
        if (f.statement >= 0 && f.name == fn) meta["parameters"] = nlohmann::json::parse(m_.parameters_json(i));
      }
    }
    std::string name = m_.text_of(left);
    report(MINE_ROOT_STATEMENT, index, name.c_str(), meta, s.start_line);
  }

 private:
  void report(int root_kind, size_t root, const char* name, const nlohmann::json& meta, int line) {
    reports_.kernel(root_kind, root, name, meta, line);
  }
  void problem(int line, const std::string& kind, const std::string& message) { reports_.problem(line, kind, message); }

  const PythonFile& m_;
  FileReports reports_;
  std::optional<SubstitutedNames> substituted_;  // the file's, read at its first kernel
};

void extract(const mine_host* host, const mine_file* file, mine_sink* sink, void*) {
  run_guarded("triton", host, sink, [&] {
    PythonFile m(host, file);
    // Every way of writing a Triton kernel spells `jit` somewhere; skip the parse otherwise.
    if (m.text().find("jit") == std::string_view::npos) return;
    if (!m.tree()) return;
    KernelBuilder builder(m, sink);
    for (size_t i = 0, n = m.function_count(); i < n; ++i) {
      mine_python_function site = m.function(i);
      if (decorated_with_jit(m, m.decorators(i, site.decorator_count))) builder.from_function(i, site);
    }
    for (size_t i = 0, n = m.statement_count(); i < n; ++i) {
      mine_python_statement s = m.statement(i);
      if (s.kind == MINE_STATEMENT_ASSIGNMENT) builder.from_assignment(i, s);
    }
  });
}

const char* const kSuffixes[] = {".py", nullptr};
const char* const kPrefilters[] = {"triton", nullptr};

const mine_plugin_info kInfo = {
    MINE_PLUGIN_ABI_VERSION,
    "triton",
    "1",
    "Triton @triton.jit kernels (any alias, autotune/heuristics stacks, triton.jit(fn)) with their helpers",
    kSuffixes,
    kPrefilters,
    extract,
    nullptr,
    nullptr,  // claims: never
};

}  // namespace

bool is_triton_jit(const std::string& q) {
  if (q.rfind("triton.", 0) != 0) return false;
  return q == "triton.jit" || ends_with(q, ".jit.jit") || ends_with(q, "runtime.jit") ||
         q == "triton.experimental.gluon.jit" || ends_with(q, "gluon.jit");
}

const mine_plugin_info* triton_plugin() { return &kInfo; }

}  // namespace mine
