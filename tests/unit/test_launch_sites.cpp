// Launch sites over tests/fixtures/launch/repo: the fixture files state what they expect.
//   In launcher files:
//   # expect: launch KERNEL in LAUNCHER args p=role[:dtype][shape][=value], ...   every argument, in order
//   # expect: launch KERNEL in LAUNCHER grid JSON                               grid_value as stored
//   (LAUNCHER `-`: a launch in the module's own code; notebooks state theirs in their cells)
//   In kernel files (the signature `mine check` infers with the launches attached):
//   # expect: kernel NAME signature p=type, ...   # expect: kernel NAME constexprs P=json, ...
//   # expect: kernel NAME guessed p, ...          # expect: kernel NAME args p=json, ...
//   # expect: kernel NAME tensors p=shape, ...    # expect: kernel NAME grid JSON
//   # expect: kernel NAME options k=json, ...   # expect: kernel NAME addresses p=json, ...
// The repository is scanned by the real scanner into a real corpus file.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/check/signature_inference.h"
#include "core/launch/launch_binding.h"
#include "core/launch/launch_finder.h"
#include "core/launch/launcher_values.h"
#include "core/notebook/notebook_reader.h"
#include "core/python/function_parameters.h"
#include "core/scan/scanner.h"
#include "corpus/check_store.h"

namespace fs = std::filesystem;
using namespace mine;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(' '), b = s.find_last_not_of(' ');
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// Splits "a=1, b=[1,2], c="x, y", d=(i32,i32)" at the commas outside brackets and quotes.
std::vector<std::string> items(const std::string& text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (char c : text) {
    if (c == '"') quoted = !quoted;
    if (!quoted && (c == '[' || c == '{' || c == '(')) ++depth;
    if (!quoted && (c == ']' || c == '}' || c == ')')) --depth;
    if (c == ',' && depth == 0 && !quoted) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

std::string normalized(const std::string& text) {  // each value re-dumped as JSON where it is JSON
  std::string out;
  for (const auto& item : items(text)) {
    size_t eq = item.find('=');
    std::string key = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    auto parsed = nlohmann::json::parse(value, nullptr, false);
    out += (out.empty() ? "" : ", ") + key + (eq == std::string::npos ? "" : "=" + (parsed.is_discarded() ? value : parsed.dump()));
  }
  return out;
}

// "k=v, ..." of a JSON object: types as they are spelled (`*fp16`), values as JSON (`"gelu"`).
template <typename Json>
std::string pairs(const Json& object, bool json_values = true) {
  std::string out;
  for (auto it = object.begin(); it != object.end(); ++it)
    out += (out.empty() ? "" : ", ") + it.key() + "=" +
           (!json_values && it.value().is_string() ? it.value().template get<std::string>() : it.value().dump());
  return out;
}

std::string rendered_args(const nlohmann::json& args) {
  std::string out;
  for (const auto& a : args) {
    std::string s = a.value("param", "") + "=" + a.value("role", "");
    if (a.contains("dtype")) s += ":" + a["dtype"].get<std::string>();
    if (a.contains("shape")) s += a["shape"].dump();
    if (a.contains("value")) s += "=" + a["value"].dump();
    out += (out.empty() ? "" : ", ") + s;
  }
  return out;
}

struct ScannedRepo {
  fs::path db;
  std::vector<fs::path> files;
  ~ScannedRepo() {
    // A read-only connection closed last leaves the WAL files behind: they go too.
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix, ec);
  }
};

void scan(ScannedRepo& out) {
  static int counter = 0;
  fs::path root = fs::path(MINE_FIXTURES_DIR) / "launch" / "repo";
  out.db = fs::temp_directory_path() / ("mine_launch_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".db");
  ScanOptions options;
  options.jobs = 2;
  Scanner scanner(all_plugins(), options);
  auto tree = open_source_tree(root.string());
  auto corpus = Corpus::open(out.db.string(), Corpus::Access::ReadWrite);
  corpus->store(corpus->begin_scan("scan", nlohmann::json::array()), scanner.extract(*tree, "fixture/launch"));
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().extension() == ".py" || e.path().extension() == ".ipynb") out.files.push_back(e.path());
}

// Calls `check(file, line, match)` for every line of the repository's files that `expect` matches.
template <typename Check>
int for_each_expectation(const ScannedRepo& repo, const std::regex& expect, Check check) {
  int seen = 0;
  for (const auto& file : repo.files) {
    std::string text = read_text(file);
    std::stringstream lines(file.extension() == ".ipynb" ? read_notebook(text).text : text);
    std::string line;
    while (std::getline(lines, line)) {
      std::smatch m;
      if (!std::regex_match(line, m, expect)) continue;
      check(file, line, m);
      ++seen;
    }
  }
  return seen;
}

}  // namespace

