#include "plugins/inductor/inductor_plugin.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugins/inductor/fx_graph.h"
#include "plugins/inductor/inductor_records.h"
#include "plugins/inductor/kernel_module.h"
#include "plugins/inductor/output_code.h"
#include "plugins/inductor/output_code_chunks.h"
#include "plugins/inductor/output_code_log.h"
#include "core/python/syntax_tree.h"
#include "plugins/sdk/plugin_entry.h"
#include "plugins/sdk/python_file.h"
#include "plugins/sdk/report_kernel.h"

namespace fs = std::filesystem;

namespace mine {
namespace {

using namespace inductor;

// Where one file's reports go, through the C ABI.
struct Reports {
  const mine_host* host;
  mine_sink* sink;
  void kernel(const ExtractedKernel& k) const {
    if (sdk::report_assembled_kernel(host, sink, k) != 0)
      problem(k.start_line, "plugin", "mine refused the report of kernel " + k.qualname);
  }
  void problem(int line, const std::string& kind, const std::string& message) const {
    host->report_problem(sink, line, kind.c_str(), message.c_str());
  }
};

constexpr std::uintmax_t kMaxCacheFileBytes = 20u << 20;

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The compiled graph a file belongs to: a debug folder is named after it
// (torchinductor/model__0_inference_0.0/output_code.py); a cached module is its own graph.
std::string graph_of(const std::string& path) {
  std::string base = base_name(path);
  if (base == "output_code.py") return base_name(parent_dir(path));
  return base.substr(0, base.rfind('.'));
}

nlohmann::json kernel_meta(const KernelModule& km) {
  nlohmann::json meta = nlohmann::json::object();
  meta["category"] = km.category.empty() ? nlohmann::json(nullptr) : nlohmann::json(km.category);
  meta["decorator"] = km.decorator;
  meta["parameters"] = km.parameters;
  meta["signature"] = km.signature;
  meta["constants"] = km.constants;
  meta["size_hints"] = km.size_hints;
  meta["pytorch_code"] = nlohmann::json::array();
  return meta;
}

ExtractedKernel kernel_from(const KernelModule& km, std::string source) {
  ExtractedKernel k;
  k.name = km.name;
  k.qualname = km.name;
  k.source = source;
  k.standalone = std::move(source);  // the module Inductor generated is complete by itself
  k.external_modules = km.external_modules;
  k.self_contained = true;
  k.meta = kernel_meta(km);
  return k;
}

class OutputCodeReader {
 public:
  OutputCodeReader(const sdk::PythonFile& file, const Reports& sink, const std::vector<std::string>& cache_dirs,
                   KernelModuleCache& modules, ChunkReadings& chunks)
      : file_(file), sink_(sink), cache_dirs_(cache_dirs), modules_(modules), chunks_(chunks), graph_(graph_of(file.path())),
        text_(file.text()) {}

  // A module a log printed (output_code_log.h): its text, the log line it starts on, and the
  // graph it is named for (the log's name and the module's place in it).
  OutputCodeReader(const sdk::PythonFile& log, const Reports& sink, const std::vector<std::string>& cache_dirs,
                   KernelModuleCache& modules, ChunkReadings& chunks, std::string_view text, int first_line,
                   std::string graph)
      : file_(log), sink_(sink), cache_dirs_(cache_dirs), modules_(modules), chunks_(chunks), graph_(std::move(graph)),
        text_(text), line_offset_(first_line - 1), logged_(true) {}

