// Inductor's files are the inductor plugin's alone, scanned with every built-in plugin: a
// torchinductor cache kernel is stored once (not again by the triton plugin), while user code
// that merely uses Inductor's heuristics or quotes its calls stays the triton plugin's. Also the
// fast path of output-code reading: parsing only the kernels' region, piece by piece, finds what
// a whole-file parse finds.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/python/syntax_tree.h"
#include "plugins/inductor/output_code.h"
#include "plugins/inductor/output_code_chunks.h"
#include "test_inductor_corpus.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

fs::path old_fixtures() { return fs::path(MINE_FIXTURES_DIR) / "inductor_old"; }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// plugin -> kernels rows
std::map<std::string, int64_t> rows_by_plugin(const testing::ScannedCorpus& c) {
  std::map<std::string, int64_t> out;
  for (const auto& r : c.query("SELECT plugin, count(*) FROM kernels GROUP BY plugin").rows)
    out[r[0].get<std::string>()] = r[1].get<int64_t>();
  return out;
}

class TempFolder {
 public:
  TempFolder() {
    static int n = 0;
    path_ = fs::temp_directory_path() / ("mine_claims_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempFolder() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  void write(const std::string& name, const std::string& text) const {
    fs::create_directories((path_ / name).parent_path());
    std::ofstream(path_ / name, std::ios::binary) << text;
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

}  // namespace

TEST_CASE("a torchinductor cache kernel is stored once, under inductor", "[inductor][claims]") {
  SECTION("a cache folder on its own") {
    testing::ScannedCorpus corpus;
    corpus.scan((old_fixtures() / "outside_cache").string(), all_plugins());
    CHECK(rows_by_plugin(corpus) == std::map<std::string, int64_t>{{"inductor", 1}});
    CHECK(corpus.count("SELECT count(*) FROM kernels WHERE name = 'triton_per_fused_sum_2'") == 1);
  }
  SECTION("a tree holding output code and the cache file one of its kernels points to") {
    testing::ScannedCorpus corpus;
    corpus.scan((old_fixtures() / "tree").string(), all_plugins());
    CHECK(rows_by_plugin(corpus) == std::map<std::string, int64_t>{{"inductor", 3}});
    CHECK(corpus.count("SELECT count(*) FROM kernels WHERE name = 'triton_poi_fused_mul_1'") == 1);
    // The occurrence in output_code.py and the cache file's own are one kernels row.
    CHECK(corpus.count("SELECT count(DISTINCT kernel_id) FROM kernel_occurrences WHERE qualname = 'triton_poi_fused_mul_1' "
                       "OR (source_origin = 'cache_module' AND path LIKE 'cache/%')") == 1);
  }
  SECTION("a template's cache file: its kernel, with the @triton.jit helpers it calls") {
    TempFolder tree;
    tree.write("cache/ab/cabtemplate.py",
               "import triton\nimport triton.language as tl\n"
               "from torch._inductor.runtime import triton_helpers, triton_heuristics\n\n"
               "@triton_heuristics.template(num_stages=1, num_warps=4, triton_meta={'signature': "
               "{'arg_Q': '*fp32', 'out_ptr0': '*fp32'}, 'constants': {}}, inductor_meta={'kernel_name': "
               "'triton_tem_fused_0'})\n"
               "@triton.jit\ndef triton_tem_fused_0(arg_Q, out_ptr0):\n"
               "    BLOCK: tl.constexpr = 16\n"
               "    offs = tl.arange(0, BLOCK)\n"
               "    tl.store(out_ptr0 + offs, scaled(tl.load(arg_Q + offs)))\n\n"
               "@triton.jit\ndef scaled(x):\n    return x * 2.0\n");
    testing::ScannedCorpus corpus;
    corpus.scan(tree.path(), all_plugins());
    CHECK(rows_by_plugin(corpus) == std::map<std::string, int64_t>{{"inductor", 1}});
    CHECK(corpus.count("SELECT count(*) FROM kernels WHERE name = 'triton_tem_fused_0' "
                       "AND instr(standalone, 'def scaled(x):') > 0") == 1);
  }
  SECTION("the real debug folder: nothing under triton") {
    testing::ScannedCorpus corpus;
    corpus.scan((fs::path(MINE_SHARED_DIR) / "fixtures" / "inductor").string(), all_plugins());
    auto rows = rows_by_plugin(corpus);
    CHECK(rows.count("triton") == 0);
    CHECK(rows["inductor"] > 0);
  }
}

TEST_CASE("user code using Inductor's heuristics or quoting its calls stays the triton plugin's", "[inductor][claims]") {
  TempFolder tree;
  // Two kernels of one's own under Inductor's heuristics decorator: no cache file (those hold one).
  tree.write("heuristics_user.py",
             "import triton\nimport triton.language as tl\n"
             "from torch._inductor.runtime import triton_heuristics\n\n"
             "@triton_heuristics.pointwise(size_hints=[16], triton_meta={'signature': {'x': '*fp32'}})\n"
             "@triton.jit\ndef scale(x):\n    pass\n\n"
             "@triton.jit\ndef shift(x):\n    pass\n");
  // Code generation that quotes the call, indented, beside a kernel of its own.
  tree.write("codegen_like.py",
             "import triton\n\n"
             "def emit(name, src):\n"
             "    return f\"{name} = async_compile.triton('{name}', '''{src}''', device_str='cuda')\"\n\n"
             "@triton.jit\ndef helper_kernel(x):\n    pass\n");
  testing::ScannedCorpus corpus;
  corpus.scan(tree.path(), all_plugins());
  auto names = corpus.query("SELECT plugin, name FROM kernels ORDER BY name").rows;
  REQUIRE(names.size() == 3);
  CHECK(names[0][1] == "helper_kernel");
  CHECK(names[1][1] == "scale");
  CHECK(names[2][1] == "shift");
  for (const auto& r : names) CHECK(r[0] == "triton");
  CHECK(corpus.count("SELECT count(*) FROM scan_errors") == 0);
}

TEST_CASE("output code is recognised by its layout, not by a mention of the call", "[inductor][claims]") {
  std::string head = "from torch._inductor.async_compile import AsyncCompile\nasync_compile = AsyncCompile()\n\n";
  CHECK(inductor::is_output_code(head + "k0 = async_compile.triton('k0', '''\nx\n''')\n"));
  CHECK_FALSE(inductor::is_output_code(head + "    k0 = async_compile.triton('k0', '''x''')\n"));   // indented
  CHECK_FALSE(inductor::is_output_code(head + "print(async_compile.triton('k0', '''x'''))\n"));       // not bound
  CHECK_FALSE(inductor::is_output_code("k0 = async_compile.triton('k0', '''x''')\n"));                // no AsyncCompile()
}

TEST_CASE("reading only the kernels' region finds what a whole-file parse finds", "[inductor][region]") {
  auto output_code = [](const std::string& kernel_body) {
    return "from torch._inductor.async_compile import AsyncCompile\nasync_compile = AsyncCompile()\n\n"
           "# Original ATen: [aten.add]\n"
           "k0 = async_compile.triton('k0', '''\nimport triton\n"
           "from torch._inductor.runtime import triton_heuristics\n" + kernel_body +
           "@triton_heuristics.pointwise(size_hints=[16], triton_meta={'signature': {'x': '*fp32'}})\n"
           "@triton.jit\ndef k0(x):\n    pass\n''', device_str='cuda')\n\n"
           "async_compile.wait(globals())\ndel async_compile\n\ndef call(args):\n    pass\n";
  };
  std::string plain = output_code("");
  size_t end = inductor::kernel_region_end(plain);
  REQUIRE(end != std::string::npos);
  CHECK(plain.substr(end, 30) == "async_compile.wait(globals())\n");
  CHECK(plain.substr(0, end).find("def call") == std::string::npos);
  CHECK(inductor::kernel_region_end("k0 = async_compile.triton('k0', '''x''')\n") == std::string::npos);  // no wait()

  // A kernel string with the wait() line in it cuts the region inside the string: the reader sees
  // a piece that is not clean Python and parses the whole file instead. Either way, one kernel.
  std::string hostile = output_code("async_compile.wait(globals())\n");
  REQUIRE(inductor::kernel_region_end(hostile) < hostile.find("@triton.jit"));
  // A line in a kernel string that looks like a kernel binding splits the string: not clean, so
  // the region reading gives up rather than guess.
  std::string lookalike = "async_compile = AsyncCompile()\nk0 = async_compile.triton('k0', '''\n# c\n"
                          "k1 = async_compile.triton('k1')\n''')\nasync_compile.wait(globals())\n";
  inductor::ChunkReadings readings;
  CHECK_FALSE(inductor::read_kernel_region(lookalike, inductor::kernel_region_end(lookalike), readings).has_value());
  CHECK(inductor::read_kernel_region(plain, end, readings)->size() == 1);

  TempFolder tree;
  tree.write("plain/output_code.py", plain);
  tree.write("hostile/output_code.py", hostile);
  testing::ScannedCorpus corpus;
  corpus.scan(tree.path(), all_plugins());
  CHECK(corpus.count("SELECT count(*) FROM scan_errors") == 0);
  auto rows = corpus.query("SELECT graph, category, aten_ops FROM kernel_occurrences ORDER BY graph").rows;
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][0] == "hostile");
  CHECK(rows[1][0] == "plain");
  for (const auto& r : rows) {
    CHECK(r[1] == "pointwise");
    CHECK(r[2] == "[\"aten.add\"]");
  }

  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(fs::path(MINE_SHARED_DIR) / "fixtures" / "inductor")) {
    if (e.path().filename() != "output_code.py") continue;
    ++files;
    std::string code = read_text(e.path());
    size_t cut = inductor::kernel_region_end(code);
    REQUIRE(cut != std::string::npos);
    CHECK(cut < code.size() * 9 / 10);  // the graph-running code after it is not parsed
    auto whole = SyntaxTree::parse(code);
    auto a = inductor::find_kernel_calls(*whole);
    auto chunks = inductor::split_kernel_region(code, cut);
    CHECK(chunks.size() == a.size() + 1);  // the header, then one piece per kernel statement
    inductor::ChunkReadings readings;
    auto region = inductor::read_kernel_region(code, cut, readings);
    REQUIRE(region.has_value());
    const auto& b = *region;
    REQUIRE(a.size() == b.size());
    // A second file with the same kernel statements reads them from the first one's pieces.
    auto piece = std::string_view(code).substr(chunks[1].begin, chunks[1].end - chunks[1].begin);
    CHECK(readings.read(piece) == readings.read(std::string(piece)));
    CHECK(a.size() == inductor::kernel_call_lines_by_text(code).size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].variable == b[i].variable);
      CHECK(a[i].start_line == b[i].start_line);
      CHECK(a[i].end_line == b[i].end_line);
      CHECK(a[i].source == b[i].source);
      CHECK(a[i].source_line == b[i].source_line);
      CHECK(a[i].registered_name == b[i].registered_name);
      CHECK(a[i].comments.kernel_path == b[i].comments.kernel_path);
      CHECK(a[i].comments.source_nodes == b[i].comments.source_nodes);
      CHECK(a[i].comments.aten_ops == b[i].comments.aten_ops);
      CHECK(a[i].comments.node_mapping == b[i].comments.node_mapping);
    }
  }
  CHECK(files == 3);
}