TEST_CASE("launch sites are recorded as the launcher files expect", "[launch]") {
  ScannedRepo repo;
  scan(repo);
  auto corpus = Corpus::open(repo.db.string(), Corpus::Access::ReadOnly);
  static const std::regex kExpect(R"(^# expect: launch (\S+) in (\S+) (args|grid) (.*)$)");
  int checked = for_each_expectation(repo, kExpect, [&](const fs::path& file, const std::string& line, const std::smatch& m) {
    std::string kernel = m[1], launcher = m[2], what = m[3], expected = m[4];
    INFO(file.filename().string() << ": " << line);
    auto rows = corpus->query("SELECT l.args, l.grid_value FROM kernel_launches l JOIN kernels k ON k.id = l.kernel_id "
                              "WHERE k.name = '" + kernel + "' AND l.launcher = '" + (launcher == "-" ? "" : launcher) + "'");
    REQUIRE(rows.rows.size() == 1);
    if (what == "args") {
      CHECK(rendered_args(nlohmann::json::parse(rows.rows[0][0].get<std::string>())) == trim(expected));
    } else {
      nlohmann::json grid = rows.rows[0][1].is_null() ? nlohmann::json(nullptr) : nlohmann::json::parse(rows.rows[0][1].get<std::string>());
      CHECK(grid.dump() == nlohmann::json::parse(expected).dump());
    }
  });
  CHECK(checked >= 9);
  // No launch row for calls that launch nothing of the repository (torch.empty, x.reshape ...).
  CHECK(corpus->query("SELECT count(*) FROM kernel_launches").rows[0][0] == 130);
  // The launch inside `pytest.raises` is marked, the one after it is not.
  auto refused = corpus->query("SELECT l.line, l.expects_error FROM kernel_launches l JOIN kernels k ON k.id = l.kernel_id "
                               "WHERE k.name = 'fill_one' ORDER BY l.line");
  REQUIRE(refused.rows.size() == 2);
  CHECK(refused.rows[0][1] == 1);
  CHECK(refused.rows[1][1] == 0);
}

TEST_CASE("launches bind only the kernels they can reach, as the launcher files expect", "[launch]") {
  ScannedRepo repo;
  scan(repo);
  auto corpus = Corpus::open(repo.db.string(), Corpus::Access::ReadOnly);
  static const std::regex kExpect(R"(^# expect: launchers (\S+) (.*)$)");
  int checked = for_each_expectation(repo, kExpect, [&](const fs::path& file, const std::string& line, const std::smatch& m) {
    INFO(file.filename().string() << ": " << line);
    auto rows = corpus->query("SELECT group_concat(l.launcher, ',') FROM (SELECT l.launcher FROM kernel_launches l "
                              "JOIN kernels k ON k.id = l.kernel_id WHERE k.qualname = '" + m[1].str() +
                              "' AND k.path = '" + fs::relative(file, fs::path(MINE_FIXTURES_DIR) / "launch" / "repo").generic_string() +
                              "' ORDER BY l.launcher) l");
    REQUIRE(rows.rows.size() == 1);
    CHECK(rows.rows[0][0] == m[2].str());
  });
  CHECK(checked >= 2);
}

