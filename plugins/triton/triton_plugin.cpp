#include "plugins/triton/triton_plugin.h"

#include "plugins/python_definitions/python_definition.h"

namespace mine {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool decorated_with_jit(const PythonModule& m, const std::vector<TSNode>& decorators) {
  for (TSNode d : decorators) {
    auto q = m.qualified_name(d);
    if (q && is_triton_jit(*q)) return true;
  }
  return false;
}

class KernelBuilder {
 public:
  KernelBuilder(const FileView& file, KernelSink& sink) : file_(file), m_(*file.python()), sink_(sink) {
    labeler_ = [](const PythonModule& m, const ModuleStatement& s) -> std::string {
      return decorated_with_jit(m, decorators_of(s.node)) ? "jit_function" : "";
    };
  }

  void from_function(const FunctionSite& site) {
    if (ts_node_has_error(site.node)) {
      sink_.problem(first_line(site.node), "syntax",
                    "kernel " + site.qualname + " contains a syntax error; skipped");
      return;
    }
    nlohmann::json decorator_names = nlohmann::json::array();
    for (TSNode d : site.decorators) {
      auto q = m_.qualified_name(d);
      decorator_names.push_back(q ? *q : m_.text_of(d));
    }
    ClosureRoot root = function_root(m_, site, definition_at_top_level(m_, site));

    ExtractedKernel k;
    k.name = site.name;
    k.qualname = site.qualname;
    k.start_line = first_line(site.node);
    k.end_line = last_line(site.node);
    k.source = m_.dedented_text(site.node, site.indent);
    k.meta["decorators"] = decorator_names;
    k.meta["parameters"] = parameters_of(m_, site.definition);
    bool autotune = false, heuristics = false;
    for (const auto& d : decorator_names) {
      std::string q = d.get<std::string>();
      autotune = autotune || ends_with(q, "triton.autotune");
      heuristics = heuristics || ends_with(q, "triton.heuristics");
    }
    k.meta["autotune"] = autotune;
    k.meta["heuristics"] = heuristics;
    if (site.in_class) k.meta["method"] = true;
    if (site.in_function) k.meta["nested"] = true;
    finish(std::move(k), root);
  }

  // `k = triton.jit(fn)`: the kernel is the assignment; the closure pulls in fn.
  void from_assignment(const ModuleStatement& s) {
    TSNode assign = ts_node_named_child(s.node, 0);
    TSNode left = field(assign, "left");
    TSNode right = field(assign, "right");
    if (!is_type(assign, "assignment") || !is_type(left, "identifier") || !is_type(right, "call")) return;
    auto q = m_.qualified_name(right);
    if (!q || !is_triton_jit(*q)) return;
    ClosureRoot root;
    root.text = m_.dedented_text(s.node, s.indent);
    root.reads = s.reads;
    root.binds = s.binds;
    root.statement = &s;
    root.pieces = {{s.node, s.indent, "", ""}};
    root.node = s.node;
    ExtractedKernel k;
    k.name = m_.text_of(left);
    k.qualname = k.name;
    k.start_line = s.start_line;
    k.end_line = s.end_line;
    k.source = root.text;
    k.meta["functional"] = true;
    TSNode args = field(right, "arguments");
    TSNode first = ts_node_named_child(args, 0);
    if (is_type(first, "identifier")) {
      for (const auto& f : m_.functions())
        if (f.statement && f.name == m_.text_of(first)) k.meta["parameters"] = parameters_of(m_, f.definition);
    }
    finish(std::move(k), root);
  }

 private:
  void finish(ExtractedKernel k, const ClosureRoot& root) {
    ClosureResult closure = file_.close_over(root, labeler_);
    k.standalone = std::move(closure.standalone);
    k.dependencies = std::move(closure.dependencies);
    k.external_modules = std::move(closure.external_modules);
    k.self_contained = closure.self_contained;
    sink_.kernel(std::move(k));
  }

  const FileView& file_;
  const PythonModule& m_;
  KernelSink& sink_;
  DependencyLabeler labeler_;
};

}  // namespace

bool is_triton_jit(const std::string& q) {
  if (q.rfind("triton.", 0) != 0) return false;
  return q == "triton.jit" || ends_with(q, ".jit.jit") || ends_with(q, "runtime.jit") ||
         q == "triton.experimental.gluon.jit" || ends_with(q, "gluon.jit");
}

void TritonPlugin::extract(const FileView& file, KernelSink& sink) const {
  // Every way of writing a Triton kernel spells `jit` somewhere; skip the parse otherwise.
  if (file.text().find("jit") == std::string::npos) return;
  const PythonModule* m = file.python();
  if (!m) return;
  KernelBuilder builder(file, sink);
  for (const auto& site : m->functions())
    if (decorated_with_jit(*m, site.decorators)) builder.from_function(site);
  for (const auto& s : m->statements())
    if (s.kind == StatementKind::Assignment) builder.from_assignment(s);
}

}  // namespace mine
