#include <catch2/catch.hpp>
#include <cstdlib>
#include <set>

#include "core/cli/command.h"
#include "core/shard/shard_spec.h"

using mine::ShardSpec;

TEST_CASE("stable_hash64 is FNV-1a 64 and never changes", "[shard]") {
  // Published FNV-1a test vectors: a different value means shards of old and new builds disagree.
  CHECK(mine::stable_hash64("") == 0xcbf29ce484222325ull);
  CHECK(mine::stable_hash64("a") == 0xaf63dc4c8601ec8cull);
  CHECK(mine::stable_hash64("foobar") == 0x85944171f73967e8ull);
}

TEST_CASE("ShardSpec parses K/N", "[shard]") {
  ShardSpec s = ShardSpec::parse("2/5");
  CHECK(s.index == 2);
  CHECK(s.count == 5);
  CHECK(s.text() == "2/5");
  CHECK_FALSE(s.whole());
  CHECK(ShardSpec::parse("0/1").whole());
  for (const char* bad : {"3/2", "2/2", "a/b", "1", "", "/", "1/", "/3", "-1/3", "1/0", "0/0", "1/3x", " 1/3", "1.0/3",
                          "0/99999999999"})
    CHECK_THROWS_AS(ShardSpec::parse(bad), mine::cli::UsageError);
}

TEST_CASE("ShardSpec messages name the option and the fix", "[shard]") {
  try {
    ShardSpec::parse("3/2", "$MINE_SHARD");
    FAIL("3/2 accepted");
  } catch (const mine::cli::UsageError& e) {
    CHECK(e.message.find("$MINE_SHARD '3/2'") != std::string::npos);
    CHECK(e.message.find("less than N") != std::string::npos);
  }
}

TEST_CASE("shards partition keys exactly once", "[shard]") {
  const uint64_t n = 7;
  std::multiset<uint64_t> owners;
  for (int i = 0; i < 1000; ++i) {
    std::string key = "owner" + std::to_string(i) + "/repo";
    int owned = 0;
    for (uint64_t k = 0; k < n; ++k)
      if (ShardSpec{k, n}.owns(key)) ++owned, owners.insert(k);
    CHECK(owned == 1);
  }
  for (uint64_t k = 0; k < n; ++k) CHECK(owners.count(k) > 80);  // 1000/7 ~ 143: no shard starves
}

TEST_CASE("kernel shard key joins the identity", "[shard]") {
  CHECK(mine::kernel_shard_key("o/r", "a.py", "K.k", "ab") == "o/r|a.py|K.k|ab");
  // Pinned: the shard of a kernel must not change between builds.
  CHECK(mine::stable_hash64(mine::kernel_shard_key("o/r", "a.py", "K.k", "ab")) == 0x1fb41c0c1771c336ull);
  CHECK(ShardSpec::parse("0/3").owns("o/r|a.py|K.k|ab"));
}

TEST_CASE("resolve prefers --shard, then MINE_SHARD", "[shard]") {
  std::string flag = "1/4";
  setenv("MINE_SHARD", "2/3", 1);
  CHECK(ShardSpec::resolve(&flag).text() == "1/4");
  CHECK(ShardSpec::resolve(nullptr).text() == "2/3");
  setenv("MINE_SHARD", "9/3", 1);
  CHECK_THROWS_AS(ShardSpec::resolve(nullptr), mine::cli::UsageError);
  unsetenv("MINE_SHARD");
  CHECK(ShardSpec::resolve(nullptr).whole());
}