TEST_CASE("a ratio of sizes is recorded as one, a size as nominal, a literal as neither", "[launch]") {
  ScannedRepo repo;
  scan(repo);
  auto corpus = Corpus::open(repo.db.string(), Corpus::Access::ReadOnly);
  auto flags = [&](const std::string& kernel, const std::string& param) {
    auto rows = corpus->query(
        "SELECT coalesce(json_extract(a.value, '$.nominal'), 0), coalesce(json_extract(a.value, '$.ratio'), 0) "
        "FROM kernel_launches l JOIN kernels k ON k.id = l.kernel_id, json_each(l.args) a "
        "WHERE k.name = '" + kernel + "' AND json_extract(a.value, '$.param') = '" + param + "'");
    REQUIRE(rows.rows.size() == 1);
    return std::make_pair(rows.rows[0][0].get<int64_t>(), rows.rows[0][1].get<int64_t>());
  };
  // `triton.cdiv(k, scales.shape[1])`: 1 with alike stand-ins, and it moves when they differ.
  CHECK(flags("group_scale_kernel", "GROUP_K") == std::make_pair<int64_t, int64_t>(1, 1));
  CHECK(flags("group_scale_kernel", "BLOCK_K") == std::make_pair<int64_t, int64_t>(1, 1));
  // `k` itself follows the stand-in size; it is no ratio.
  CHECK(flags("group_scale_kernel", "N_COLS") == std::make_pair<int64_t, int64_t>(1, 0));
  // A literal constexpr of another launch is neither.
  CHECK(flags("fits_head", "BLOCK_M") == std::make_pair<int64_t, int64_t>(0, 0));
}

TEST_CASE("signatures follow the repository's launches first, as the kernel files expect", "[launch][check][signature]") {
  ScannedRepo repo;
  scan(repo);
  auto corpus = Corpus::open(repo.db.string(), Corpus::Access::ReadOnly);
  std::vector<CheckKernel> kernels = select_check_kernels(*corpus, "plugin = 'triton'", 0);
  attach_launches(*corpus, kernels);
  REQUIRE(kernels.size() == 118);
  std::map<std::string, check::InferredSignature> by_name;
  for (const auto& k : kernels) by_name[k.name] = check::infer_signature({k.plugin, k.name, k.standalone, k.meta, nullptr, k.launches});
  static const std::regex kExpect(R"(^# expect: kernel (\S+) (signature|constexprs|guessed|assumed|args|tensors|grid|options|addresses) ?(.*)$)");
  int checked = for_each_expectation(repo, kExpect, [&](const fs::path& file, const std::string& line, const std::smatch& m) {
    INFO(file.filename().string() << ": " << line);
    std::string name = m[1], what = m[2], expected = m[3];
    REQUIRE(by_name.count(name));
    const auto& sig = by_name[name];
    if (what == "signature") CHECK(pairs(sig.signature(), false) == normalized(expected));
    if (what == "constexprs") CHECK(normalized(pairs(sig.constexprs())) == normalized(expected));
    if (what == "args") CHECK(normalized(pairs(sig.args)) == normalized(expected));
    if (what == "options") CHECK(normalized(pairs(sig.options)) == normalized(expected));
    if (what == "addresses") CHECK(normalized(pairs(sig.addresses)) == normalized(expected));
    if (what == "grid") CHECK(sig.grid.dump() == nlohmann::json::parse(expected).dump());
    if (what == "guessed") {
      std::string got;
      for (const auto& g : sig.guessed()) got += (got.empty() ? "" : ", ") + g.get<std::string>();
      CHECK(got == trim(expected));
    }
    if (what == "assumed") {
      std::string got;
      for (const auto& a : sig.assumed_fp32) got += (got.empty() ? "" : ", ") + a;
      CHECK(got == trim(expected));
    }
    if (what == "tensors") {
      nlohmann::ordered_json shapes = nlohmann::ordered_json::object();
      for (const auto& [p, t] : sig.tensors.items()) shapes[p] = t["shape"];
      CHECK(normalized(pairs(shapes)) == normalized(expected));
    }
  });
  CHECK(checked >= 20);
  // The corpus says which source decided each parameter.
  CHECK(by_name["act_kernel"].origins()["ACT"]["origin"] == "launch");
  CHECK(by_name["scale_kernel"].origins()["BLOCK"]["origin"] == "autotune");
  CHECK(by_name["lonely_kernel"].launch_count == 0);
  CHECK(by_name["lonely_zero"].launch_count == 0);
  CHECK(by_name["sgd_kernel"].launch_count == 1);
  // Constexprs the launch derives from the stand-in sizes are named for the harness; literals not.
  auto nominal = [&](const std::string& kernel, const std::string& param) {
    const auto& n = by_name[kernel].nominal;
    return std::find(n.begin(), n.end(), param) != n.end();
  };
  CHECK(nominal("quarter_dot", "BLOCK_D"));
  CHECK(nominal("block_cumsum", "D"));
  CHECK_FALSE(nominal("fits_head", "BLOCK_M"));
  CHECK_FALSE(nominal("tiled_rows", "M"));
}

