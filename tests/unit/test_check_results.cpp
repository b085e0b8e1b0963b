// Reading run_bundle.py results and storing them: every line is validated before anything is
// stored, bad lines are named, autotune configs and unknown fields are kept, and the error
// classes match the harness's vocabulary.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/check/check_results.h"
#include "core/check/error_class.h"
#include "core/error.h"
#include "corpus/check_store.h"
#include "test_check_corpus.h"

using namespace mine;

namespace {

std::string ok_row(int64_t id) {
  return R"({"id": )" + std::to_string(id) +
         R"(, "entry": "k", "stage_requested": "run", "stage_reached": "run", "status": "ok", "error_class": null,)"
         R"( "message": "", "compile_ms": 812.5, "n_regs": 32, "n_spills": 0, "shared_bytes": 0, "run_ms": 0.21,)"
         R"( "arch": "sm_90", "grid": [4, 1, 1], "constexprs": {"BLOCK": 128}, "guessed": ["n"],)"
         R"( "triton_version": "3.6.0", "torch_version": "2.11.0", "gpu_name": "NVIDIA H100", "driver_version": "570.1",)"
         R"( "device": 0, "worker_pid": 4242, "wall_ms": 900.1, "recycle": false})";
}

std::string fail_row(int64_t id, const std::string& error_class, const std::string& message) {
  nlohmann::json row = {{"id", id}, {"stage_reached", "compile"}, {"status", "fail"}, {"message", message},
                        {"compile_ms", nullptr}};
  if (!error_class.empty()) row["error_class"] = error_class;
  return row.dump();
}

std::vector<check::CheckResultRow> parse(const std::string& text) {
  std::istringstream in(text);
  return check::read_check_results(in, "results.jsonl");
}

}  // namespace

TEST_CASE("result rows are read with their measurements, versions and extras", "[check][results]") {
  auto rows = parse(ok_row(3) + "\n\n" + fail_row(4, "type_error", "incompatible types") + "\n");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].kernel_id == 3);
  CHECK(rows[0].line == 1);
  CHECK(rows[0].compile_ms == Approx(812.5));
  CHECK(*rows[0].n_regs == 32);
  CHECK(rows[0].gpu == "NVIDIA H100");
  CHECK(rows[0].triton_version == "3.6.0");
  CHECK(rows[0].error_class.empty());
  CHECK(rows[0].extra["worker_pid"] == 4242);
  CHECK(rows[0].grid.dump() == "[4,1,1]");
  CHECK(rows[1].line == 3);
  CHECK(rows[1].error_class == "type_error");
  CHECK_FALSE(rows[1].compile_ms.has_value());
}

// That the corpus is then untouched is tested through `mine check --ingest` in tests/e2e/test_check_emit.py.
TEST_CASE("a malformed line names itself and the whole file is refused", "[check][results]") {
  int64_t id = 1;
  struct Case {
    const char* what;
    std::string line;
    const char* message;
  };
  std::vector<Case> cases = {
      {"not JSON", "{\"id\": 1, \"status\": ", "results.jsonl:2: not JSON"},
      {"not an object", "[1, 2]", "results.jsonl:2: a result must be a JSON object"},
      {"no id", R"({"stage_reached": "run", "status": "ok"})", "results.jsonl:2: \"id\" must be"},
      {"bad stage", R"({"id": 1, "stage_reached": "link", "status": "ok"})", "results.jsonl:2: unknown stage_reached \"link\""},
      {"bad status", R"({"id": 1, "stage_reached": "run", "status": "maybe"})", "results.jsonl:2: status must be"},
      {"bad number", R"({"id": 1, "stage_reached": "run", "status": "ok", "n_regs": "many"})", "results.jsonl:2: \"n_regs\" must be"},
      {"bad configs", R"({"id": 1, "stage_reached": "run", "status": "ok", "configs": {"a": 1}})", "results.jsonl:2: \"configs\" must be a list"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    std::string text = ok_row(id) + "\n" + c.line + "\n" + ok_row(id) + "\n";
    CHECK_THROWS_WITH(parse(text), Catch::StartsWith(c.message) && Catch::Contains("nothing was stored"));
  }
}

TEST_CASE("results and autotune configs are stored; unknown kernels are skipped, not fatal", "[check][results]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/check");
  int64_t a = corpus.count("SELECT min(id) FROM kernels"), b = corpus.count("SELECT max(id) FROM kernels");
  nlohmann::json tuned = nlohmann::json::parse(ok_row(b));
  tuned["configs"] = {{{"constexprs", {{"BLOCK", 64}}}, {"options", {{"num_warps", 4}}}, {"bench_ms", 0.03}},
                      {{"constexprs", {{"BLOCK", 128}}}, {"options", {{"num_warps", 8}}}, {"bench_ms", 0.02}},
                      {{"constexprs", {{"BLOCK", 256}}}, {"options", {{"num_warps", 8}}}, {"bench_ms", nullptr}}};
  tuned["best_config"] = tuned["configs"][1];
  std::string text = ok_row(a) + "\n" + fail_row(a, "", "NameError: name 'helper' is not defined") + "\n" +
                     tuned.dump() + "\n" + ok_row(999999) + "\n";
  auto rows = parse(text);
  IngestOutcome outcome = store_check_results(corpus.rw(), rows, "/tmp/results.jsonl");
  CHECK(outcome.results == 3);
  CHECK(outcome.configs == 3);
  CHECK(outcome.unknown_kernels == std::vector<int64_t>{999999});
  CHECK(corpus.count("SELECT count(*) FROM check_results") == 3);
  // A failure the harness did not classify is classified here from its message.
  CHECK(corpus.count("SELECT count(*) FROM check_results WHERE status='fail' AND error_class='missing_name'") == 1);
  CHECK(corpus.count("SELECT count(*) FROM check_results WHERE gpu='NVIDIA H100' AND n_regs=32 AND run_ms > 0.2") == 2);
  CHECK(corpus.count("SELECT count(*) FROM check_results r JOIN kernels k ON k.id = r.kernel_id "
                     "WHERE r.standalone_sha256 = k.standalone_sha256") == 3);
  CHECK(corpus.count("SELECT count(*) FROM check_configs WHERE is_best=1 AND time_ms=0.02 AND "
                     "json_extract(config, '$.constexprs.BLOCK') = 128") == 1);
  CHECK(corpus.count("SELECT count(*) FROM check_configs WHERE time_ms IS NULL") == 1);
  // check_latest keeps the newest row per kernel: the failure for `a`, the tuned run for `b`.
  CHECK(corpus.count("SELECT count(*) FROM check_latest") == 2);
  CHECK(corpus.count("SELECT count(*) FROM check_latest WHERE kernel_id=" + std::to_string(a) + " AND status='fail'") == 1);
}

