// --where is user SQL spliced into a SELECT: it must only ever read. Injections fail or select,
// and the corpus is the same afterwards.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "corpus/check_store.h"
#include "test_check_corpus.h"

using namespace mine;

TEST_CASE("check --where selects kernels and can do nothing else", "[check][where]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/check");
  int64_t kernels = corpus.count("SELECT count(*) FROM kernels");
  REQUIRE(kernels >= 10);

  SECTION("conditions select and --limit caps, in id order") {
    auto ro = corpus.read_only();
    auto all = select_check_kernels(*ro, "", 0);
    CHECK(static_cast<int64_t>(all.size()) == kernels);
    auto some = select_check_kernels(*ro, "name LIKE 'gather%'", 0);
    REQUIRE(some.size() == 2);
    CHECK(some[0].id < some[1].id);
    CHECK(select_check_kernels(*ro, "path LIKE '%scalars.py'", 1).size() == 1);
    CHECK(select_check_kernels(*ro, "id IN (SELECT kernel_id FROM kernel_deps)", 0).size() > 0);
    auto tuned = select_check_kernels(
        *ro, "EXISTS (SELECT 1 FROM json_each(meta, '$.decorators') WHERE value LIKE '%autotune')", 0);
    CHECK(tuned.size() == 6);
  }

  SECTION("injected statements are refused and nothing changes") {
    auto ro = corpus.read_only();
    for (const std::string where :
         {"1); DROP TABLE kernels; --", "1); DELETE FROM kernels; SELECT (1", "1) ; UPDATE kernels SET name='x' WHERE (1",
          "1); ATTACH DATABASE '/tmp/mine_evil.db' AS evil; --", "1); PRAGMA user_version=0; --"}) {
      INFO(where);
      CHECK_THROWS_AS(select_check_kernels(*ro, where, 0), Error);
    }
    CHECK_THROWS_AS(select_check_kernels(*ro, "(SELECT 1 FROM pragma_user_version) AND load_extension('x')", 0), Error);
    CHECK(corpus.count("SELECT count(*) FROM kernels") == kernels);
    CHECK(corpus.count("SELECT count(DISTINCT name) FROM kernels WHERE name='x'") == 0);
    CHECK(corpus.rw().schema_version() == known_schema_version());
  }

  SECTION("a read-write connection is refused outright") {
    CHECK_THROWS_WITH(select_check_kernels(corpus.rw(), "1", 0), Catch::Contains("read-only"));
  }
}
