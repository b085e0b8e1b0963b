// The inductor plugin's readers on small inputs: literal dicts as Inductor writes them, the
// comments above a kernel in each layout, kernel modules, and fx_graph_readable.py.
#include <catch2/catch.hpp>

#include "core/python/syntax_tree.h"
#include "plugins/inductor/fx_graph.h"
#include "plugins/inductor/kernel_module.h"
#include "plugins/inductor/kernel_module_cache.h"
#include "plugins/inductor/output_code.h"
#include "plugins/inductor/python_literal.h"

using namespace mine;
using namespace mine::inductor;
using nlohmann::json;

namespace {

// The value of `x = <expression>` read by the literal reader.
json literal_of(const std::string& expression) {
  auto tree = SyntaxTree::parse("x = " + expression + "\n");
  TSNode assignment = ts_node_named_child(ts_node_named_child(tree->root(), 0), 0);
  return literal_value(*tree, field(assignment, "right"));
}

}  // namespace

TEST_CASE("literal reader reads triton_meta dicts of every era without eval", "[inductor][literal]") {
  CHECK(literal_of("{'x': 1024, 'r0_': 64}") == json{{"x", 1024}, {"r0_", 64}});
  CHECK(literal_of("[32, 65536]") == json::array({32, 65536}));
  CHECK(literal_of("{0: '*fp32', 1: 'i32'}") == json{{"0", "*fp32"}, {"1", "i32"}});
  CHECK(literal_of("(1, -2, 3.5, True, False, None)") == json::array({1, -2, 3.5, true, false, nullptr}));
  CHECK(literal_of("[AttrsDescriptor(divisible_by_16=(0, 1), equal_to_1=())]") ==
        json::array({"AttrsDescriptor(divisible_by_16=(0, 1), equal_to_1=())"}));
  CHECK(literal_of("{(0,): [['tt.divisibility', 16]]}") == json{{"(0,)", json::array({json::array({"tt.divisibility", 16})})}});
  CHECK(literal_of("ReductionHint.INNER") == "ReductionHint.INNER");
  CHECK(literal_of("set()") == "set()");
  CHECK(literal_of("{**other}") == "{**other}");
  CHECK(literal_of("'a' \"b\"") == "ab");
  CHECK(literal_of(R"('tab\there\x41\u00e9\101')") == "tab\there\x41\xc3\xa9" "A");
  CHECK(literal_of(R"(r'\n')") == "\\n");
  CHECK(literal_of("99999999999999999999999") == "99999999999999999999999");
  CHECK(literal_of("f'{x}'") == "f'{x}'");
}

TEST_CASE("comments above a kernel give its ATen ops, source nodes and kernel path", "[inductor][comments]") {
  SECTION("torch 2.4+") {
    KernelComments c = read_kernel_comments({
        "# kernel path: /tmp/torchinductor_root/i5/ci5p4.py",
        "# Topologically Sorted Source Nodes: [inputs_embeds, , hidden_states_2], Original ATen: [aten.embedding, aten.native_layer_norm]",
        "# Source node to ATen node mapping:",
        "#   hidden_states_2 => add_4, add_5, mul",
        "#   inputs_embeds => embedding",
        "# Graph fragment:",
        "#   %x : Tensor = PlaceHolder[target=x] => not a mapping",
    });
    CHECK(c.kernel_path == "/tmp/torchinductor_root/i5/ci5p4.py");
    CHECK(c.aten_ops == json::array({"aten.embedding", "aten.native_layer_norm"}));
    CHECK(c.source_nodes == json::array({"inputs_embeds", "hidden_states_2"}));
    CHECK(c.node_mapping == json{{"hidden_states_2", {"add_4", "add_5", "mul"}}, {"inputs_embeds", {"embedding"}}});
  }
  SECTION("torch 2.2") {
    KernelComments c = read_kernel_comments({"# Source Nodes: [x_1, x_2], Original ATen: [aten._softmax, aten.cos]",
                                             "# x_1 => cos", "# x_2 => amax, div"});
    CHECK(c.aten_ops == json::array({"aten._softmax", "aten.cos"}));
    CHECK(c.source_nodes == json::array({"x_1", "x_2"}));
    CHECK(c.node_mapping["x_2"] == json::array({"amax", "div"}));
  }
  SECTION("torch 2.0") {
    KernelComments c = read_kernel_comments({"# Original ATen: aten.copy, aten.ge", "# aten.copy => device_put"});
    CHECK(c.aten_ops == json::array({"aten.copy", "aten.ge"}));
    CHECK(c.source_nodes.empty());
    CHECK(c.node_mapping == json{{"aten.copy", {"device_put"}}});
  }
}

