// Every built-in extractor is a C ABI plugin behind the same adapter as a loaded library: no
// built-in reaches the scanner any other way.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "core/plugin_loader/plugin_host.h"
#include "plugins/registry.h"

using namespace mine;

TEST_CASE("built-in plugins are mine_plugin_infos run through CAbiPlugin", "[plugins][abi]") {
  const auto& infos = builtin_plugin_infos();
  const auto& plugins = builtin_plugins();
  REQUIRE(infos.size() == plugins.size());
  std::set<std::string> names;
  for (size_t i = 0; i < plugins.size(); ++i) {
    INFO(plugins[i]->name());
    CHECK(infos[i]->abi_version == MINE_PLUGIN_ABI_VERSION);
    CHECK(dynamic_cast<const CAbiPlugin*>(plugins[i].get()) != nullptr);
    CHECK(plugins[i]->name() == infos[i]->name);
    names.insert(plugins[i]->name());
  }
  CHECK(names == std::set<std::string>{"triton", "inductor", "numba", "cuda", "torch_module"});
}

TEST_CASE("a description built for another ABI is refused naming both versions", "[plugins][abi]") {
  mine_plugin_info old = *builtin_plugin_infos().front();
  old.abi_version = 1;
  try {
    CAbiPlugin plugin(&old, "old.so");
    FAIL("accepted");
  } catch (const std::exception& e) {
    std::string what = e.what();
    CHECK(what.find("ABI 1") != std::string::npos);
    CHECK(what.find("ABI " + std::to_string(MINE_PLUGIN_ABI_VERSION)) != std::string::npos);
    CHECK(what.find("old.so") != std::string::npos);
  }
}

TEST_CASE("discovery hints come through the optional entry point; plugins without them load unchanged",
          "[plugins][abi]") {
  // Built-ins declare what `mine crawl` searches GitHub for.
  std::map<std::string, DiscoveryHints> hints;
  for (const auto& p : builtin_plugins()) hints[p->name()] = p->discovery_hints();
  CHECK(hints["triton"].code_search_terms == std::vector<std::string>{"triton.jit", "triton.autotune"});
  CHECK(hints["triton"].code_search_extensions == std::vector<std::string>{"py", "ipynb"});
  CHECK(hints["triton"].topics == std::vector<std::string>{"triton"});
  CHECK(hints["cuda"].code_search_terms == std::vector<std::string>{"__global__"});
  CHECK(hints["numba"].code_search_terms == std::vector<std::string>{"cuda.jit"});
  CHECK(hints["inductor"].code_search_terms.empty());

  // A plugin built before hints existed: same struct, same ABI version, no hints.
  const mine_plugin_info* info = builtin_plugin_infos().front();
  CAbiPlugin plain(info, "plain.so");
  CHECK(plain.discovery_hints().code_search_terms.empty());
  CHECK(plain.discovery_hints().topics.empty());

  const char* const terms[] = {"helion.kernel", nullptr};
  const char* const topics[] = {"helion", nullptr};
  mine_discovery_hints declared = {MINE_PLUGIN_ABI_VERSION, terms, nullptr, topics};
  CAbiPlugin with(info, "with.so", &declared);
  CHECK(with.discovery_hints().code_search_terms == std::vector<std::string>{"helion.kernel"});
  CHECK(with.discovery_hints().code_search_extensions.empty());  // every file
  CHECK(with.discovery_hints().topics == std::vector<std::string>{"helion"});

  declared.abi_version = MINE_PLUGIN_ABI_VERSION + 1;
  CHECK_THROWS_WITH(CAbiPlugin(info, "future.so", &declared), Catch::Contains("future.so") && Catch::Contains("ABI"));
}

namespace {

// A scanned file whose repository has two other files calling `load`; counts their parses.
class FileWithCallers : public FileView {
 public:
  explicit FileWithCallers(int& parses) : parses_(parses) {}
  const std::string& path() const override { return path_; }
  const std::string& text() const override { return text_; }
  const PythonModule* python() const override { return nullptr; }
  ClosureResult close_over(const ClosureRoot&, const DependencyLabeler&) const override { return {}; }
  std::vector<OtherFile> files_calling(const std::string& name, size_t limit) const override {
    std::vector<OtherFile> out;
    for (const auto& [path, text] : texts_) {
      if (name != "load" || out.size() >= limit) break;
      out.push_back({path, [text = text] { return std::optional<std::string>(text); },
                     [this, path = path, text = text]() -> const PythonModule* {
                       ++parses_;
                       modules_.push_back(PythonModule::build(path, text));
                       return modules_.back().get();
                     }});
    }
    return out;
  }

 private:
  std::string path_ = "kernel.cu", text_ = "__global__ void k() {}\n";
  std::map<std::string, std::string> texts_ = {{"data.py", "import json\nx = json.load(f)\n"},
                                               {"setup.py", "def build():\n    load(name='k', sources=['kernel.cu'])\n"}};
  int& parses_;
  mutable std::vector<std::unique_ptr<PythonModule>> modules_;
};

class NoSink : public KernelSink {
 public:
  void kernel(ExtractedKernel) override {}
  void problem(int, const std::string&, const std::string&) override {}
};

// What the probe plugin saw: per other file, its path, text and function count.
std::vector<std::string> seen_paths, seen_texts;
std::vector<size_t> seen_functions;
int parses_before_functions = -1;
int* parse_counter = nullptr;

void probe(const mine_host* host, const mine_file* file, mine_sink*, void*) {
  const mine_file* others[4] = {};
  size_t n = host->python_files_calling(file, "load", others, 4);
  for (size_t i = 0; i < n; ++i) {
    seen_paths.push_back(host->file_path(others[i]));
    size_t length = 0;
    const char* text = host->file_text(others[i], &length);
    seen_texts.emplace_back(text, length);
  }
  parses_before_functions = *parse_counter;
  for (size_t i = 0; i < n; ++i)
    if (seen_texts[i].find("kernel.cu") != std::string::npos) seen_functions.push_back(host->python_function_count(others[i]));
}

}  // namespace

// A build lookup reads every file that calls `load` (json.load among them) to find the one naming
// its source: reading a handle's path and text must not parse it; asking for its functions does.
TEST_CASE("other files handed to a plugin are parsed only when their Python is asked for", "[plugins][abi]") {
  int parses = 0;
  parse_counter = &parses;
  const char* const suffixes[] = {".cu", nullptr};
  const char* const prefilters[] = {"__global__", nullptr};
  mine_plugin_info info = {MINE_PLUGIN_ABI_VERSION, "probe", "1", "", suffixes, prefilters, probe, nullptr, nullptr};
  CAbiPlugin plugin(&info, "test");
  FileWithCallers file(parses);
  NoSink sink;
  plugin.extract(file, sink);
  CHECK(seen_paths == std::vector<std::string>{"data.py", "setup.py"});
  REQUIRE(seen_texts.size() == 2);
  CHECK(seen_texts[0] == "import json\nx = json.load(f)\n");
  CHECK(parses_before_functions == 0);
  CHECK(seen_functions == std::vector<size_t>{1});  // setup.py's build()
  CHECK(parses == 1);
}
