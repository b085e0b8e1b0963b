#include "core/check/kernel_target.h"

#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include "core/check/name_text.h"

namespace mine::check {
namespace {

// Accelerator names as vendor forks of Triton and PyTorch spell them, to one backend each. AMD
// and Intel are absent on purpose: their Triton backends compile the same kernels for CUDA (AMD's
// Gluon layouts and kernels importing ROCm's aiter library excepted, below).
const std::map<std::string, std::string>& vendor_names() {
  static const std::map<std::string, std::string> kNames = {
      {"ascend", "ascend"},       {"npu", "ascend"},         {"cann", "ascend"},
      {"cambricon", "cambricon"}, {"camb", "cambricon"},     {"mlu", "cambricon"},      {"kunlunxin", "kunlunxin"},
      {"xpu_kunlun", "kunlunxin"}, {"mthreads", "mthreads"}, {"musa", "mthreads"},
      {"metax", "metax"},         {"maca", "metax"},         {"iluvatar", "iluvatar"},
      {"corex", "iluvatar"},      {"aipu", "aipu"},          {"enflame", "enflame"},
      {"gcu", "enflame"},         {"tsingmicro", "tsingmicro"}, {"sunrise", "sunrise"},
      {"hygon", "hygon"}};
  return kNames;
}

// `_ascend`, `ascend`, `triton_ascend`, `ascend_backend`, `sgl_kernel_npu` name the vendor;
// `npu_utils.py` is a file.
std::optional<std::string> folder_vendor(const std::string& folder) {
  std::string f = lower(folder);
  while (!f.empty() && f.front() == '_') f.erase(f.begin());
  for (const std::string& affix : {std::string("triton_"), std::string("backend_")})
    if (starts_with(f, affix)) f = f.substr(affix.size());
  for (const std::string& suffix : {std::string("_backend"), std::string("_ops")})
    if (f.size() > suffix.size() && ends_with(f, suffix)) f = f.substr(0, f.size() - suffix.size());
  auto it = vendor_names().find(f);
  if (it != vendor_names().end()) return it->second;
  // A package named for its vendor at either end: `sgl_kernel_npu`, `vllm-ascend`, `ascend_ops_v2`.
  std::vector<std::string> words;
  std::string word;
  for (char c : f + "_") {
    if (c == '_' || c == '-') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (words.size() < 2) return std::nullopt;
  for (const std::string& w : {words.front(), words.back()})
    if (auto v = vendor_names().find(w); v != vendor_names().end()) return v->second;
  return std::nullopt;
}

}  // namespace

std::optional<KernelTarget> other_backend(const std::string& path, const std::string& standalone) {
  // Unconditional module-level imports first: they hold wherever the file lives (a guarded one
  // inside a function is device detection, not a target).
  static const std::regex kImport(
      R"((?:^|\n)(?:import|from)[ \t]+((?:torch_(?:npu|mlu|musa|gcu|maca))|triton\.language\.extra\.(?:mlu|cann|ascend|musa|deeplink|kunlunxin|xpu)|triton_ascend|aiter)\b)");
  std::smatch m;
  if (std::regex_search(standalone, m, kImport)) {
    std::string module = m[1];
    std::string key = module.substr(module.rfind('.') + 1);
    if (starts_with(key, "torch_")) key = key.substr(6);
    if (key == "triton_ascend") key = "ascend";
    // AMD's ROCm kernel library: a kernel that needs it at run time runs only where ROCm does,
    // though its own Triton would compile for CUDA.
    if (key == "aiter") return KernelTarget{"amd", "imports aiter (ROCm's kernel library)"};
    auto it = vendor_names().find(key);
    std::string backend = it != vendor_names().end() ? it->second : key;
    return KernelTarget{backend, "imports " + module};
  }
  // A vendor's own Triton modules (`triton.backends.ascend.runtime`, `triton.language.extra.cann
  // .extension as al`), imported anywhere, even under a `try:` that falls back to plain
  // `triton.language`: the kernel calls what only that backend has (`al.sub_vec_id()`).
  static const std::regex kVendorTriton(
      R"((?:^|\n)[ \t]*(?:import|from)[ \t]+(triton\.(?:language\.extra|backends)\.(ascend|cann|mlu|musa|kunlunxin|deeplink|cambricon|mthreads|metax|iluvatar|enflame|gcu|aipu))\b)");
  if (std::regex_search(standalone, m, kVendorTriton)) {
    auto it = vendor_names().find(m[2].str());
    return KernelTarget{it != vendor_names().end() ? it->second : m[2].str(), "imports " + m[1].str()};
  }
  // Gluon kernels lay out their tensors for one vendor's instructions: AMD's layouts
  // (`gl.amd.AMDMFMALayout`, `gl.amd.gfx1250.async_copy`) are no program NVIDIA's compiler can
  // lower, whichever folder holds them.
  static const std::regex kAmdGluon(R"(\b(?:amd\.(?:gfx\d+|cdna\d|rdna\d)|AMDMFMALayout|AMDWMMALayout)\b)");
  if (std::regex_search(standalone, m, kAmdGluon)) return KernelTarget{"amd", "uses AMD Gluon layouts (" + m.str(0) + ")"};
  std::vector<std::string> folders;
  std::stringstream s(path);
  for (std::string part; std::getline(s, part, '/');) folders.push_back(part);
  if (!folders.empty()) folders.pop_back();  // the file name is no backend folder
  for (const auto& f : folders)
    if (auto vendor = folder_vendor(f)) return KernelTarget{*vendor, "in the folder " + f + "/"};
  // A Gluon kernel in a folder named for an AMD GPU (`_gluon_kernels/gfx1250/`) is laid out for
  // that GPU even where its layouts come from elsewhere (a constexpr argument, an aggregate).
  // Plain Triton kernels there are left alone: AMD's backend compiles the same language.
  static const std::regex kAmdArch(R"((?:gfx\d+[a-z]?|cdna\d|rdna\d))");
  static const std::regex kGluon(R"(\bgluon\b)");
  if (std::regex_search(standalone, kGluon))
    for (const auto& f : folders)
      if (std::regex_match(lower(f), kAmdArch)) return KernelTarget{"amd", "a Gluon kernel in the folder " + f + "/"};
  return std::nullopt;
}

}  // namespace mine::check
