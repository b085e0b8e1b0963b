// 2024-era Inductor kernels checked without the Inductor runtime that wrote them (issue 16): the
// kernel-only form leaves the AttrsDescriptor header and the heuristics decorator out; the
// triton_meta configs become specialization attributes; ported check results keep both outcomes
// and the ported source beside the original.
#include <catch2/catch.hpp>

#include <sstream>

#include "core/check/check_results.h"
#include "core/check/inductor_form.h"
#include "core/export/kernel_form.h"
#include "corpus/check_store.h"
#include "corpus/port_store.h"
#include "test_check_corpus.h"

using namespace mine;

namespace {

// A torch 2.5 module, as tests/fixtures/inductor_2024 has them.
const char* kModule2024 = R"(import triton
import triton.language as tl
from triton.compiler.compiler import AttrsDescriptor

from torch._inductor.runtime import triton_helpers, triton_heuristics
from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math
from torch._inductor.runtime.hints import AutotuneHint, ReductionHint, TileHint, DeviceProperties
triton_helpers.set_driver_to_gpu()

@triton_heuristics.pointwise(
    size_hints=[1024],
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'ks0': 'i32', 'xnumel': 'i32'}, 'device': DeviceProperties(type='cuda', index=0, cc=90), 'constants': {}, 'configs': [AttrsDescriptor(divisible_by_16=(0, 1, 3), equal_to_1=(2,))]},
    inductor_meta={'kernel_name': 'triton_poi_fused_add_0'}
)
@triton.jit
def triton_poi_fused_add_0(in_ptr0, out_ptr0, ks0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    tmp0 = tl.load(in_ptr0 + (xindex*ks0), xmask)
    tmp1 = triton_helpers.maximum(tmp0, libdevice.erf(tmp0))
    tl.store(out_ptr0 + (xindex), tmp1, xmask)
)";

}  // namespace

TEST_CASE("the kernel-only form of a 2024 Inductor kernel has no header or heuristics of its torch",
          "[check][inductor_form]") {
  auto kernel = check::inductor_kernel_only(kModule2024, "triton_poi_fused_add_0");
  REQUIRE(kernel);
  CHECK(kernel->find("AttrsDescriptor") == std::string::npos);
  CHECK(kernel->find("triton_heuristics") == std::string::npos);
  CHECK(kernel->find("set_driver_to_gpu") == std::string::npos);
  CHECK(kernel->find("DeviceProperties") == std::string::npos);
  // What the body uses stays: triton, tl, triton_helpers and libdevice (tl_math is unused).
  CHECK(kernel->find("import triton.language as tl") != std::string::npos);
  CHECK(kernel->find("triton_helpers") != std::string::npos);
  CHECK(kernel->find("libdevice") != std::string::npos);
  CHECK(kernel->find("@triton.jit\ndef triton_poi_fused_add_0(") != std::string::npos);
  CHECK_FALSE(check::inductor_kernel_only(kModule2024, "no_such_kernel"));

  // torch 2.3 kept the helpers in torch._inductor; the kernel-only form imports them from today's place.
  std::string torch23 = kModule2024;
  torch23.replace(torch23.find("from torch._inductor.runtime import triton_helpers, triton_heuristics"),
                  std::string("from torch._inductor.runtime import triton_helpers, triton_heuristics").size(),
                  "from torch._inductor import triton_helpers, triton_heuristics");
  torch23.replace(torch23.find("from torch._inductor.runtime.triton_helpers import"),
                  std::string("from torch._inductor.runtime.triton_helpers import").size(),
                  "from torch._inductor.triton_helpers import");
  auto old = check::inductor_kernel_only(torch23, "triton_poi_fused_add_0");
  REQUIRE(old);
  CHECK(old->find("from torch._inductor.runtime import triton_helpers") != std::string::npos);
  CHECK(old->find("from torch._inductor.runtime.triton_helpers import libdevice") != std::string::npos);
  CHECK(old->find("from torch._inductor import") == std::string::npos);
}

