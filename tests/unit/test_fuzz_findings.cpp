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

TEST_CASE("repository fields of the wrong type or range read as absent", "[fuzz][crawl]") {
  // "stargazers_count": "many" threw a JSON type_error out of the crawl; 1e300 was cast to int64
  // (undefined behaviour, reported by UBSan).
  json item = {{"full_name", "a/b"}, {"clone_url", "http://127.0.0.1/a/b.git"}, {"stargazers_count", "many"},
               {"size", 1e300}, {"fork", "yes"}, {"archived", 1}, {"license", "MIT"}, {"pushed_at", 5}};
  RepoInfo r = repo_info_from_json(item);
  CHECK(r.stars == 0);
  CHECK(r.size_kb == 0);
  CHECK_FALSE(r.fork);
  CHECK_FALSE(r.archived);
  CHECK(r.license_spdx.empty());
  CHECK(r.pushed_at.empty());
  CHECK(api_int(json{{"n", 18446744073709551615ull}}, "n", -1) == -1);
  CHECK(api_int(json{{"n", 42.0}}, "n", -1) == 42);
  CHECK(api_int(json{{"n", -7}}, "n", 0) == -7);
  CHECK(api_int(json::array({1}), "n", 3) == 3);
  CHECK(api_bool(json{{"b", true}}, "b", false));
  CHECK_THROWS_AS(repo_info_from_json(json{{"full_name", 1}, {"clone_url", "x"}}), Error);
}

TEST_CASE("rate-limit header numbers cannot overflow the clock", "[fuzz][crawl]") {
  CHECK(header_number("60", -1) == 60);
  CHECK(header_number(" 1700000000 ", 0) == 1700000000);
  CHECK(header_number("99999999999999999999", -1) == -1);  // strtol gave LONG_MAX: seconds -> ns overflowed
  CHECK(header_number("9000000000000", -1) == -1);         // past 2100 as an epoch second
  CHECK(header_number("-5", -1) == -1);
  CHECK(header_number("12abc", -1) == -1);
  CHECK(header_number("", 7) == 7);
  std::map<std::string, std::string> headers;
  add_header_line(headers, "X-RateLimit-Remaining:  0 \r\n");
  add_header_line(headers, "no colon here\r\n");
  CHECK(headers == std::map<std::string, std::string>{{"x-ratelimit-remaining", "0"}});
  add_header_line(headers, "HTTP/2 200\r\n");
  CHECK(headers.empty());
  CHECK(api_message(R"({"message": "Bad credentials"})") == "Bad credentials");
  CHECK(api_message(R"({"message": 5})").empty());
  CHECK(api_message("<html>").empty());
}
