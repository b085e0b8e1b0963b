// The pieces under the cross-file closure, one behaviour each: where imports land in a tree,
// which references of a statement are global, and how a notebook becomes a module.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "core/error.h"
#include "core/notebook/notebook_reader.h"
#include "core/repo/global_references.h"
#include "core/repo/module_index.h"
#include "core/repo/root_package.h"

using namespace mine;

TEST_CASE("module index resolves relative imports of any depth by path", "[crossfile][index]") {
  ModuleIndex index({"pkg/__init__.py", "pkg/common.py", "pkg/ops/__init__.py", "pkg/ops/deep/kernel.py",
                     "pkg/ops/deep/local.py", "pkg/utils/math.py"});
  CHECK(index.relative("local", 1, "pkg/ops/deep/kernel.py").file == "pkg/ops/deep/local.py");
  CHECK(index.relative("common", 3, "pkg/ops/deep/kernel.py").file == "pkg/common.py");
  CHECK(index.relative("utils.math", 3, "pkg/ops/deep/kernel.py").file == "pkg/utils/math.py");
  // `from . import x` names the package itself: its __init__.py and its folder.
  ModuleLocation here = index.relative("", 1, "pkg/ops/__init__.py");
  CHECK(here.file == "pkg/ops/__init__.py");
  CHECK(here.dir == "pkg/ops");
  // pkg/utils has no __init__.py: a namespace package, a folder only.
  ModuleLocation ns = index.relative("utils", 2, "pkg/ops/x.py");
  CHECK(ns.file.empty());
  CHECK(ns.dir == "pkg/utils");
  CHECK_FALSE(index.relative("missing", 1, "pkg/common.py").found());
  CHECK_FALSE(index.relative("x", 5, "pkg/common.py").found());  // above the repository root
}

TEST_CASE("module index finds absolute imports from the roots Python would have", "[crossfile][index]") {
  ModuleIndex index({"src/fancy/__init__.py", "src/fancy/core.py", "benchmarks/bench.py", "scripts/helpers.py",
                     "scripts/run.py", "tools/math.py", "json/notes.py", "nsp/tools/act.py", "fla/__init__.py",
                     "fla/ops/__init__.py", "fla/ops/utils.py", "fla/ops/gla/chunk.py", "fla/ops/gla/__init__.py"});
  CHECK(index.absolute("fla.ops.utils", "fla/ops/gla/chunk.py").file == "fla/ops/utils.py");
  CHECK(index.absolute("fancy.core", "benchmarks/bench.py").file == "src/fancy/core.py");  // src/ layout
  CHECK(index.absolute("fancy", "src/fancy/core.py").file == "src/fancy/__init__.py");
  CHECK(index.absolute("helpers", "scripts/run.py").file == "scripts/helpers.py");  // the script's folder
  CHECK(index.absolute("nsp.tools.act", "scripts/run.py").file == "nsp/tools/act.py");  // namespace packages
  ModuleLocation top;
  index.absolute("fla.ops.utils", "fla/ops/gla/chunk.py", &top);
  CHECK(top.file == "fla/__init__.py");
  // Outside the repository: the standard library and installed packages are never shadowed by a
  // stray module in an unrelated folder or by a folder without any module of that name.
  CHECK_FALSE(index.absolute("math", "fla/ops/utils.py").found());
  CHECK_FALSE(index.absolute("json", "scripts/run.py").found());
  CHECK_FALSE(index.absolute("torch", "fla/ops/utils.py").found());
  CHECK_FALSE(index.absolute("helpers", "benchmarks/bench.py").found());
}