TEST_CASE("launches bind by import, alias and name, and skip callees from outside the repository", "[launch]") {
  auto m = PythonModule::build("a.py",
                               "import subprocess\n"
                               "from triton import jit\n"
                               "def go(x):\n"
                               "    subprocess.run(['ls'])\n"
                               "    k = self_kernel\n"
                               "    k[(1,)](x, 3)\n"
                               "    obj.kernel[(2, 2)](x, n=4)\n");
  ModuleIndex index({"a.py", "b.py"});
  auto found = find_launches(*m, &index);
  REQUIRE(found.size() == 2);
  CHECK(found[0].target_name == "self_kernel");
  CHECK(found[0].grid == nlohmann::json::array({1, 1, 1}));
  CHECK(found[1].target_name == "kernel");
  CHECK(found[1].grid == nlohmann::json::array({2, 2, 1}));
  std::vector<LaunchTarget> kernels = {{1, "kernel", "b.py", "kernel", {"x_ptr", "n"}},
                                       {2, "kernel", "c.py", "kernel", {"x_ptr", "m"}},
                                       {3, "self_kernel", "b.py", "self_kernel", {"p", "q"}}};
  auto linked = link_launches(kernels, found);
  // `obj.kernel(x, n=4)` fits only the kernel that has a parameter n.
  REQUIRE(linked.size() == 2);
  CHECK(linked[0].kernel_id == 3);
  CHECK(linked[0].site.args[1].param == "q");
  CHECK(linked[0].site.args[1].value == 3);
  CHECK(linked[1].kernel_id == 1);
  CHECK(linked[1].site.args[1].param == "n");
}

TEST_CASE("a launch through a class attribute links the method of that class only", "[launch]") {
  // `kernel.Norm.backward[grid]`: every class of the package has a `backward` kernel; only
  // Norm's is launched. A name whose owner no kernel's class has (`ops.forward`, a module) is
  // still matched by name.
  auto m = PythonModule::build("op/norm.py",
                               "from pkg import kernel, ops\n"
                               "def norm_backward(g, x):\n"
                               "    kernel.Norm.backward[(1,)](g, x, 4)\n"
                               "    ops.forward[(1,)](x, 4)\n");
  ModuleIndex index({"op/norm.py", "pkg/__init__.py", "pkg/kernel/__init__.py", "pkg/kernel/norm.py",
                     "pkg/kernel/gelu.py", "pkg/ops.py"});
  auto found = find_launches(*m, &index);
  REQUIRE(found.size() == 2);
  CHECK(found[0].target_owner == "Norm");
  std::vector<LaunchTarget> kernels = {{1, "backward", "pkg/kernel/gelu.py", "GELU.backward", {"g", "x", "n"}},
                                       {2, "backward", "pkg/kernel/norm.py", "Norm.backward", {"g", "x", "n"}},
                                       {3, "forward", "pkg/ops.py", "forward", {"x", "n"}}};
  auto linked = link_launches(kernels, found);
  REQUIRE(linked.size() == 2);
  CHECK(linked[0].kernel_id == 2);
  CHECK(linked[1].kernel_id == 3);
}

