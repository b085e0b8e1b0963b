#include "plugins/torch_module/torch_module_plugin.h"

#include <nlohmann/json.hpp>

#include "plugins/sdk/file_reports.h"
#include "plugins/sdk/plugin_entry.h"
#include "plugins/sdk/python_file.h"
#include "plugins/torch_module/input_inference.h"
#include "plugins/torch_module/module_class.h"
#include "plugins/torch_module/module_signature.h"

namespace mine {
namespace {

using namespace sdk;
using namespace torch_module;

// Base classes of other files that the closure pulls in are labelled when they extend torch.nn
// themselves, so a module's dependencies show the chain it inherits through.
const char* label(void*, const mine_host* host, const mine_file* module, size_t statement) {
  PythonFile m(host, module);
  mine_python_statement s = m.statement(statement);
  if (s.kind != MINE_STATEMENT_CLASS) return nullptr;
  TSNode cls = is_type(s.node, "decorated_definition") ? field(s.node, "definition") : s.node;
  bool module_base = false;
  TSNode supers = field(cls, "superclasses");
  if (ts_node_is_null(supers)) return nullptr;
  for_each_named_child(supers, [&](TSNode base) {
    auto q = m.qualified_name(base);
    module_base = module_base || (q && is_torch_module_base(*q));
  });
  return module_base ? "nn_module" : nullptr;
}

void extract(const mine_host* host, const mine_file* file, mine_sink* sink, void*) {
  run_guarded("torch_module", host, sink, [&] {
    PythonFile m(host, file);
    if (!m.tree()) return;
    FileReports reports(m, sink, "torch_module", label);
    for (const ModuleClass& cls : module_classes(m)) {
      mine_python_statement s = m.statement(cls.statement);
      if (ts_node_has_error(s.node)) {
        reports.problem(s.start_line, "syntax", "module " + cls.name + " contains a syntax error; skipped");
        continue;
      }
      nlohmann::json meta = module_signature(m, cls);
      meta["base_via"] = cls.base_via;
      meta["bases"] = cls.bases;
      meta["inputs"] = infer_inputs(m, cls);
      // Classes of the file its instantiations pass it (`ResNet(BasicBlock, ...)`), and those and
      // the functions that build the networks they pass (`GaussianDiffusion(Unet(dim=64))`): the
      // harness builds it with them, so the standalone defines them.
      std::vector<std::string> passed;
      for (const auto& a : meta["inputs"]["init"]) {
        std::string stand_in = a.value("stand_in", "");
        if (stand_in.rfind("module:", 0) == 0) passed.push_back(stand_in.substr(7));
        if (stand_in.rfind("expression:", 0) == 0)  // what builds it: `Unet(dim=64)`
          for (const auto& c : a.value("calls", nlohmann::json::array())) passed.push_back(c.get<std::string>());
      }
      reports.kernel(MINE_ROOT_STATEMENT, cls.statement, cls.name.c_str(), meta, s.start_line, passed);
    }
  });
}

const char* const kSuffixes[] = {".py", nullptr};
// Every module the plugin reports defines forward in its file (its own, or a base's of the file):
// files without one are not even parsed for it.
const char* const kPrefilters[] = {R"(def\s+forward\b)", nullptr};

const mine_plugin_info kInfo = {
    MINE_PLUGIN_ABI_VERSION,
    "torch_module",
    "1",
    "PyTorch nn.Module subclasses with a forward, their signatures, submodules and inferred inputs",
    kSuffixes,
    kPrefilters,
    extract,
    nullptr,
    nullptr,
};

}  // namespace

const mine_plugin_info* torch_module_plugin() { return &kInfo; }

}  // namespace mine
