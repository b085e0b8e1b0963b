// IncludeResolver: each scanned file has a resolver of its own, and the headers they parse are
// shared between them by text. A second resolver reading the same header gets the very parse the
// first made; a header whose text differs is parsed anew; what one file's units may pull in is still
// counted per resolver, shared parse or not.
#include <catch2/catch.hpp>

#include <map>

#include "plugins/cuda/cuda_source.h"
#include "plugins/cuda/include_resolver.h"

using namespace mine;

namespace {

IncludeResolver resolver_over(const std::map<std::string, std::string>& files) {
  return IncludeResolver(
      [&files](const std::string& path) -> std::optional<std::string_view> {
        auto found = files.find(path);
        if (found == files.end()) return std::nullopt;
        return std::string_view(found->second);
      },
      [](const std::string&) { return std::vector<std::string>{}; });
}

}  // namespace

TEST_CASE("resolvers share the parse of a header with the same text", "[cuda]") {
  std::map<std::string, std::string> repo = {{"src/common.h", "#define N 4\n__device__ int twice(int x) { return 2 * x; }\n"}};
  std::map<std::string, std::string> other = {{"src/common.h", "__device__ int thrice(int x) { return 3 * x; }\n"}};
  auto a = resolver_over(repo), b = resolver_over(repo), c = resolver_over(other);
  auto from_a = a.resolve("common.h", "src/k.cu");
  auto from_b = b.resolve("common.h", "src/other.cu");
  auto from_c = c.resolve("common.h", "src/k.cu");
  REQUIRE(from_a);
  REQUIRE(from_b);
  REQUIRE(from_c);
  CHECK(from_a->path == "src/common.h");
  CHECK(from_a->source == from_b->source);  // parsed once
  CHECK(from_a->source->text() == repo["src/common.h"]);
  CHECK(from_c->source != from_a->source);  // same path, another text: its own parse
  CHECK(from_c->source->text() == other["src/common.h"]);
  CHECK(from_c->source->items().size() == 1);
}

// A header with kernels of its own is scanned as a unit too: that scan and the resolvers of the
// units including it read one parse.
TEST_CASE("a header scanned as a unit and included by another share one parse", "[cuda]") {
  std::map<std::string, std::string> repo = {{"src/ops.cuh", "__global__ void scale(float* x) { x[0] *= 2; }\n"}};
  std::shared_ptr<const CudaSource> unit = shared_parse("src/ops.cuh", repo["src/ops.cuh"]);
  auto included = resolver_over(repo).resolve("ops.cuh", "src/k.cu");
  REQUIRE(included);
  CHECK(included->source == unit.get());
  CHECK(unit->kernels().size() == 1);
  CHECK(shared_parse("src/other.cuh", repo["src/ops.cuh"]) != unit);  // kept by path as well as text
}

TEST_CASE("what one file's units pull in is bounded per resolver, shared parses included", "[cuda]") {
  std::string big(5u << 20, ' ');
  for (size_t i = 0; i + 8 < big.size(); i += 4096) big.replace(i, 7, "int a;\n");
  std::map<std::string, std::string> repo = {{"a.h", big}, {"b.h", big + "\n"}};
  auto first = resolver_over(repo);
  REQUIRE(first.resolve("a.h", "k.cu"));
  CHECK_FALSE(first.resolve("b.h", "k.cu"));  // 10 MB for one file: past its 8 MB
  auto second = resolver_over(repo);
  CHECK(second.resolve("b.h", "k.cu"));  // a resolver of its own: within its bound
  CHECK_FALSE(second.resolve("a.h", "k.cu"));  // kept from the first resolver, still counted here
}