TEST_CASE("a kernel defined once per version branch links to the definition its branch holds", "[launch]") {
  // Each branch defines `_fwd` and its launcher; the second definition takes a scratch buffer
  // more. The first launch must not bind to the second definition (its `tmp` would take `Out`),
  // nor the second launch to the first (23 arguments for 22 parameters).
  auto m = PythonModule::build("attn.py",
                               "import triton\n"
                               "if triton.__version__ >= '2.1.0':\n"
                               "    @triton.jit\n"
                               "    def _fwd(Q, Out, n, BLOCK: tl.constexpr):\n"
                               "        pass\n"
                               "    def attention(q, o):\n"
                               "        _fwd[(1,)](q, o, q.shape[0], BLOCK=64)\n"
                               "else:\n"
                               "    @triton.jit\n"
                               "    def _fwd(Q, TMP, Out, n, BLOCK: tl.constexpr):\n"
                               "        pass\n"
                               "    def attention(q, o):\n"
                               "        tmp = torch.empty_like(q)\n"
                               "        _fwd[(1,)](q, tmp, o, q.shape[0], BLOCK=64)\n");
  ModuleIndex index({"attn.py"});
  auto found = find_launches(*m, &index);
  REQUIRE(found.size() == 2);
  std::vector<LaunchTarget> kernels = {{1, "_fwd", "attn.py", "_fwd", {"Q", "Out", "n", "BLOCK"}, 4},
                                       {2, "_fwd", "attn.py", "_fwd", {"Q", "TMP", "Out", "n", "BLOCK"}, 10}};
  auto linked = link_launches(kernels, found);
  REQUIRE(linked.size() == 2);
  CHECK(linked[0].kernel_id == 1);
  CHECK(linked[0].site.args[1].param == "Out");
  CHECK(linked[1].kernel_id == 2);
  CHECK(linked[1].site.args[1].param == "TMP");
}

TEST_CASE("every launch of a launcher sees the tensor facts of its whole body", "[launch]") {
  // The ranks and dtypes a body implies are read once per function and shared by its launches
  // (and by the nominal and alternate evaluations of each): the second launch, and the fact stated
  // after the first one, must still reach both.
  auto m = PythonModule::build("a.py",
                               "import torch\n"
                               "def go(x: torch.Tensor, y: torch.Tensor):\n"
                               "    M, N = x.shape\n"
                               "    first_kernel[(M,)](x, y, N)\n"
                               "    assert y.dtype == torch.float16\n"
                               "    second_kernel[(N,)](y, x, M)\n");
  ModuleIndex index({"a.py"});
  auto found = find_launches(*m, &index);
  REQUIRE(found.size() == 2);
  for (const auto& launch : found) {
    REQUIRE(launch.args.size() == 3);
    for (const auto& a : launch.args) {
      if (a.text == "x") {
        CHECK(a.role == "tensor");
        CHECK(a.shape == nlohmann::json::array({32, 32}));
      }
      if (a.text == "y") {
        CHECK(a.role == "tensor");
        CHECK(a.dtype == "fp16");
      }
    }
  }
  CHECK(found[0].grid == nlohmann::json::array({32, 1, 1}));
  CHECK(found[1].grid == nlohmann::json::array({32, 1, 1}));
  // The two sizes tell a value that follows from them (N) from one the code fixes.
  CHECK(found[0].args[2].nominal);
}

namespace {

// The first node of `n`'s subtree whose text is `text`.
TSNode node_with_text(const PythonModule& m, TSNode n, const std::string& text) {
  if (m.text_of(n) == text) return n;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i) {
    TSNode found = node_with_text(m, ts_node_named_child(n, i), text);
    if (!ts_node_is_null(found)) return found;
  }
  return TSNode{};
}

}  // namespace