TEST_CASE("a folder whose name no import can spell is a root, __init__.py or not", "[crossfile][index]") {
  // `examples/model-v2/__init__.py` makes no importable package (`model-v2` is no identifier): the
  // scripts of that folder run from it, so `from utils.config import Config` in
  // `examples/model-v2/model/net.py` is its `utils/config.py`.
  ModuleIndex index({"examples/model-v2/__init__.py", "examples/model-v2/model/__init__.py",
                     "examples/model-v2/model/net.py", "examples/model-v2/utils/__init__.py",
                     "examples/model-v2/utils/config.py", "examples/model-v2/run.py", "pkg/__init__.py",
                     "pkg/sub/__init__.py", "pkg/sub/net.py", "pkg/utils.py"});
  CHECK(index.absolute("utils.config", "examples/model-v2/model/net.py").file == "examples/model-v2/utils/config.py");
  CHECK(index.absolute("model.net", "examples/model-v2/run.py").file == "examples/model-v2/model/net.py");
  // For the files under it only: elsewhere `utils` is no module of the repository.
  CHECK_FALSE(index.absolute("utils.config", "tools/convert.py").found());
  // A package whose name is an identifier is no root: inside `pkg/sub`, `utils` is not pkg/utils.py.
  CHECK_FALSE(index.absolute("utils", "pkg/sub/net.py").found());
}

TEST_CASE("a vendored package's imports of itself by its own name land in the vendored copy", "[crossfile]") {
  ModuleIndex index({"zoo/__init__.py", "zoo/_vendored/__init__.py", "zoo/_vendored/fla/__init__.py",
                     "zoo/_vendored/fla/ops/__init__.py", "zoo/_vendored/fla/ops/op.py",
                     "zoo/_vendored/fla/ops/gate.py", "zoo/models/qwen.py"});
  ModuleLocation top;
  CHECK(index.absolute("fla.ops.op", "zoo/_vendored/fla/ops/gate.py", &top).file == "zoo/_vendored/fla/ops/op.py");
  CHECK(top.file == "zoo/_vendored/fla/__init__.py");
  // Only from inside the copy: elsewhere `fla` is the installed library, which the copy may not match.
  CHECK_FALSE(index.absolute("fla.ops.op", "zoo/models/qwen.py").found());
  // A name the copy has no module for stays outside the repository.
  CHECK_FALSE(index.absolute("fla.layers", "zoo/_vendored/fla/ops/gate.py").found());
}

TEST_CASE("a root package's own files import it by the name it is installed as", "[crossfile][index]") {
  ModuleIndex index({"__init__.py", "kernels/__init__.py", "kernels/utils.py", "kernels/moe.py", "linalg.py"});
  // Without the name, `fast_moe` is an installed package.
  CHECK_FALSE(index.absolute("fast_moe.kernels.utils", "kernels/moe.py").found());
  index.set_root_package_names({"fast_moe"});
  ModuleLocation top;
  CHECK(index.absolute("fast_moe.kernels.utils", "kernels/moe.py", &top).file == "kernels/utils.py");
  CHECK(top.file == "__init__.py");
  CHECK(index.absolute("fast_moe", "kernels/moe.py").file == "__init__.py");
  // Other names are not the root: numpy.linalg stays outside, whatever the root holds.
  CHECK_FALSE(index.absolute("numpy.linalg", "kernels/moe.py").found());
  // A root that is no package is imported by no name.
  ModuleIndex plain({"kernels/__init__.py", "kernels/utils.py"});
  plain.set_root_package_names({"fast_moe"});
  CHECK_FALSE(plain.absolute("fast_moe.kernels.utils", "kernels/utils.py").found());
}