  void read() {
    // Only the kernels' region is parsed, piece by piece (identical kernel statements of other
    // graphs are read once), and without the module model (free names of every statement) that
    // other plugins need: the kernels are string literals, and the rest of the file is the code
    // that runs the graph. Where that does not give clean Python (truncated or hand-edited
    // output), the whole module is parsed as usual, with its syntax errors reported.
    std::optional<std::vector<KernelCall>> region;
    size_t end = kernel_region_end(text_);
    if (end != std::string::npos) region = read_kernel_region(text_, end, chunks_);
    std::unique_ptr<SyntaxTree> parsed;  // a logged module's own parse (the log is no Python)
    if (!region && logged_) {
      parsed = SyntaxTree::parse(std::string(text_));
      region = find_kernel_calls(*parsed);
    } else if (!region) {
      if (!file_.tree()) return;
      region = find_kernel_calls(file_.root(), SourceText(text_));
    }
    std::vector<KernelCall>& calls = *region;
    // Lines of a logged module count from the log's line it starts on.
    for (auto& c : calls) {
      c.start_line += line_offset_;
      c.end_line += line_offset_;
      c.source_line += line_offset_;
    }
    std::set<int> seen;
    for (const auto& c : calls) {
      seen.insert(c.start_line);
      one(c);
    }
    for (int relative : kernel_call_lines_by_text(std::string(text_)))
      if (int line = relative + line_offset_; !seen.count(line))
        sink_.problem(line, "unreadable_kernel",
                      "async_compile.triton call at line " + std::to_string(line) +
                          " could not be read (syntax error around it; truncated file?); kernel skipped");
  }

 private:
  void one(const KernelCall& c) {
    std::string label = c.registered_name.empty() ? c.variable : c.registered_name;
    if (c.source) {
      std::string module = normalized_module(*c.source);
      // Lines of the module map to the file from the opening quotes on; normalizing dropped
      // the leading blank lines.
      int offset = c.source_line - 1 + leading_lines(*c.source);
      emit(c, module, "inline", offset);
      return;
    }
    if (c.comments.kernel_path.empty()) {
      sink_.problem(c.start_line, "missing_source",
                    "kernel " + label + ": the source is not an inline string and no '# kernel path:' names it");
      return;
    }
    if (auto found = from_cache_dirs(c.comments.kernel_path)) {
      emit(c, normalized_module(found->second), "cache_dir", 0, found->first);
      return;
    }
    ExtractedKernel k;  // resolved against the scanned tree's cache files by the corpus, or recorded missing
    k.name = label;
    k.qualname = c.variable;
    k.start_line = c.start_line;
    k.end_line = c.end_line;
    k.self_contained = false;
    k.meta = occurrence_meta(c);
    k.meta[kRecord] = kMissing;
    k.meta["source_origin"] = kMissing;
    sink_.kernel(k);
  }

  void emit(const KernelCall& c, std::string module, const char* origin, int line_offset,
            const std::string& read_from = "") {
    std::string label = c.registered_name.empty() ? c.variable : c.registered_name;
    auto reading = modules_.read(module, c.registered_name);
    const KernelModuleReading& r = *reading;
    for (const auto& p : r.problems) {
      int line = p.line && line_offset >= 0 && read_from.empty() ? line_offset + p.line : c.start_line;
      std::string where = read_from.empty() ? "" : " (source read from " + read_from + ")";
      sink_.problem(line, p.kind, p.message + where + (r.ok ? "" : "; kernel " + label + " skipped"));
    }
    if (!r.ok) return;
    ExtractedKernel k = kernel_from(r.kernel, std::move(module));
    k.qualname = c.variable;
    k.start_line = c.start_line;
    k.end_line = c.end_line;
    nlohmann::json extra = occurrence_meta(c);
    for (auto& [key, value] : extra.items()) k.meta[key] = value;
    k.meta["source_origin"] = origin;
    if (!read_from.empty()) k.meta["read_from"] = read_from;
    sink_.kernel(k);
  }

  nlohmann::json occurrence_meta(const KernelCall& c) const {
    nlohmann::json m = nlohmann::json::object();
    m["graph"] = graph_;
    m["aten_ops"] = c.comments.aten_ops;
    m["source_nodes"] = c.comments.source_nodes;
    m["node_mapping"] = c.comments.node_mapping;
    m["kernel_path"] = c.comments.kernel_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.comments.kernel_path);
    m["pytorch_code"] = nlohmann::json::array();
    return m;
  }

