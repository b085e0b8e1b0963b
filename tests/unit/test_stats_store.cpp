// corpus/stats_store on a real scan of tests/fixtures/triton, on an empty corpus and on a corpus
// made by an older mine (schema 001 only).
#include <catch2/catch.hpp>

#include <filesystem>

#include "corpus/schema_files.h"
#include "corpus/sqlite_statement.h"
#include "corpus/stats_store.h"
#include "test_check_corpus.h"

using namespace mine;

namespace {

const StatsSection& section(const std::vector<StatsSection>& all, const std::string& id) {
  for (const auto& s : all)
    if (s.query->id == id) return s;
  FAIL("no section " << id);
  throw;
}

int64_t cell(const StatsSection& s, size_t row, const std::string& column) {
  for (size_t i = 0; i < s.result.columns.size(); ++i)
    if (s.result.columns[i] == column) return s.result.rows.at(row).at(i).get<int64_t>();
  FAIL("no column " << column << " in " << s.query->id);
  throw;
}

std::string temp_db(const std::string& tag) {
  auto p = std::filesystem::temp_directory_path() / ("mine_stats_" + tag + "_" + std::to_string(::getpid()) + ".db");
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(p.string() + suffix);
  return p.string();
}

}  // namespace

TEST_CASE("stats of a scanned folder agree with the kernels table", "[stats]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/triton");
  auto ro = corpus.read_only();
  auto all = corpus_stats(*ro);
  REQUIRE(all.size() == stats_queries().size());
  for (const auto& s : all) CHECK(s.available);

  int64_t kernels = corpus.count("SELECT count(*) FROM kernels");
  REQUIRE(kernels > 10);
  const auto& overview = section(all, "overview");
  CHECK(cell(overview, 0, "kernels") == kernels);
  CHECK(cell(overview, 0, "repositories") == 1);
  CHECK(cell(overview, 0, "self_contained") == corpus.count("SELECT count(*) FROM kernels WHERE self_contained = 1"));

  int64_t by_plugin = 0;
  const auto& plugins = section(all, "kernels_by_plugin");
  for (size_t i = 0; i < plugins.result.rows.size(); ++i) by_plugin += cell(plugins, i, "kernels");
  CHECK(by_plugin == kernels);
  CHECK(cell(section(all, "top_repositories"), 0, "kernels") == kernels);
  CHECK(section(all, "repos_by_state").result.rows.at(0).at(0) == "local scan");

  int64_t sized = 0;
  const auto& sizes = section(all, "kernel_sizes");
  for (size_t i = 0; i < sizes.result.rows.size(); ++i) sized += cell(sizes, i, "kernels");
  CHECK(sized == kernels);

  // Nothing deduplicated or checked yet: the sections exist and are empty.
  CHECK(section(all, "dedup_funnel").result.rows.empty());
  CHECK(section(all, "check_pass_rate").result.rows.empty());
  CHECK(section(all, "autotune_speedups").result.rows.empty());
  CHECK(stats_schema_version(*ro) == known_schema_version());
}

TEST_CASE("check pass rate counts a failure at a stage as passing every earlier stage", "[stats][check]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/triton");
  auto ids = corpus.rw().query("SELECT id FROM kernels ORDER BY id LIMIT 4").rows;
  REQUIRE(ids.size() == 4);
  auto add = [&](const nlohmann::json& id, const char* stage, const char* status, const char* cls) {
    SqliteStatement s(corpus.rw().handle(),
                      "INSERT INTO check_results(kernel_id, stage_reached, status, error_class, checked_at) "
                      "VALUES (?, ?, ?, ?, '2026-01-01T00:00:00Z')");
    s.bind(1, id.get<int64_t>()).bind(2, stage).bind(3, status);
    if (cls) s.bind(4, cls); else s.bind_null(4);
    s.run();
  };
  add(ids[0][0], "import", "fail", "syntax");
  add(ids[1][0], "compile", "fail", "type_error");
  add(ids[2][0], "run", "ok", nullptr);
  add(ids[3][0], "run", "fail", "crash");  // an older check of this kernel...
  add(ids[3][0], "run", "ok", nullptr);    // ...superseded by the newest

  auto ro = corpus.read_only();
  const auto rate = run_stats_query(*ro, stats_query("check_pass_rate"));
  REQUIRE(rate.result.rows.size() == 4);
  // import: 4 attempted, 3 passed; compile: 3, 2; load: 2, 2; run: 2, 2.
  int64_t want[4][2] = {{4, 3}, {3, 2}, {2, 2}, {2, 2}};
  for (size_t i = 0; i < 4; ++i) {
    INFO("stage " << rate.result.rows[i][0]);
    CHECK(cell(rate, i, "attempted") == want[i][0]);
    CHECK(cell(rate, i, "passed") == want[i][1]);
  }
  const auto classes = run_stats_query(*ro, stats_query("check_error_classes"));
  CHECK(classes.result.rows.size() == 2);  // the superseded crash is not counted
}

TEST_CASE("stats of an empty corpus", "[stats]") {
  std::string path = temp_db("empty");
  Corpus::open(path, Corpus::Access::ReadWrite);
  auto ro = Corpus::open(path, Corpus::Access::ReadOnly);
  auto all = corpus_stats(*ro);
  CHECK(cell(section(all, "overview"), 0, "kernels") == 0);
  CHECK(section(all, "overview").result.rows.at(0).at(4) == 0.0);  // self_contained_pct, no division by zero
  for (const auto& s : all) {
    INFO(s.query->id);
    CHECK(s.available);
    if (s.query->id != "overview") CHECK(s.result.rows.empty());
  }
  ro.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);  // a reader leaves these
}

TEST_CASE("a corpus from an older mine lacks sections instead of failing", "[stats]") {
  std::string path = temp_db("old");
  {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    sqlite_exec(db, schema_files().at(0).sql);
    sqlite_exec(db, "PRAGMA user_version=1");
    sqlite3_close(db);
  }
  auto ro = Corpus::open(path, Corpus::Access::ReadOnly);
  auto all = corpus_stats(*ro);
  CHECK(section(all, "overview").available);
  CHECK(section(all, "top_repositories").available);
  for (const char* id : {"repos_by_state", "license_mix", "dup_clusters", "dedup_funnel", "check_pass_rate",
                         "check_error_classes", "autotune_speedups"}) {
    INFO(id);
    const auto& s = section(all, id);
    CHECK_FALSE(s.available);
    CHECK_THAT(s.unavailable_reason, Catch::Contains("older mine"));
  }
  CHECK_THAT(section(all, "repos_by_state").unavailable_reason, Catch::Contains("repos.crawl_state"));
  CHECK(stats_schema_version(*ro) == 1);
  ro.reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
}

TEST_CASE("Inductor kernels are counted by the category in their meta", "[stats][inductor]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/inductor_old");
  auto ro = corpus.read_only();
  const auto plugins = run_stats_query(*ro, stats_query("kernels_by_plugin"));
  int64_t pointwise = 0;
  for (const auto& row : plugins.result.rows)
    if (row[0] == "inductor" && row[1] == "pointwise") pointwise = row[2].get<int64_t>();
  CHECK(pointwise > 0);
  CHECK(pointwise == corpus.count("SELECT count(*) FROM kernels WHERE plugin = 'inductor' AND "
                                  "json_extract(meta, '$.category') = 'pointwise'"));
}
