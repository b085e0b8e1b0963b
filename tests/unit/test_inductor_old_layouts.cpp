// Older Inductor layouts and broken output (tests/fixtures/inductor_old): kernels whose source is
// only in a cache file, 2024-era metadata, 2023's source-only calls, and malformed files that
// must cost exactly their own kernels, each with a clear per-file problem.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "plugins/inductor/inductor_plugin.h"
#include "test_inductor_corpus.h"

namespace fs = std::filesystem;
using namespace mine;
using nlohmann::json;

namespace {

fs::path old_fixtures() { return fs::path(MINE_FIXTURES_DIR) / "inductor_old"; }

// qualname -> {kernel_id (0 when NULL), source_origin}
std::map<std::string, std::pair<int64_t, std::string>> occurrences(const testing::ScannedCorpus& c, const std::string& graph) {
  std::map<std::string, std::pair<int64_t, std::string>> out;
  for (const auto& r : c.query("SELECT qualname, kernel_id, source_origin FROM kernel_occurrences WHERE graph = '" + graph + "'").rows)
    out[r[0].get<std::string>()] = {r[1].is_null() ? 0 : r[1].get<int64_t>(), r[2].get<std::string>()};
  return out;
}

json kernel_meta(const testing::ScannedCorpus& c, const std::string& qualname) {
  auto r = c.query("SELECT k.meta FROM kernel_occurrences o JOIN kernels k ON k.id = o.kernel_id WHERE o.qualname = '" +
                   qualname + "' AND o.graph IS NOT NULL");
  REQUIRE(r.rows.size() == 1);
  return json::parse(r.rows[0][0].get<std::string>());
}

std::vector<std::string> problem_kinds(const testing::ScannedCorpus& c, const std::string& path_like) {
  std::vector<std::string> kinds;
  for (const auto& r : c.query("SELECT kind FROM scan_errors WHERE path LIKE '" + path_like + "' ORDER BY line, kind").rows)
    kinds.push_back(r[0].get<std::string>());
  return kinds;
}

}  // namespace

TEST_CASE("2024-era output: kernel-path kernels with and without their cache file", "[inductor][old]") {
  InductorPlugin plugin(std::vector<std::string>{});  // no cache folders: only the scanned tree counts
  testing::ScannedCorpus corpus;
  corpus.scan((old_fixtures() / "tree").string(), {&plugin});

  auto occ = occurrences(corpus, "model__0_forward_0.0");
  REQUIRE(occ.size() == 4);
  CHECK(occ["triton_poi_fused_relu_0"].second == "inline");
  CHECK(occ["triton_fused_add_3"].second == "inline");
  // Only in the cache file, which the tree holds under cache/ab/: the same row as that file's kernel.
  CHECK(occ["triton_poi_fused_mul_1"].second == "cache_file");
  CHECK(occ["triton_poi_fused_mul_1"].first ==
        corpus.count("SELECT kernel_id FROM kernel_occurrences WHERE source_origin = 'cache_module'"));
  // Nowhere: recorded, with its path, not dropped.
  CHECK(occ["triton_per_fused_sum_2"] == std::make_pair(int64_t{0}, std::string("missing")));
  auto missing = corpus.query("SELECT line, message FROM scan_errors WHERE kind = 'missing_source'").rows;
  REQUIRE(missing.size() == 1);
  CHECK(missing[0][1].get<std::string>().find("/tmp/torchinductor_alice/cd/ccdxj3n4w2oyyqu6ft2l7kq5hxrzqf3dzy7v4bylbnzxs2c5h4ve.py") !=
        std::string::npos);
  CHECK(corpus.count("SELECT count(*) FROM kernel_occurrences WHERE graph IS NULL") == 1);
  CHECK(corpus.count("SELECT count(*) FROM kernels") == 3);

  json relu = kernel_meta(corpus, "triton_poi_fused_relu_0");
  CHECK(relu["category"] == "pointwise");
  CHECK(relu["size_hints"] == json::array({1024}));
  CHECK(relu["signature"] == json{{"in_ptr0", "*fp32"}, {"out_ptr0", "*fp32"}, {"xnumel", "i32"}});
  CHECK(relu["aten_ops"] == json::array({"aten.relu"}));
  CHECK(relu["source_nodes"] == json::array({"x"}));
  CHECK(relu["pytorch_code"] == json::array({json{{"file", "/home/alice/model.py"}, {"line", 10}, {"function", "forward"}, {"code", "x = torch.relu(a)"}}}));

  json add = kernel_meta(corpus, "triton_fused_add_3");  // 2023: source-only call, `meta=`, `# aten.add => add`
  CHECK(add["category"] == "pointwise");
  CHECK(add["decorator"] == "pointwise");
  CHECK(add["aten_ops"] == json::array({"aten.add"}));
  CHECK(add["pytorch_code"].size() == 1);
  auto source = corpus.query("SELECT k.source FROM kernels k JOIN kernel_occurrences o ON o.kernel_id = k.id "
                             "WHERE o.qualname = 'triton_fused_add_3'").rows.at(0).at(0).get<std::string>();
  CHECK(source.find(R"("nan in input\tof add")") != std::string::npos);  // `\\t` in the file is `\t` in the kernel
  CHECK(source.rfind("import triton\n", 0) == 0);
}

