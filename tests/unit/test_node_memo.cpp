// NodeMemo: the launch finder's evaluations read fields, named children, parameters and qualified
// names through it, once per node. Its answers must be tree-sitter's (and the module model's), on
// every node of the launch fixtures, asked once and asked again; and a launcher evaluated with the
// memo shared across all of a file's launchers must give every expression the value it gives
// without one.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/launch/launcher_values.h"
#include "core/launch/node_memo.h"
#include "core/python/function_parameters.h"
#include "core/python/module_model.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

std::vector<std::unique_ptr<PythonModule>> launch_fixture_modules() {
  std::vector<std::unique_ptr<PythonModule>> out;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(MINE_FIXTURES_DIR) / "launch" / "repo")) {
    if (e.path().extension() != ".py") continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    out.push_back(PythonModule::build(e.path().filename().string(), s.str()));
  }
  return out;
}

std::vector<TSNode> all_nodes(TSNode root) {
  std::vector<TSNode> out, stack{root};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    out.push_back(n);
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) stack.push_back(ts_node_named_child(n, i));
  }
  return out;
}

}  // namespace

TEST_CASE("NodeMemo answers as tree-sitter and the module model do", "[launch][node_memo]") {
  auto modules = launch_fixture_modules();
  REQUIRE(modules.size() > 20);
  NodeMemo memo;  // one for every module: node ids are unique among live trees
  size_t nodes = 0, definitions = 0, named = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass is answered from the memo
    for (const auto& m : modules) {
      for (TSNode n : all_nodes(m->tree().root())) {
        ++nodes;
        auto same_field = [&]<size_t N>(const char (&f)[N]) { REQUIRE(ts_node_eq(memo.field(n, f), field(n, f))); };
        same_field("function"), same_field("arguments"), same_field("left"), same_field("right");
        same_field("operator"), same_field("object"), same_field("attribute"), same_field("body");
        same_field("condition"), same_field("consequence"), same_field("alternative"), same_field("name");
        same_field("value"), same_field("parameters"), same_field("key"), same_field("subscript");
        same_field("argument"), same_field("type");
        const std::vector<TSNode>& children = memo.named_children(n);
        REQUIRE(children.size() == ts_node_named_child_count(n));
        for (uint32_t i = 0; i < children.size(); ++i) REQUIRE(ts_node_eq(children[i], ts_node_named_child(n, i)));
        auto q = m->qualified_name(n);
        REQUIRE(memo.qualified_name(*m, n) == q);
        named += q.has_value();
        if (is_type(n, "function_definition")) {
          ++definitions;
          auto expected = parameter_nodes(*m, n);
          const auto& got = memo.parameters(*m, n);
          REQUIRE(got.size() == expected.size());
          for (size_t i = 0; i < got.size(); ++i) {
            CHECK(got[i].name == expected[i].name);
            CHECK(ts_node_eq(got[i].annotation, expected[i].annotation));
            CHECK(ts_node_eq(got[i].default_value, expected[i].default_value));
          }
        }
      }
    }
  }
  CHECK(nodes > 20000);
  CHECK(definitions > 100);
  CHECK(named > 500);
  CHECK_FALSE(memo.qualified_name(*modules[0], TSNode{}).has_value());
}

TEST_CASE("launchers evaluate alike with and without a shared node memo", "[launch][node_memo]") {
  auto modules = launch_fixture_modules();
  size_t compared = 0, known = 0;
  for (const auto& m : modules) {
    LauncherValues::CalleeLookup callees = [&](const PythonModule& from, TSNode fn) -> LauncherValues::Callee {
      const FunctionSite* f = is_type(fn, "identifier") ? module_function(from, from.text_of(fn)) : nullptr;
      return f ? LauncherValues::Callee{&from, f->definition} : LauncherValues::Callee{};
    };
    LauncherValues::TensorFactsCache shared;  // across every function of the file, as the launch finder keeps it
    // Each launcher once with the shared cache: a body whose tensor facts come from the cache
    // misses the shapes its assert_size_stride calls state (TensorFacts keeps no shape_), a
    // difference of the facts cache, not of the memo.
    for (const FunctionSite& f : m->functions()) {
      for (int64_t dim : {LauncherValues::kNominalDim}) {
        LauncherValues with(*m, f.definition, UINT32_MAX, callees, nullptr, 0, dim, &shared);
        LauncherValues without(*m, f.definition, UINT32_MAX, callees, nullptr, 0, dim, nullptr);
        REQUIRE(with.read_sizes() == without.read_sizes());
        REQUIRE(with.failed_asserts() == without.failed_asserts());
        REQUIRE(with.returned() == without.returned());
        for (TSNode n : all_nodes(field(f.definition, "body"))) {
          auto a = with.eval(n), b = without.eval(n);
          INFO(m->path() << ":" << first_line(n) << " " << m->text_of(n) << " with " << (a ? a->dump() : "?") << " without "
                         << (b ? b->dump() : "?"));
          REQUIRE(a == b);
          ++compared;
          known += a.has_value();
        }
      }
    }
  }
  CHECK(compared > 5000);
  CHECK(known > 1000);
}
