#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "core/export/atomic_file.h"
#include "core/export/chat_prompt.h"
#include "core/export/kernel_language.h"
#include "core/export/train_test_split.h"

using namespace mine;

TEST_CASE("splits never separate a repository or a near-duplicate cluster", "[dedup][export]") {
  std::vector<std::string> repos;
  std::vector<int64_t> clusters;
  // 40 repositories of 5 kernels; kernel 0 of repo r is a near copy of kernel 0 of repo r+1.
  for (int r = 0; r < 40; ++r)
    for (int k = 0; k < 5; ++k) {
      repos.push_back("owner/repo" + std::to_string(r));
      clusters.push_back(k == 0 ? 1000 + r / 2 : -1);
    }
  auto split = assign_splits(repos, clusters, {{"test", 0.1}, {"valid", 0.1}});
  std::map<std::string, std::set<int>> sides_of_repo;
  std::map<int64_t, std::set<int>> sides_of_cluster;
  std::vector<size_t> count(3, 0);
  for (size_t i = 0; i < repos.size(); ++i) {
    sides_of_repo[repos[i]].insert(split[i]);
    if (clusters[i] >= 0) sides_of_cluster[clusters[i]].insert(split[i]);
    count[static_cast<size_t>(split[i])]++;
  }
  for (const auto& [r, s] : sides_of_repo) CHECK(s.size() == 1);
  for (const auto& [c, s] : sides_of_cluster) CHECK(s.size() == 1);
  // Groups are pairs of repos (10 kernels); 10% of 200 is 20: two groups each.
  CHECK(count[1] == 20);
  CHECK(count[2] == 20);
  CHECK(count[0] == 160);
  CHECK(assign_splits(repos, clusters, {{"test", 0.1}, {"valid", 0.1}}) == split);  // deterministic
}

TEST_CASE("split specs are validated", "[dedup][export]") {
  CHECK(parse_split("test=0.05").fraction == Approx(0.05));
  CHECK_THROWS_AS(parse_split("test"), Error);
  CHECK_THROWS_AS(parse_split("test=abc"), Error);
  CHECK_THROWS_AS(parse_split("test=1.5"), Error);
  CHECK_THROWS_AS(parse_split("train=0.1"), Error);
  CHECK_THROWS_AS(assign_splits({"a"}, {-1}, {{"x", 0.6}, {"y", 0.5}}), Error);
}

TEST_CASE("kernel header: one-line signature and dedented docstring", "[dedup][export]") {
  std::string src =
      "@triton.jit\n"
      "def k(x_ptr,  # input\n"
      "      n,\n"
      "      BLOCK: tl.constexpr):\n"
      "    \"\"\"Scales x.\n\n"
      "    Second line.\n"
      "    \"\"\"\n"
      "    pass\n";
  KernelHeader h = read_kernel_header(src, "k");
  CHECK(h.signature == "def k(x_ptr, n, BLOCK: tl.constexpr):");
  CHECK(h.docstring == "Scales x.\n\nSecond line.");
  CHECK(read_kernel_header(src, "missing").signature.empty());
  PromptFacts facts{"triton", "k", src, nlohmann::json::object(), {"helper"}};
  std::string p = chat_prompt(facts);
  CHECK(p.find("`k`") != std::string::npos);
  CHECK(p.find("Scales x.") != std::string::npos);
  CHECK(p.find("`helper`") != std::string::npos);
  CHECK(p.find("pass") == std::string::npos);  // the answer's body never leaks into the prompt
}

TEST_CASE("inductor prompts name the ATen ops and the PyTorch code", "[dedup][export]") {
  PromptFacts facts{"inductor", "triton_poi_fused_add_0", "def triton_poi_fused_add_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n    pass\n",
                    {{"category", "pointwise"},
                     {"aten_ops", {"aten.add"}},
                     {"pytorch_code", {{{"file", "m.py"}, {"line", 3}, {"code", "y = x + 1"}}}}},
                    {}};
  std::string p = chat_prompt(facts);
  CHECK(p.find("aten.add") != std::string::npos);
  CHECK(p.find("y = x + 1") != std::string::npos);
  CHECK(p.find("pointwise") != std::string::npos);
}

TEST_CASE("CUDA prompts name CUDA C++ and quote the declaration in a cuda fence", "[dedup][export]") {
  std::string src =
      "// Adds one.\n"
      "template <typename T>\n"
      "__global__ void __launch_bounds__(256)\n"
      "add_one(T* x, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) x[i] += 1;\n"
      "}\n";
  CHECK(read_cuda_header(src).signature == "template <typename T> __global__ void __launch_bounds__(256) add_one(T* x, int n)");
  PromptFacts facts{"cuda", "add_one", src, nlohmann::json::object(), {"clamp"}, "cuda"};
  std::string p = chat_prompt(facts);
  CHECK(p.find("Write a CUDA C++ kernel named `add_one`") != std::string::npos);
  CHECK(p.find("```cuda\ntemplate <typename T>") != std::string::npos);
  CHECK(p.find("`clamp`") != std::string::npos);
  CHECK(p.find("Python") == std::string::npos);
  CHECK(p.find("threadIdx") == std::string::npos);  // the answer's body never leaks into the prompt
}

TEST_CASE("a kernel's language picks its fence", "[dedup][export]") {
  CHECK(kernel_language("cuda", {{"embedded_in", "cupy.RawKernel"}}) == "cuda");
  CHECK(kernel_language("triton", nlohmann::json::object()) == "python");
  CHECK(kernel_language("numba", nlohmann::json::object()) == "python");
  CHECK(kernel_language("myplugin", {{"language", "cuda"}}) == "cuda");
  CHECK(kernel_language("myplugin", {{"language", "fortran"}}) == "python");  // unknown: not trusted
  CHECK(fenced("x = 1\n\n", "python") == "```python\nx = 1\n```");
  CHECK(fenced("__global__ void k() {}\n", "cuda") == "```cuda\n__global__ void k() {}\n```");
}

TEST_CASE("an atomic file appears only on commit", "[dedup][export]") {
  auto dir = std::filesystem::temp_directory_path() / ("mine_atomic_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "out.json").string();
  {
    std::ofstream(path) << "OLD";
    AtomicFile f(path);
    f.write("half");
  }  // no commit: as if an exception unwound
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  CHECK(content == "OLD");
  CHECK(std::distance(std::filesystem::directory_iterator(dir), {}) == 1);
  {
    AtomicFile f(path);
    f.write("NEW");
    f.commit();
  }
  std::ifstream in2(path);
  std::string content2((std::istreambuf_iterator<char>(in2)), {});
  CHECK(content2 == "NEW");
  std::filesystem::remove_all(dir);
}