TEST_CASE("a kernel path found under an explicitly given cache folder", "[inductor][old]") {
  InductorPlugin plugin(std::vector<std::string>{"/nonexistent", (old_fixtures() / "outside_cache").string()});
  testing::ScannedCorpus corpus;
  corpus.scan((old_fixtures() / "tree").string(), {&plugin});
  auto occ = occurrences(corpus, "model__0_forward_0.0");
  CHECK(occ["triton_per_fused_sum_2"].second == "cache_dir");
  CHECK(occ["triton_per_fused_sum_2"].first != 0);
  CHECK(corpus.count("SELECT count(*) FROM scan_errors WHERE kind = 'missing_source'") == 0);
  json sum = kernel_meta(corpus, "triton_per_fused_sum_2");
  CHECK(sum["category"] == "persistent_reduction");
  CHECK(sum["size_hints"] == json::array({8, 128}));
  CHECK(sum["signature"].size() == 4);
}

TEST_CASE("malformed output costs only its own kernels, each with a problem", "[inductor][malformed]") {
  InductorPlugin plugin(std::vector<std::string>{});
  testing::ScannedCorpus corpus;
  corpus.scan((old_fixtures() / "malformed").string(), {&plugin});

  SECTION("truncated file: the kernels before the cut are kept") {
    CHECK(corpus.count("SELECT count(*) FROM kernel_occurrences WHERE graph = 'truncated'") == 2);
    CHECK(problem_kinds(corpus, "truncated/%") == std::vector<std::string>{"syntax", "unreadable_kernel"});
  }
  SECTION("a kernel string that is not Python: that kernel skipped, the line named") {
    auto kept = corpus.query("SELECT qualname FROM kernel_occurrences WHERE graph = 'not_python' ORDER BY start_line").rows;
    REQUIRE(kept.size() == 2);
    CHECK(kept[0][0] == "triton_poi_fused_add_0");
    CHECK(kept[1][0] == "triton_poi_fused_add_2");
    auto p = corpus.query("SELECT line, message FROM scan_errors WHERE kind = 'not_python'").rows;
    REQUIRE(p.size() == 1);
    CHECK(p[0][0] == 37);  // `def triton_poi_fused_mul_1(in_ptr0 out_ptr0):` in the file
    CHECK(p[0][1].get<std::string>().find("triton_poi_fused_mul_1 skipped") != std::string::npos);
  }
  SECTION("an unknown decorator: the kernel kept, category unknown, the decorator named") {
    auto rows = corpus.query("SELECT qualname, category FROM kernel_occurrences WHERE graph = 'unknown_decorator' ORDER BY start_line").rows;
    REQUIRE(rows.size() == 2);
    CHECK(rows[0][1] == "pointwise");
    CHECK(rows[1][1].is_null());
    auto p = corpus.query("SELECT message FROM scan_errors WHERE kind = 'unknown_decorator'").rows;
    REQUIRE(p.size() == 1);
    CHECK(p[0][0].get<std::string>().find("@triton_heuristics.hyperspace") != std::string::npos);
  }
  // The same good kernel in three files is one kernels row with three occurrences.
  CHECK(corpus.count("SELECT count(*) FROM kernel_occurrences WHERE qualname = 'triton_poi_fused_add_0'") == 3);
  CHECK(corpus.count("SELECT count(DISTINCT kernel_id) FROM kernel_occurrences WHERE qualname = 'triton_poi_fused_add_0'") == 1);
}
