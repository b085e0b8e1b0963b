// The inductor plugin on the real torch_compile_debug folder of ../shared/fixtures/inductor
// (torch 2.11: resnet18, a tiny BERT, a tiny GPT-2), checked against what a plain reading of
// the files says, through what the corpus stores.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/python/syntax_tree.h"
#include "test_inductor_corpus.h"

namespace fs = std::filesystem;
using namespace mine;
using nlohmann::json;

namespace {

fs::path shared_fixture() { return fs::path(MINE_SHARED_DIR) / "fixtures" / "inductor"; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The oracle: occurrences of `async_compile.triton(` in each graph's output_code.py.
std::map<std::string, int64_t> calls_per_graph() {
  std::map<std::string, int64_t> out;
  for (const auto& e : fs::recursive_directory_iterator(shared_fixture())) {
    if (e.path().filename() != "output_code.py") continue;
    std::string text = slurp(e.path());
    int64_t n = 0;
    for (size_t at = text.find("async_compile.triton("); at != std::string::npos;
         at = text.find("async_compile.triton(", at + 1))
      ++n;
    out[e.path().parent_path().filename().string()] += n;
  }
  return out;
}

// Names of the parameters of `def`, as the test reads them from the tree.
std::vector<std::string> parameter_names(const SyntaxTree& tree, TSNode def) {
  std::vector<std::string> names;
  for_each_named_child(field(def, "parameters"), [&](TSNode p) {
    TSNode name = is_type(p, "identifier") ? p : (is_type(p, "typed_parameter") ? ts_node_named_child(p, 0) : field(p, "name"));
    names.emplace_back(tree.text_of(name));
  });
  return names;
}

}  // namespace

TEST_CASE("shared Inductor fixture: every kernel of every graph, stored checkably", "[inductor][shared]") {
  REQUIRE(fs::is_directory(shared_fixture()));
  auto expected = calls_per_graph();
  REQUIRE(expected.size() == 3);

  testing::ScannedCorpus corpus;
  corpus.scan(shared_fixture().string(), all_plugins());

  std::map<std::string, int64_t> found;
  for (const auto& row : corpus.query("SELECT graph, count(*) FROM kernel_occurrences GROUP BY graph").rows)
    found[row[0].get<std::string>()] = row[1].get<int64_t>();
  CHECK(found == expected);
  CHECK(corpus.count("SELECT count(*) FROM kernel_occurrences WHERE kernel_id IS NULL") == 0);
  CHECK(corpus.count("SELECT count(*) FROM kernel_occurrences WHERE aten_ops = '[]'") == 0);
  CHECK(corpus.count("SELECT count(*) FROM kernel_occurrences WHERE pytorch_code = '[]'") == 0);
  CHECK(corpus.count("SELECT count(*) FROM scan_errors WHERE message LIKE 'inductor:%'") == 0);

  auto kernels = corpus.query("SELECT name, source, standalone, meta FROM kernels WHERE plugin = 'inductor'");
  int64_t distinct = corpus.count("SELECT count(DISTINCT kernel_id) FROM kernel_occurrences");
  CHECK(static_cast<int64_t>(kernels.rows.size()) == distinct);
  for (const auto& row : kernels.rows) {
    std::string name = row[0].get<std::string>();
    INFO("kernel " << name);
    CHECK(row[1] == row[2]);  // the generated module is its own standalone
    auto tree = SyntaxTree::parse(row[1].get<std::string>());
    CHECK(ts_node_is_null(first_syntax_error(tree->root())));

    TSNode kernel_def{};
    for_each_named_child(tree->root(), [&](TSNode s) {
      if (!is_type(s, "decorated_definition")) return;
      TSNode def = field(s, "definition");
      bool jit = false;
      for_each_named_child(s, [&](TSNode d) {
        jit = jit || (is_type(d, "decorator") && tree->text_of(ts_node_named_child(d, 0)) == "triton.jit");
      });
      if (jit && tree->text_of(field(def, "name")) == name) kernel_def = def;
    });
    REQUIRE_FALSE(ts_node_is_null(kernel_def));

    json meta = json::parse(row[3].get<std::string>());
    std::vector<std::string> params = parameter_names(*tree, kernel_def);
    REQUIRE(meta["signature"].is_object());
    CHECK(meta["signature"].size() == params.size());
    for (const auto& p : params) CHECK(meta["signature"].contains(p));
    CHECK_FALSE(meta["aten_ops"].empty());
    CHECK(meta["category"].is_string());
    CHECK_FALSE(meta["size_hints"].is_null());
    CHECK(meta["graph"].is_string());
  }
}

TEST_CASE("rescanning the shared fixture keeps kernel ids and occurrence counts", "[inductor][shared]") {
  REQUIRE(fs::is_directory(shared_fixture()));
  testing::ScannedCorpus corpus;
  corpus.scan(shared_fixture().string(), all_plugins());
  auto before = corpus.query("SELECT id, source_sha256 FROM kernels ORDER BY id").rows;
  int64_t occurrences = corpus.count("SELECT count(*) FROM kernel_occurrences");
  corpus.scan(shared_fixture().string(), all_plugins());
  CHECK(corpus.query("SELECT id, source_sha256 FROM kernels ORDER BY id").rows == before);
  CHECK(corpus.count("SELECT count(*) FROM kernel_occurrences") == occurrences);
}