TEST_CASE("async_compile.triton calls: inline source, name-only, and 2023's source-only form", "[inductor][calls]") {
  std::string text =
      "# kernel path: /tmp/t/ab/cab.py\n"
      "# Original ATen: [aten.add]\n"
      "k0 = async_compile.triton('k0', '''\nimport triton\n''', device_str='cuda')\n"
      "k1 = async_compile.triton('k1', device_str='cuda')\n"
      "k2 = async_compile.triton('''\nimport triton\n''')\n"
      "# k3 = async_compile.triton('k3', '''x''')\n";
  auto tree = SyntaxTree::parse(text);
  auto calls = find_kernel_calls(*tree);
  REQUIRE(calls.size() == 3);
  CHECK(calls[0].variable == "k0");
  CHECK(calls[0].registered_name == "k0");
  CHECK(calls[0].source == std::optional<std::string>("\nimport triton\n"));
  CHECK(calls[0].source_line == 3);
  CHECK(calls[0].comments.kernel_path == "/tmp/t/ab/cab.py");
  CHECK(calls[1].registered_name == "k1");
  CHECK_FALSE(calls[1].source.has_value());
  CHECK(calls[2].registered_name.empty());
  CHECK(calls[2].source.has_value());
  CHECK(kernel_call_lines_by_text(text) == std::vector<int>{3, 6, 7});
  CHECK(normalized_module("\n\n  \nimport triton\n\n\n") == "import triton\n");
}

TEST_CASE("kernel modules: category, signature by name, size hints, problems", "[inductor][module]") {
  std::string src =
      "import triton\nimport triton.language as tl\nfrom torch._inductor.runtime import triton_heuristics\n"
      "@triton_heuristics.reduction(size_hints=[8, 128], triton_meta={'signature': {0: '*fp32', 1: 'i32'}, "
      "'constants': {'RBLOCK': 128}})\n"
      "@triton.jit\ndef triton_(in_ptr0, xnumel, XBLOCK : tl.constexpr, RBLOCK=4):\n    pass\n";
  KernelModuleReading r = read_kernel_module(src, "");
  REQUIRE(r.ok);
  CHECK(r.problems.empty());
  CHECK(r.kernel.name == "triton_");
  CHECK(r.kernel.category == "reduction");
  CHECK(r.kernel.parameters == std::vector<std::string>{"in_ptr0", "xnumel", "XBLOCK", "RBLOCK"});
  CHECK(r.kernel.signature == json{{"in_ptr0", "*fp32"}, {"xnumel", "i32"}});
  CHECK(r.kernel.constants == json{{"RBLOCK", 128}});
  CHECK(r.kernel.size_hints == json::array({8, 128}));
  CHECK(r.kernel.external_modules == std::set<std::string>{"torch", "triton"});

  KernelModuleReading bad = read_kernel_module("def f(:\n", "");
  CHECK_FALSE(bad.ok);
  REQUIRE(bad.problems.size() == 1);
  CHECK(bad.problems[0].kind == "not_python");

  KernelModuleReading none = read_kernel_module("import triton\ndef f():\n    pass\n", "");
  CHECK_FALSE(none.ok);
  CHECK(none.problems.at(0).kind == "no_kernel");

  KernelModuleReading odd = read_kernel_module("@triton_heuristics.warp_drive(triton_meta={'signature': {}})\n"
                                               "@triton.jit\ndef k(x):\n    pass\n", "");
  REQUIRE(odd.ok);
  CHECK(odd.kernel.category.empty());
  CHECK(odd.kernel.decorator == "triton_heuristics.warp_drive");
  CHECK(odd.problems.at(0).kind == "unknown_decorator");
}

TEST_CASE("fx_graph_readable.py: each node with the PyTorch line above its group", "[inductor][fx]") {
  json g = read_fx_graph(
      "class <lambda>(torch.nn.Module):\n"
      "    def forward(self, arg0_1: \"f32[4]\"):\n"
      "        # File: /m/model.py:10 in forward, code: x = torch.relu(a)\n"
      "        relu: \"f32[4]\" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None\n"
      "        var_mean = torch.ops.aten.var_mean.correction(relu, [0])\n"
      "\n"
      "        getitem: \"f32[1]\" = var_mean[0]\n"
      "        return (relu,)\n");
  REQUIRE(g["locations"].size() == 1);
  CHECK(g["locations"][0] == json{{"file", "/m/model.py"}, {"line", 10}, {"function", "forward"}, {"code", "x = torch.relu(a)"}});
  CHECK(g["nodes"] == json{{"relu", 0}, {"var_mean", 0}});
}

TEST_CASE("kernel module cache: one reading per distinct module, bounded", "[inductor][module]") {
  std::string src = "@triton_heuristics.pointwise(triton_meta={'signature': {'x': 'i32'}})\n@triton.jit\ndef k(x):\n    pass\n";
  KernelModuleCache cache(1000);
  auto first = cache.read(src, "");
  CHECK(cache.read(src, "") == first);  // the same reading, not a second parse
  CHECK(first->ok);
  CHECK(first->kernel.signature == read_kernel_module(src, "").kernel.signature);
  CHECK(cache.read(src, "other") != first);
  std::string big(2000, '#');
  CHECK_FALSE(cache.read(big, "")->ok);  // over the bound: read, not kept
  CHECK(cache.read(src, "") != first);   // the cache started over
}
