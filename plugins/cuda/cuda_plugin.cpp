#include "plugins/cuda/cuda_plugin.h"

#include <set>

#include "plugins/cuda/cuda_source.h"
#include "plugins/cuda/embedded_sources.h"

namespace mine {
namespace {

void report(const CudaSource& unit, const CudaKernelSite& site, const FileView& file, KernelSink& sink,
            int line_offset, const nlohmann::json& extra) {
  ExtractedKernel k = unit.extract(site, file.path(), line_offset);
  // The grammar misses some C++ that nvcc accepts (macro-built statements, newer syntax); the
  // kernel's text is still the kernel, so it is kept and flagged rather than dropped.
  if (ts_node_has_error(site.node)) {
    sink.problem(k.start_line, "syntax",
                 "kernel " + site.qualname + " only partly parses as CUDA C++; extracted as written");
    k.meta["parse_error"] = true;
  }
  for (auto it = extra.begin(); it != extra.end(); ++it) k.meta[it.key()] = it.value();
  sink.kernel(std::move(k));
}

void extract_python(const FileView& file, KernelSink& sink) {
  const PythonModule* m = file.python();
  if (!m) return;
  std::vector<std::pair<int, std::string>> skipped;
  std::set<std::pair<uint32_t, std::string>> reported;  // a constant shared by several calls counts once
  for (const auto& source : embedded_cuda_sources(*m, skipped)) {
    CudaSource unit(source.code);
    for (const auto& site : unit.kernels()) {
      if (!source.kernel_name.empty() && site.name != source.kernel_name) continue;
      if (!reported.insert({source.string_start, site.qualname}).second) continue;
      report(unit, site, file, sink, source.line_offset, {{"embedded_in", source.host}});
    }
  }
  for (const auto& [line, why] : skipped) sink.problem(line, "dynamic_source", why);
}

}  // namespace

void CudaPlugin::extract(const FileView& file, KernelSink& sink) const {
  if (file.python()) return extract_python(file, sink);
  const std::string& path = file.path();
  if (path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0) return;  // Python that did not parse
  CudaSource unit(file.text());
  for (const auto& site : unit.kernels()) report(unit, site, file, sink, 0, nlohmann::json::object());
}

}  // namespace mine