TEST_CASE("triton_meta configs of every Inductor era become specialization attributes", "[check][inductor_form]") {
  std::vector<std::string> params = {"in_ptr0", "out_ptr0", "ks0", "xnumel", "XBLOCK"};
  auto s = check::inductor_specialization(kModule2024, params);
  CHECK(s.divisible_by_16 == std::vector<std::string>{"in_ptr0", "out_ptr0", "xnumel"});
  CHECK(s.equal_to_1 == std::vector<std::string>{"ks0"});

  auto d = check::inductor_specialization(
      "triton_meta={'configs': [AttrsDescriptor.from_dict({'arg_properties': {'tt.divisibility': (0, 1), "
      "'tt.equal_to': ()}, 'cls': 'AttrsDescriptor'})]}",
      params);
  CHECK(d.divisible_by_16 == std::vector<std::string>{"in_ptr0", "out_ptr0"});
  CHECK(d.equal_to_1.empty());
  auto modern = check::inductor_specialization(
      "triton_meta={'configs': [{(0,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]}", params);
  CHECK(modern.divisible_by_16 == std::vector<std::string>{"in_ptr0", "xnumel"});
  CHECK(check::inductor_specialization("no configs here", params).divisible_by_16.empty());

  check::InferredSignature sig;
  for (const auto& [name, type] : std::vector<std::pair<std::string, std::string>>{
           {"in_ptr0", "*fp32"}, {"out_ptr0", "*fp32"}, {"ks0", "i32"}, {"xnumel", "i32"}, {"XBLOCK", "constexpr"}}) {
    check::InferredParam p;
    p.name = name;
    p.type = type;
    sig.params.push_back(p);
  }
  auto attrs = check::apply_specialization(s, sig);
  CHECK(attrs.dump() == R"({"in_ptr0":[["tt.divisibility",16]],"out_ptr0":[["tt.divisibility",16]],"xnumel":[["tt.divisibility",16]]})");
  // equal_to_1: a constexpr 1, as the Triton of that era compiled it; stated, not guessed.
  CHECK(sig.params[2].type == "constexpr");
  CHECK(sig.params[2].value == 1);
  CHECK_FALSE(sig.params[2].guessed);
}

TEST_CASE("a check retried on a ported module is stored as both outcomes, with the port beside the original",
          "[check][inductor_form][ports]") {
  testing::CheckCorpus corpus(std::string(MINE_FIXTURES_DIR) + "/inductor_2024");
  int64_t id = corpus.count("SELECT min(id) FROM kernels");
  nlohmann::json row = {{"id", id}, {"stage_requested", "run"}, {"stage_reached", "run"}, {"status", "ok"},
                        {"triton_version", "3.6.0"}, {"module_checked", "ported"},
                        {"unported", {{"stage_reached", "compile"}, {"status", "fail"}, {"error_class", "missing_name"},
                                      {"message", "AttributeError: module 'triton.language.math' has no attribute 'tanh'"},
                                      {"module_checked", "kernel_only"}}},
                        {"port", {{"of", "kernel_only"}, {"source", "PORTED SOURCE"},
                                  {"rewrites", {{{"move", "tl.math.libdevice"}, {"old", "tl.math.tanh"},
                                                 {"new", "libdevice.tanh"}, {"count", 1}}}}}}};
  std::istringstream in(row.dump() + "\n");
  auto rows = check::read_check_results(in, "results.jsonl");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].form == "kernel_only");
  CHECK(rows[0].status == "fail");
  CHECK(rows[0].error_class == "missing_name");
  CHECK(rows[1].form == "ported");
  CHECK(rows[1].rewrites.size() == 1);
  CHECK_FALSE(rows[1].extra["port"].contains("source"));  // stored once, in kernel_ports

  std::string original = corpus.rw().query("SELECT standalone FROM kernels WHERE id=" + std::to_string(id)).rows[0][0];
  store_check_results(corpus.rw(), rows, "results.jsonl");
  CHECK(corpus.count("SELECT count(*) FROM check_results WHERE kernel_id=" + std::to_string(id)) == 2);
  CHECK(corpus.count("SELECT count(*) FROM check_latest WHERE form='ported' AND status='ok'") == 1);
  CHECK(corpus.count("SELECT count(*) FROM kernel_ports WHERE of_form='kernel_only' AND triton_version='3.6.0'") == 1);
  CHECK(corpus.count("SELECT count(*) FROM kernel_forms WHERE kernel_id=" + std::to_string(id)) == 2);
  // The original is untouched; export chooses either form.
  CHECK(corpus.rw().query("SELECT standalone FROM kernels WHERE id=" + std::to_string(id)).rows[0][0] == original);
  auto ports = current_ports(corpus.rw());
  CHECK(kernel_in_form(KernelForm::Ported, "inductor", "k", id, original, ports).code == "PORTED SOURCE");
  CHECK(kernel_in_form(KernelForm::Original, "inductor", "k", id, original, ports).code == original);
  CHECK(kernel_in_form(KernelForm::Ported, "inductor", "k", id + 1000, original, ports).form == "original");
}

TEST_CASE("a row with a port that does not say it checked the ported module is refused", "[check][ports]") {
  nlohmann::json row = {{"id", 1}, {"stage_reached", "run"}, {"status", "ok"},
                        {"port", {{"of", "standalone"}, {"source", "x"}}}};
  std::istringstream in(row.dump() + "\n");
  CHECK_THROWS_WITH(check::read_check_results(in, "r.jsonl"), Catch::Contains("module_checked"));
}