TEST_CASE("a launcher evaluation that read no size equals its alternate and skewed ones", "[launch]") {
  // Launch sites evaluate the alternate and skewed sizes only once a nominal value has read a size
  // (LauncherValues::read_sizes): until then the other evaluations run alike. Checked here value
  // by value against evaluations built anyway, with the read coming from the launcher itself, from
  // a helper while evaluating an argument, or not at all.
  auto m = PythonModule::build("a.py",
                               "def width(m: int):\n"
                               "    return m * 2\n"
                               "def fixed(x, block=128):\n"
                               "    k[(4,)](x, block, 16, block // 2)\n"
                               "def sized(x, n: int):\n"
                               "    k[(4,)](x, n, n // 32)\n"
                               "def helped(x):\n"
                               "    k[(1,)](x, width(), 8)\n");
  LauncherValues::CalleeLookup callees = [](const PythonModule& from, TSNode fn) -> LauncherValues::Callee {
    const FunctionSite* f = module_function(from, from.text_of(fn));
    return f ? LauncherValues::Callee{&from, f->definition} : LauncherValues::Callee{};
  };
  auto evaluations = [&](const std::string& launcher) {
    TSNode def = module_function(*m, launcher)->definition;
    std::vector<std::unique_ptr<LauncherValues>> out;
    for (auto [dim, skew] : {std::pair<int64_t, int>{LauncherValues::kNominalDim, 0}, {LauncherValues::kAlternateDim, 0},
                             {LauncherValues::kNominalDim, LauncherValues::kSkewUp},
                             {LauncherValues::kNominalDim, LauncherValues::kSkewDown}})
      out.push_back(std::make_unique<LauncherValues>(*m, def, UINT32_MAX, callees, nullptr, 0, dim, nullptr, nullptr, skew));
    return out;
  };
  auto all_agree = [&](const std::vector<std::unique_ptr<LauncherValues>>& e, TSNode value) {
    auto v = e[0]->eval(value);
    for (size_t i = 1; i < e.size(); ++i)
      if (e[i]->eval(value) != v) return false;
    return true;
  };
  TSNode root = m->tree().root();

  auto fixed = evaluations("fixed");
  CHECK_FALSE(fixed[0]->read_sizes());
  for (const char* arg : {"x", "block", "16", "block // 2"}) {
    INFO(arg);
    CHECK(all_agree(fixed, node_with_text(*m, root, arg)));
  }
  CHECK_FALSE(fixed[0]->read_sizes());

  auto sized = evaluations("sized");
  CHECK(sized[0]->read_sizes());  // `n: int` takes the stand-in size
  CHECK_FALSE(all_agree(sized, node_with_text(*m, root, "n")));

  auto helped = evaluations("helped");
  CHECK_FALSE(helped[0]->read_sizes());
  TSNode call = node_with_text(*m, root, "width()");
  CHECK_FALSE(all_agree(helped, call));  // the helper's `m: int` reads the size ...
  CHECK(helped[0]->read_sizes());         // ... and the nominal evaluation knows it from then on

  // What the launch sites record: the helper's value follows the sizes, the fixed ones do not.
  ModuleIndex index({"a.py"});
  auto found = find_launches(*m, &index);
  REQUIRE(found.size() == 3);
  for (const auto& launch : found) {
    for (const auto& a : launch.args) {
      INFO(launch.launcher << ": " << a.text);
      if (a.text == "block" || a.text == "16" || a.text == "block // 2" || a.text == "8") CHECK_FALSE(a.nominal);
      if (a.text == "n" || a.text == "width()") CHECK(a.nominal);
    }
  }
}

TEST_CASE("launch sites survive a CUDA file named .py", "[launch]") {
  // Tree-sitter's recovery reads `[](unsigned char* q) {` as a launch whose enclosing definition
  // has no body; evaluating that launcher once read through a null node and crashed the scan.
  auto m = PythonModule::build("scatter.py",
                               "            if (isinf(total)) {\n"
                               "__global__ void scatter_rows(\n"
                               "    const int8_t* __restrict__ codes,\n"
                               "    //   table[ROWS]           : 32 B  (int16)\n"
                               "    //   Scan::Storage         :  ~grows  (the block's scratch)\n"
                               "    extern __shared__ __align__(16) unsigned char scratch[];\n"
                               "    auto round8 = [](unsigned char* q) {\n");
  auto found = find_launches(*m, nullptr);
  for (const auto& site : found) CHECK(site.args.empty());
  CHECK(found.size() <= 1);
}
