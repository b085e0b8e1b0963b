// The Inductor readers: output_code.py (async_compile.triton calls, their comments, inline
// sources), kernel modules (heuristics decorators, triton_meta literals), Python literals and
// strings, and fx_graph_readable.py. Input: one file. Its first byte picks what it is read as
// (output_code.py, a cache module, an fx graph), so one corpus covers the three layouts.
#include <cstddef>
#include <cstdint>

#include "plugins/inductor/fx_graph.h"
#include "plugins/inductor/inductor_plugin.h"
#include "plugins/inductor/kernel_module.h"
#include "plugins/inductor/output_code.h"
#include "plugins/inductor/python_literal.h"
#include "tests/fuzz/fuzz_support.h"

using namespace mine;

namespace {

void require_dumpable(const nlohmann::json& j, const char* what) {
  try {
    (void)j.dump();
  } catch (const nlohmann::json::exception& e) {
    fuzz::violated(std::string(what) + " is no storable JSON: " + e.what());
  }
}

// Every literal and string node of the tree read the way triton_meta and sources are read.
void read_every_literal(const SyntaxTree& tree) {
  std::vector<TSNode> stack{tree.root()};
  size_t visited = 0;
  while (!stack.empty() && visited < 20000) {
    TSNode n = stack.back();
    stack.pop_back();
    ++visited;
    std::string_view t = node_type(n);
    if (t == "dictionary" || t == "list" || t == "tuple" || t == "set" || t == "string" ||
        t == "concatenated_string" || t == "integer" || t == "float" || t == "unary_operator") {
      require_dumpable(inductor::literal_value(tree, n), "literal");
      if (auto s = inductor::string_value(tree, n)) require_dumpable(nlohmann::json(*s), "string value");
    }
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* kNames[] = {"model__0_inference_0.0/output_code.py", "ab/cabcdef0123456789.py",
                                 "model__0_inference_0.0/fx_graph_readable.py"};
  std::string path = kNames[data[0] % 3];
  std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (!fuzz::scannable(text)) return 0;

  require_dumpable(inductor::read_fx_graph(text), "fx graph");
  (void)inductor::kernel_call_lines_by_text(text);
  (void)inductor::normalized_module(text);

  std::vector<fuzz::Part> parts{{path, text}};
  fuzz::MemoryRepository memory(parts);
  auto it = memory.modules.find(path);
  if (it == memory.modules.end()) return 0;
  const PythonModule& m = *it->second;
  read_every_literal(m.tree());
  for (const auto& call : inductor::find_kernel_calls(m.tree())) {
    require_dumpable(call.comments.aten_ops, "aten ops");
    require_dumpable(call.comments.node_mapping, "node mapping");
    if (call.source) {
      auto reading = inductor::read_kernel_module(*call.source, call.registered_name);
      require_dumpable(reading.kernel.signature, "signature");
      require_dumpable(reading.kernel.constants, "constants");
      require_dumpable(reading.kernel.size_hints, "size hints");
    }
  }
  auto reading = inductor::read_kernel_module(text, "");
  if (reading.ok && reading.kernel.name.empty()) fuzz::violated("kernel module read without a name");

  InductorPlugin plugin(std::vector<std::string>{});  // no cache folders: nothing is read from disk
  fuzz::MemoryFileView view(path, text, &m, memory.repo);
  fuzz::CheckingSink sink;
  try {
    plugin.extract(view, sink);
  } catch (const Error&) {
  }
  return 0;
}
