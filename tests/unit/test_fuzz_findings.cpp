// What the fuzzers (tests/fuzz, bench/fuzz.sh) found, pinned down one by one. The inputs that
// crashed are also replayed as they were by the fuzz_replay.* tests.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/crawl/repo_info.h"
#include "core/crawl/response_headers.h"
#include "core/error.h"
#include "core/plugin_loader/declarative_plugin.h"
#include "core/python/syntax_tree.h"
#include "plugins/inductor/python_literal.h"

using namespace mine;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json literal_of(const std::string& expression) {
  auto tree = SyntaxTree::parse("x = " + expression + "\n");
  TSNode assignment = ts_node_named_child(ts_node_named_child(tree->root(), 0), 0);
  return inductor::literal_value(*tree, field(assignment, "right"));
}

// A declarative plugin folder with `manifest` and a valid query; returns the manifest path.
std::string plugin_folder(const std::string& manifest) {
  fs::path dir = fs::temp_directory_path() / ("mine-fuzz-findings-" + std::to_string(std::hash<std::string>{}(manifest)));
  fs::create_directories(dir);
  std::ofstream(dir / "plugin.json") << manifest;
  std::ofstream(dir / "q.scm") << "(function_definition) @kernel\n";
  return (dir / "plugin.json").string();
}

}  // namespace

TEST_CASE("string escapes without a UTF-8 form stay as written", "[fuzz][inductor]") {
  // A lone surrogate in a triton_meta string once made the meta unstorable and stopped the scan.
  CHECK(literal_of(R"('\ud800')") == "\\ud800");
  CHECK(literal_of(R"('\U00110000')") == "\\U00110000");
  CHECK(literal_of(R"('\U0010FFFF\u00e9')") == "\xf4\x8f\xbf\xbf\xc3\xa9");
  CHECK_NOTHROW(literal_of(R"({'k': '\udfff\ud83d'})").dump());
}

TEST_CASE("manifest fields of the wrong type are refused with a message", "[fuzz][plugin]") {
  const std::string base = R"("name": "p", "query": "q.scm", "kernel_capture": "kernel")";
  for (const std::string extra : {R"("version": 2)", R"("description": ["x"])", R"("decorator_capture": 1)"}) {
    std::string path = plugin_folder("{" + base + ", " + extra + "}");
    CHECK_THROWS_AS(DeclarativePlugin(path), Error);
  }
  CHECK(DeclarativePlugin(plugin_folder("{" + base + R"(, "version": "7"})")).version() == "7");
}
