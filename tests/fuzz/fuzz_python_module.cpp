// Python module model, name scopes and the dependency closures (same file and across files),
// driven through the Triton and Numba extractors as a scan would, and directly for every function.
// Input: Python files separated by "#--- path.py" lines; the first is "pkg/kernels.py".
#include <cstddef>
#include <cstdint>

#include "core/python/dependency_closure.h"
#include "plugins/registry.h"
#include "tests/fuzz/fuzz_support.h"

using namespace mine;

namespace {

void close_every_function(const PythonModule& m, const Repository& repo) {
  for (const auto& site : m.functions()) {
    for (TSNode d : site.decorators) (void)m.qualified_name(d);
    ClosureRoot root;
    root.text = m.dedented_text(site.node, site.indent);
    try {
      root.reads = free_names(m.tree(), site.node);
    } catch (const Error&) {
      continue;  // nested too deep: reported, never a crash
    }
    root.binds = {site.name};
    root.statement = site.statement;
    ClosureResult same = DependencyClosure(m).compute(root);
    ClosureResult across = RepositoryClosure(repo, m).compute(root);
    if (same.standalone.find(root.text) == std::string::npos) fuzz::violated("standalone lost the kernel: " + site.qualname);
    if (across.standalone.empty()) fuzz::violated("empty cross-file standalone: " + site.qualname);
    for (const auto& d : across.dependencies)
      if (d.kind.empty()) fuzz::violated("dependency without a kind: " + d.name);
  }
  (void)m.public_names();
  (void)m.star_imports();
  (void)first_syntax_error(m.tree().root());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto parts = fuzz::split_parts(input, "pkg/kernels.py");
  fuzz::MemoryRepository memory(parts);
  // The Triton and Numba extractors, behind the same C ABI adapter the scanner uses.
  static const std::vector<const ExtractorPlugin*> python_plugins = [] {
    std::vector<const ExtractorPlugin*> out;
    for (const auto& p : builtin_plugins())
      if (p->name() == "triton" || p->name() == "numba") out.push_back(p.get());
    return out;
  }();
  for (const auto& p : parts) {
    auto it = memory.modules.find(p.name);
    if (it == memory.modules.end()) continue;
    const PythonModule& m = *it->second;
    close_every_function(m, memory.repo);
    fuzz::MemoryFileView view(p.name, p.text, &m, memory.repo);
    for (const ExtractorPlugin* plugin : python_plugins) {
      fuzz::CheckingSink sink;
      try {
        plugin->extract(view, sink);
      } catch (const Error&) {
        // a per-file problem, as the scanner records it
      }
      // A standalone is itself a Python module the corpus stores and `mine check` re-reads.
      for (const auto& k : sink.kernels) {
        try {
          auto again = PythonModule::build("standalone.py", k.standalone);
          (void)again->functions();
        } catch (const Error&) {
        }
      }
    }
  }
  return 0;
}