TEST_CASE("the root package's names come from its packaging files and its own name", "[crossfile][index]") {
  std::map<std::string, std::string> files = {
      {"pyproject.toml", "[build-system]\nrequires = [\"setuptools\"]\n\n[project]\nname = \"fast-moe\"\n"
                         "[tool.setuptools]\npackages = [\"fast_moe\", \"fast_moe.kernels\", \"moe_extras\"]\n"},
      {"setup.py", "from setuptools import setup\nsetup(name='legacy.name', version='1')\n"},
      {"setup.cfg", "[metadata]\nname = cfg-name\n"}};
  auto read = [&](const std::string& p) -> std::optional<std::string> {
    auto f = files.find(p);
    return f == files.end() ? std::nullopt : std::optional<std::string>(f->second);
  };
  CHECK(root_package_names(read, "meta/fast_moe") ==
        std::set<std::string>{"fast_moe", "moe_extras", "legacy_name", "cfg_name"});
  // A bare clone's folder name, without `.git`; names no import can spell are left out.
  CHECK(root_package_names([](const std::string&) { return std::nullopt; }, "/src/my-kernels.git") ==
        std::set<std::string>{"my_kernels"});
  CHECK(root_package_names([](const std::string&) { return std::nullopt; }, "/src/3d kernels").empty());
}

TEST_CASE("global references skip locals and carry attribute chains", "[crossfile][references]") {
  auto tree = SyntaxTree::parse(
      "def f(x, n=LIMIT):\n"
      "    y = H.fast_exp(x)\n"
      "    silu = 1\n"
      "    g = lambda silu: silu + OTHER\n"
      "    return [v for v in x if v > silu] + act.deep.gelu(y)\n");
  auto refs = global_references(*tree, ts_node_named_child(tree->root(), 0));
  std::vector<std::string> names;
  for (const auto& r : refs) names.push_back(r.name);
  CHECK(names == std::vector<std::string>{"f", "LIMIT", "H", "OTHER", "act"});
  const GlobalReference& h = refs[2];
  REQUIRE(h.chain.size() == 1);
  CHECK(h.chain[0].first == "fast_exp");
  CHECK(tree->text().substr(h.start, h.chain[0].second - h.start) == "H.fast_exp");
  REQUIRE(refs[4].chain.size() == 2);
  CHECK(tree->text().substr(refs[4].start, refs[4].chain[1].second - refs[4].start) == "act.deep.gelu");
}

TEST_CASE("global references see through class scopes and honour `global`", "[crossfile][references]") {
  auto tree = SyntaxTree::parse(
      "class C:\n"
      "    BLOCK = 4\n"
      "    def m(self):\n"
      "        global COUNT\n"
      "        COUNT = BLOCK\n"
      "        return self\n");
  auto refs = global_references(*tree, ts_node_named_child(tree->root(), 0));
  std::vector<std::string> names;
  for (const auto& r : refs) names.push_back(r.name);
  // `BLOCK` in the method is the module's, not the class attribute; COUNT is global twice.
  CHECK(names == std::vector<std::string>{"C", "COUNT", "COUNT", "BLOCK"});
}

TEST_CASE("notebooks join their code cells with magics and shell lines neutralized", "[crossfile][notebook]") {
  std::string json = R"({"nbformat": 4, "cells": [
    {"cell_type": "markdown", "source": ["# title"]},
    {"cell_type": "code", "source": ["%matplotlib inline\n", "import triton\n", "files = !ls\n", "if True:\n", "    !pip install x"]},
    {"cell_type": "code", "source": "%%bash\necho (not python"},
    {"cell_type": "code", "source": ["%%time\n", "X = 1"]}
  ]})";
  NotebookModule nb = read_notebook(json);
  CHECK(nb.text ==
        "pass  # %matplotlib inline\nimport triton\nfiles = None  # files = !ls\nif True:\n    pass  # !pip install x\n\n"
        "# %%bash\n# echo (not python\n\n"
        "pass  # %%time\nX = 1\n\n");
  REQUIRE(nb.cells.size() == 3);
  CHECK(nb.locate(2) == std::make_pair(1, 2));   // `import triton`: cell 1, line 2
  CHECK(nb.locate(11) == std::make_pair(3, 2));  // `X = 1`: cell 3, line 2
  CHECK(nb.locate(6).first == -1);               // the blank line between cells
  CHECK_THROWS_AS(read_notebook("{not json"), Error);
  CHECK_THROWS_AS(read_notebook(R"({"nbformat": 4})"), Error);
}
