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
