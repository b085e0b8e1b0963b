// The declarative plugin loader: a JSON manifest and a tree-sitter query, as a user drops them in
// a plugin folder, then the plugin run over a Python file. Input: the manifest, then
// "#--- query.scm" and the query, then "#--- kernels.py" and the Python file. The manifest and
// query are written to a private temporary folder, since the loader reads files.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>

#include "core/plugin_loader/declarative_plugin.h"
#include "tests/fuzz/fuzz_support.h"

using namespace mine;
namespace fs = std::filesystem;

namespace {

const fs::path& folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("mine-fuzz-declarative-" + std::to_string(getpid()));
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto parts = fuzz::split_parts(input, "plugin.json", 3);
  std::string manifest = parts[0].text, query, python;
  for (const auto& p : parts) {
    if (p.name == "query.scm") query = p.text;
    if (p.name == "kernels.py") python = p.text;
  }
  write(folder() / "plugin.json", manifest);
  write(folder() / "query.scm", query);

  std::unique_ptr<DeclarativePlugin> plugin;
  try {
    plugin = std::make_unique<DeclarativePlugin>((folder() / "plugin.json").string());
  } catch (const Error&) {
    return 0;  // a refused manifest or query: `mine plugins` reports it
  }
  if (plugin->name().empty()) fuzz::violated("plugin loaded without a name");
  if (!fuzz::scannable(python)) return 0;
  std::vector<fuzz::Part> files{{"kernels.py", python}};
  fuzz::MemoryRepository memory(files);
  auto it = memory.modules.find("kernels.py");
  if (it == memory.modules.end()) return 0;
  fuzz::MemoryFileView view(files[0].name, files[0].text, it->second.get(), memory.repo);
  fuzz::CheckingSink sink;
  try {
    plugin->extract(view, sink);
  } catch (const Error&) {
  }
  return 0;
}
