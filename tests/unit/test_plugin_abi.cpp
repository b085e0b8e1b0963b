// Every built-in extractor is a C ABI plugin behind the same adapter as a loaded library: no
// built-in reaches the scanner any other way.
#include <catch2/catch.hpp>

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
  CHECK(names == std::set<std::string>{"triton", "inductor", "numba", "cuda"});
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
