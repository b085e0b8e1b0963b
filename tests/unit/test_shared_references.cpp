// A kernel that is a whole module statement shares its global references with the closures that
// render that statement (a launcher's, another kernel's): one walk, whichever comes first. The
// walk under the kernel's nesting limit and under a statement's may differ only where the
// nesting reaches between them; `deepest` tells which walk a cached one stands for.
#include <catch2/catch.hpp>

#include <map>

#include "core/error.h"
#include "core/repo/global_references.h"
#include "core/scan/memory_tree.h"
#include "core/scan/scanner.h"

using namespace mine;

namespace {

const char* kHelpers =
    "import triton\n"
    "@triton.jit\n"
    "def fast_exp(x):\n"
    "    return x * 2\n";

// `kern` rewrites `H.fast_exp` (a module attribute) in its own text; `user` renders kern's
// statement into its own standalone, rewritten the same way; `launch` launches kern.
const char* kKernel =
    "import triton\n"
    "import pkg.helpers as H\n"
    "@triton.jit\n"
    "def kern(x):\n"
    "    return H.fast_exp(x) + H.fast_exp(x * 3)\n"
    "def launch(x):\n"
    "    kern[(1,)](x)\n";

const char* kUser =
    "import triton\n"
    "from pkg.k import kern\n"
    "@triton.jit\n"
    "def user(x):\n"
    "    return kern(x)\n";

// Standalones by path::qualname, and launcher standalones by path:line.
std::map<std::string, std::string> scan(const std::map<std::string, std::string>& files, int jobs) {
  ScanOptions options;
  options.jobs = jobs;
  Scanner scanner(all_plugins(), options);
  RepoSnapshot snap = scanner.extract(*memory_tree("mem", files), "mem");
  std::map<std::string, std::string> out;
  for (const auto& rec : snap.kernels) out[rec.path + "::" + rec.kernel.qualname] = rec.kernel.standalone;
  for (const auto& l : snap.launches) out[l.path + ":" + std::to_string(l.line)] = l.launcher_standalone;
  return out;
}

}  // namespace

TEST_CASE("a kernel's references are the same whether its closure or a renderer walks them first",
          "[crossfile][references]") {
  // Files are met in path order: `a_user.py` renders kern before kern's own closure runs,
  // `z_user.py` after it; alone, kern's closure walks its references itself.
  auto before = scan({{"pkg/__init__.py", ""}, {"pkg/helpers.py", kHelpers}, {"pkg/k.py", kKernel},
                      {"pkg/a_user.py", kUser}},
                     1);
  auto after = scan({{"pkg/__init__.py", ""}, {"pkg/helpers.py", kHelpers}, {"pkg/k.py", kKernel},
                     {"pkg/z_user.py", kUser}},
                    1);
  auto alone = scan({{"pkg/__init__.py", ""}, {"pkg/helpers.py", kHelpers}, {"pkg/k.py", kKernel}}, 1);
  const std::string& kern = alone.at("pkg/k.py::kern");
  CHECK(kern.find("fast_exp(x) + fast_exp(x * 3)") != std::string::npos);  // rewritten, not H.fast_exp
  CHECK(before.at("pkg/k.py::kern") == kern);
  CHECK(after.at("pkg/k.py::kern") == kern);
  CHECK(before.at("pkg/k.py:7") == alone.at("pkg/k.py:7"));  // the launcher's standalone
  CHECK(after.at("pkg/k.py:7") == alone.at("pkg/k.py:7"));
  // The renderer's standalone holds kern rewritten exactly as kern's own does.
  CHECK(before.at("pkg/a_user.py::user").find("fast_exp(x) + fast_exp(x * 3)") != std::string::npos);
  CHECK(before.at("pkg/a_user.py::user") == after.at("pkg/z_user.py::user"));
}

TEST_CASE("global references: a walk stands for any limit at or above the deepest level it reached",
          "[crossfile][references]") {
  std::string nested = "x = " + std::string(40, '(') + "a.b.c" + std::string(40, ')') + "\n";
  for (const std::string& source : {nested, std::string(kKernel), std::string("for (a, (b, c)) in d: e[f] = g\n")}) {
    auto tree = SyntaxTree::parse(source);
    TSNode statement = ts_node_named_child(tree->root(), ts_node_named_child_count(tree->root()) - 1);
    int deepest = -1;
    auto refs = global_references(*tree, statement, 1000, &deepest);
    INFO(source);
    REQUIRE(deepest > 0);
    auto at = global_references(*tree, statement, deepest);
    REQUIRE(at.size() == refs.size());
    for (size_t i = 0; i < refs.size(); ++i) {
      CHECK(at[i].name == refs[i].name);
      CHECK(at[i].start == refs[i].start);
      CHECK(at[i].chain == refs[i].chain);
    }
    CHECK_THROWS_AS(global_references(*tree, statement, deepest - 1), Error);
  }
}