TEST_CASE("failures are classified from their messages", "[check][results][classify]") {
  using check::classify_error;
  CHECK(classify_error("  File \"k1.py\", line 3\n    def f(:\nSyntaxError: invalid syntax") == "syntax");
  CHECK(classify_error("NameError: name 'silu' is not defined") == "missing_name");
  CHECK(classify_error("ModuleNotFoundError: No module named 'flash_attn'") == "missing_name");
  CHECK(classify_error("CompilationError: at 12:8: incompatible types in binary operation: fp32 and pointer<fp32>") ==
        "type_error");
  CHECK(classify_error("NotImplementedError: tl.inline_asm_elementwise is unsupported on this target") ==
        "unsupported_op");
  CHECK(classify_error("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, "
                       "Hardware limit: 232448") == "resource_limit");
  CHECK(classify_error("RuntimeError: CUDA error: an illegal memory access was encountered") == "illegal_address");
  CHECK(classify_error("worker timed out after 60 s in stage run") == "timeout");
  CHECK(classify_error("worker died: SIGSEGV during compile") == "crash");
  CHECK(classify_error("something else entirely") == "other");
  for (const char* c : check::kErrorClasses) CHECK(check::is_error_class(c));
  CHECK_FALSE(check::is_error_class("segfault"));
}

TEST_CASE("result files the harness wrote on the GPU machine are read whole", "[check][results]") {
  // bench/results holds run_bundle.py's own output (reference kernels, Inductor fixture,
  // autotune); whatever it writes must ingest.
  namespace fs = std::filesystem;
  fs::path dir = fs::path(MINE_SOURCE_DIR) / "bench" / "results";
  int files = 0;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      std::string name = e.path().filename().string();
      if (name.rfind("check_", 0) != 0 || e.path().extension() != ".jsonl") continue;
      INFO(name);
      std::ifstream in(e.path());
      auto rows = check::read_check_results(in, name);
      CHECK_FALSE(rows.empty());
      for (const auto& r : rows) {
        if (r.configs.empty()) continue;
        int best = 0;
        for (const auto& c : r.configs) best += c.is_best ? 1 : 0;
        CHECK(best == 1);
        CHECK(r.configs.front().config["options"].contains("num_warps"));
      }
      ++files;
    }
  if (files == 0) WARN("no harness result files under " << dir.string() << "; nothing to read");
}

TEST_CASE("workers that never started and configs that failed are kept as the harness says", "[check][results]") {
  nlohmann::json row = {{"id", 5}, {"stage_reached", "worker_start"}, {"status", "fail"}, {"error_class", "other"},
                        {"message", "cannot start python3"}};
  nlohmann::json tuned = {{"id", 6}, {"stage_reached", "run"}, {"status", "ok"},
                          {"configs", {{{"constexprs", {{"BLOCK", 64}}}, {"options", {{"num_warps", 4}}}, {"status", "ok"},
                                        {"n_regs", 40}, {"bench_ms", 0.5}},
                                       {{"constexprs", {{"BLOCK", 4096}}}, {"num_warps", 8}, {"num_stages", 4},
                                        {"status", "fail"}, {"error_class", "resource_limit"},
                                        {"message", "out of resource: shared memory"}}}}};
  auto rows = parse(row.dump() + "\n" + tuned.dump() + "\n");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].stage_reached == "worker_start");
  REQUIRE(rows[1].configs.size() == 2);
  CHECK(rows[1].configs[0].is_best);
  CHECK(rows[1].configs[0].details["n_regs"] == 40);
  CHECK(rows[1].configs[1].config.dump() == R"({"constexprs":{"BLOCK":4096},"options":{"num_stages":4,"num_warps":8}})");
  CHECK(rows[1].configs[1].error_class == "resource_limit");
  CHECK_FALSE(rows[1].configs[1].time_ms.has_value());
}