  static int leading_lines(const std::string& s) {
    int n = 0;
    size_t begin = 0;
    while (true) {
      size_t eol = s.find('\n', begin);
      if (eol == std::string::npos) return n;
      if (s.find_first_not_of(" \t\r", begin) < eol) return n;
      ++n;
      begin = eol + 1;
    }
  }

  // The kernel path's last two parts (`ab/<hash>.py`) under each cache folder the user gave;
  // nothing else on disk is read.
  std::optional<std::pair<std::string, std::string>> from_cache_dirs(const std::string& kernel_path) const {
    fs::path p(kernel_path);
    fs::path tail = p.parent_path().filename() / p.filename();
    if (p.filename().extension() != ".py") return std::nullopt;
    for (const auto& dir : cache_dirs_) {
      fs::path candidate = fs::path(dir) / tail;
      std::error_code ec;
      if (!fs::is_regular_file(candidate, ec) || fs::file_size(candidate, ec) > kMaxCacheFileBytes) continue;
      std::ifstream in(candidate, std::ios::binary);
      std::stringstream s;
      s << in.rdbuf();
      if (in.bad()) continue;
      return std::make_pair(candidate.string(), s.str());
    }
    return std::nullopt;
  }

  const sdk::PythonFile& file_;
  const Reports& sink_;
  const std::vector<std::string>& cache_dirs_;
  KernelModuleCache& modules_;
  ChunkReadings& chunks_;
  std::string graph_;
  std::string_view text_;  // the output-code module: the file's text, or a module its log printed
  int line_offset_ = 0;
  bool logged_ = false;
};

// A file of the torchinductor cache: one kernel module with an Inductor heuristics decorator; a
// template's module (`@triton_heuristics.template`, flex attention) also holds the @triton.jit
// helpers its kernel calls.
// Files that merely mention triton_meta (Inductor's own sources, user code using its heuristics
// beside kernels of their own) are not: they stay the triton plugin's. The reading is cached, so
// `claims` and `extract` parse the file once.
std::shared_ptr<const KernelModuleReading> cache_kernel(std::string_view text, KernelModuleCache& modules) {
  if (text.find("async_compile.triton(") != std::string_view::npos || text.find("triton_meta=") == std::string_view::npos ||
      text.find("torch._inductor") == std::string_view::npos)
    return nullptr;
  auto reading = modules.read(std::string(text), "");
  bool template_module = reading->heuristics_functions == 1 && reading->kernel.category == "template";
  if (!reading->ok || reading->kernel.decorator.empty() || (reading->jit_functions != 1 && !template_module))
    return nullptr;
  return reading;
}

void read_cache_kernel(const sdk::PythonFile& file, const KernelModuleReading& r, const Reports& sink) {
  std::string text(file.text());
  for (const auto& p : r.problems) sink.problem(p.line, p.kind, p.message);
  ExtractedKernel k = kernel_from(r.kernel, normalized_module(text));
  k.start_line = r.kernel.start_line;
  k.end_line = r.kernel.end_line;
  k.meta["graph"] = nullptr;
  k.meta["aten_ops"] = nlohmann::json::array();
  k.meta["source_nodes"] = nlohmann::json::array();
  k.meta["node_mapping"] = nlohmann::json::object();
  k.meta["kernel_path"] = nullptr;
  k.meta["source_origin"] = "cache_module";
  sink.kernel(k);
}

void read_fx_graph_file(const sdk::PythonFile& file, const Reports& sink) {
  ExtractedKernel k;
  k.name = "fx_graph_readable";
  k.qualname = k.name;
  k.start_line = 1;
  k.meta = read_fx_graph(std::string(file.text()));
  k.meta[kRecord] = kFxGraph;
  k.meta["graph"] = graph_of(parent_dir(file.path()) + "/output_code.py");
  sink.kernel(k);
}

bool is_fx_graph(const std::string& path) { return base_name(path) == "fx_graph_readable.py"; }

// A log that printed at least one output-code module.
bool logs_output_code(std::string_view text) {
  if (text.find("[__output_code] ") == std::string_view::npos) return false;
  for (const auto& m : logged_output_code(text))
    if (is_output_code(m.text)) return true;
  return false;
}

// Inductor's output is Inductor's alone: output-code modules, FX graphs, one-kernel cache files,
// and the output code a log printed.
int claims(const mine_host* host, const mine_file* handle, void* context) {
  try {
    const auto& state = *static_cast<const InductorState*>(context);
    sdk::PythonFile file(host, handle);
    std::string_view text = file.text();
    if (is_log_path(file.path())) return logs_output_code(text);
    return is_fx_graph(file.path()) || is_output_code(text) || cache_kernel(text, state.modules) != nullptr;
  } catch (const std::exception&) {
    return 0;  // an exception must not unwind through the C boundary
  }
}

std::vector<std::string> env_cache_dirs() {
  std::vector<std::string> dirs;
  const char* env = std::getenv("MINE_INDUCTOR_CACHE");
  std::string_view s = env ? env : "";
  while (!s.empty()) {
    size_t colon = s.find(':');
    if (colon != 0) dirs.emplace_back(s.substr(0, colon));
    if (colon == std::string_view::npos) break;
    s.remove_prefix(colon + 1);
  }
  return dirs;
}

void extract(const mine_host* host, const mine_file* handle, mine_sink* sink, void* context) {
  sdk::run_guarded("inductor", host, sink, [&] {
    const auto& state = *static_cast<const InductorState*>(context);
    sdk::PythonFile file(host, handle);
    Reports reports{host, sink};
    std::string_view text = file.text();
    std::string path = file.path();
    // Reads exactly the files it claims: Inductor's own sources, which quote its calls in
    // strings, and user code using its heuristics are left to the other plugins.
    // FX graphs are read as text, never parsed: they are not valid Python (`class <lambda>`), and
    // tree-sitter's error recovery on them costs more than everything else of a debug folder.
    if (is_fx_graph(path)) return read_fx_graph_file(file, reports);
    if (is_log_path(path)) {
      // `TORCH_LOGS=output_code` output: each module it printed, read as output_code.py is; the
      // graph is named for the log and the module's place in it.
      std::vector<LoggedModule> modules = logged_output_code(text);
      for (size_t i = 0; i < modules.size(); ++i)
        if (is_output_code(modules[i].text))
          OutputCodeReader(file, reports, state.cache_dirs, state.modules, state.chunks, modules[i].text,
                           modules[i].first_line, graph_of(path) + "#" + std::to_string(i + 1))
              .read();
      return;
    }
    if (is_output_code(text)) return OutputCodeReader(file, reports, state.cache_dirs, state.modules, state.chunks).read();
    if (auto reading = cache_kernel(text, state.modules)) read_cache_kernel(file, *reading, reports);
  });
}

const char* const kSuffixes[] = {".py", ".log", ".txt", ".out", ".err", nullptr};
const char* const kPrefilters[] = {R"(async_compile\.triton\()", R"(triton_meta=)", R"(# File: .*, code: )", nullptr};

}  // namespace

InductorState::InductorState(std::vector<std::string> dirs)
    : cache_dirs(std::move(dirs)),
      info{MINE_PLUGIN_ABI_VERSION,
           "inductor",
           "1",
           "PyTorch Inductor Triton kernels (output_code.py, torchinductor cache, TORCH_LOGS=output_code logs) with "
           "graph, category, "
           "signature, size hints, ATen ops and PyTorch code; identical kernels stored once",
           kSuffixes,
           kPrefilters,
           extract,
           this,
           claims} {}

const mine_plugin_info* inductor_plugin_info() {
  static const InductorState state(env_cache_dirs());
  return &state.info;
}

InductorPlugin::InductorPlugin() : InductorPlugin(env_cache_dirs()) {}

std::vector<std::string> InductorPlugin::cache_dirs_from_env() { return env_cache_dirs(); }

InductorPlugin::InductorPlugin(std::vector<std::string> cache_dirs)
    : InductorState(std::move(cache_dirs)), CAbiPlugin(&info, "built-in") {}

}  // namespace mine
