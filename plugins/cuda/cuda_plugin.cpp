#include "plugins/cuda/cuda_plugin.h"

#include <set>

#include "plugins/cuda/build_defines.h"
#include "plugins/cuda/cuda_source.h"
#include "plugins/cuda/embedded_sources.h"
#include "plugins/cuda/include_resolver.h"
#include "plugins/cuda/launch_config.h"
#include "plugins/sdk/plugin_entry.h"
#include "plugins/sdk/report_kernel.h"

namespace mine {
namespace {

using namespace sdk;

// A unit and what its build says of it: read once, for each of its kernels.
struct BuiltUnit {
  BuiltUnit(const CudaSource& source, std::vector<BuildDefine> build)
      : unit(source), defines(std::move(build)), values(define_values(defines)), launches(unit, values) {}
  const CudaSource& unit;
  std::vector<BuildDefine> defines;
  std::map<std::string, std::string> values;  // the defines' values in the standalone
  UnitLaunches launches;
};

void report(const BuiltUnit& built, const CudaKernelSite& site, const PythonFile& file, mine_sink* sink,
            int line_offset, const nlohmann::json& extra, IncludeResolver& includes) {
  const mine_host* host = file.host();
  std::string path = file.path();
  const std::vector<BuildDefine>& defines = built.defines;
  ExtractedKernel k = built.unit.extract(site, path, line_offset, &includes, built.values);
  LaunchConfig launch = built.launches.of(site);
  if (!launch.block.empty()) {
    k.meta["launch_config"] = {{"block", launch.block}, {"line", launch.line + line_offset}};
    if (!launch.grid.empty()) k.meta["launch_config"]["grid"] = launch.grid;
  }
  add_build_defines(k, defines);
  add_guard_defines(k, defines);
  // The grammar misses some C++ that nvcc accepts (macro-built statements, newer syntax); the
  // kernel's text is still the kernel, so it is kept and flagged rather than dropped.
  if (ts_node_has_error(site.node)) {
    host->report_problem(sink, k.start_line, "syntax",
                         ("kernel " + site.qualname + " only partly parses as CUDA C++; extracted as written").c_str());
    k.meta["parse_error"] = true;
  }
  for (auto it = extra.begin(); it != extra.end(); ++it) k.meta[it.key()] = it.value();

  if (report_assembled_kernel(host, sink, k) != 0)
    host->report_problem(sink, k.start_line, "plugin", ("mine refused the report of kernel " + k.qualname).c_str());
}

// The repository's headers, read through the host and parsed once per scanned file.
IncludeResolver resolver_for(const PythonFile& file) {
  return IncludeResolver([&file](const std::string& path) { return file.repository_file(path); },
                         [&file](const std::string& tail) { return file.repository_paths_ending(tail); });
}

void extract_python(const PythonFile& m, mine_sink* sink) {
  IncludeResolver includes = resolver_for(m);
  std::vector<std::pair<int, std::string>> skipped;
  std::set<std::pair<uint32_t, std::string>> reported;  // a constant shared by several calls counts once
  for (const auto& source : embedded_cuda_sources(m, skipped)) {
    CudaSource unit(source.code);
    BuiltUnit built(unit, build_defines_of_call(m, source.call));
    for (const auto& site : unit.kernels()) {
      if (!source.kernel_name.empty() && site.name != source.kernel_name) continue;
      if (!reported.insert({source.string_start, site.qualname}).second) continue;
      report(built, site, m, sink, source.line_offset, {{"embedded_in", source.host}}, includes);
    }
  }
  for (const auto& [line, why] : skipped) m.host()->report_problem(sink, line, "dynamic_source", why.c_str());
}

void extract(const mine_host* host, const mine_file* file, mine_sink* sink, void*) {
  run_guarded("cuda", host, sink, [&] {
    PythonFile m(host, file);
    if (m.tree()) return extract_python(m, sink);
    std::string path = m.path();
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".py") == 0) return;  // Python that did not parse
    std::shared_ptr<const CudaSource> parse = shared_parse(path, m.text());
    const CudaSource& unit = *parse;
    IncludeResolver includes = resolver_for(m);
    // The macros a build call of the repository's Python code defines for this file, if any.
    if (unit.kernels().empty()) return;
    BuiltUnit built(unit, build_defines_of(m));
    for (const auto& site : unit.kernels()) report(built, site, m, sink, 0, nlohmann::json::object(), includes);
  });
}

const char* const kSuffixes[] = {".cu", ".cuh", ".cuda", ".py", nullptr};
const char* const kPrefilters[] = {"__global__", nullptr};  // embedded sources carry it too

const mine_plugin_info kInfo = {
    MINE_PLUGIN_ABI_VERSION,
    "cuda",
    "1",
    "CUDA C++ __global__ kernels (.cu/.cuh/.cuda, cupy RawKernel/RawModule and load_inline strings) with their "
    "same-unit helpers",
    kSuffixes,
    kPrefilters,
    extract,
    nullptr,
    nullptr,  // claims: never
};

}  // namespace

const mine_plugin_info* cuda_plugin() { return &kInfo; }

}  // namespace mine
