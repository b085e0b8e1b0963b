#include "core/check/inductor_form.h"

#include <algorithm>
#include <regex>

#include "core/check/kernel_only_module.h"
#include "core/error.h"

namespace mine::check {
namespace {

std::vector<int> integers(const std::string& text) {
  std::vector<int> out;
  static const std::regex kInt(R"(\d+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kInt); it != std::sregex_iterator(); ++it) {
    try {
      out.push_back(std::stoi(it->str()));
    } catch (const std::exception&) {
    }
  }
  return out;
}

// The first tuple after `key` in the configs text: `divisible_by_16=(0, 1)` or `'tt.divisibility': (0, 1)`.
std::vector<int> tuple_after(const std::string& configs, const std::regex& key) {
  std::smatch m;
  if (!std::regex_search(configs, m, key)) return {};
  return integers(m[1].str());
}

// The text of triton_meta's `'configs': [...]` (bracket-matched), or "" when absent.
std::string configs_text(const std::string& source) {
  size_t at = source.find("'configs':");
  if (at == std::string::npos) at = source.find("\"configs\":");
  if (at == std::string::npos) return "";
  size_t open = source.find('[', at);
  if (open == std::string::npos || open > at + 40) return "";
  int depth = 0;
  for (size_t i = open; i < source.size() && i < open + 20000; ++i) {
    if (source[i] == '[' || source[i] == '(' || source[i] == '{') ++depth;
    else if (source[i] == ']' || source[i] == ')' || source[i] == '}') {
      if (--depth == 0) return source.substr(open, i - open + 1);
    }
  }
  return "";
}

}  // namespace

// torch <= 2.3 imported its helpers from torch._inductor; 2.4 moved them under
// torch._inductor.runtime, where they still are. The kernel-only form uses today's place, so the
// form a model is trained on, and the one checked, does not depend on the torch that wrote the
// kernel (the same move is the "inductor.triton_helpers" entry of kernels/harness/triton_ports.py,
// which ports other modules on a missing_name).
std::string modern_helper_imports(std::string module) {
  static const std::regex kFromInductor(R"((^|\n)from torch\._inductor import triton_helpers\b)");
  static const std::regex kHelpersModule(R"(\btorch\._inductor\.triton_helpers\b)");
  module = std::regex_replace(module, kFromInductor, "$1from torch._inductor.runtime import triton_helpers");
  return std::regex_replace(module, kHelpersModule, "torch._inductor.runtime.triton_helpers");
}

std::optional<std::string> inductor_kernel_only(const PythonModule& standalone, const std::string& entry) {
  auto kernel = kernel_only_module(standalone, entry);
  if (kernel) *kernel = modern_helper_imports(*kernel);
  return kernel;
}

std::optional<std::string> inductor_kernel_only(const std::string& standalone, const std::string& entry) {
  auto kernel = kernel_only_module(standalone, entry);
  if (kernel) *kernel = modern_helper_imports(*kernel);
  return kernel;
}

InductorSpecialization inductor_specialization(const std::string& source, const std::vector<std::string>& params) {
  InductorSpecialization out;
  std::string configs = configs_text(source);
  if (configs.empty()) return out;
  static const std::regex kDivisibleOld(R"(divisible_by_16\s*=\s*\(([^)]*)\))");
  static const std::regex kEqualOld(R"(equal_to_1\s*=\s*\(([^)]*)\))");
  static const std::regex kDivisibleDict(R"(['"]tt\.divisibility['"]\s*:\s*\(([^)]*)\))");
  static const std::regex kEqualDict(R"(['"]tt\.equal_to['"]\s*:\s*\(([^)]*)\))");
  // 2025 on: {(0,): [['tt.divisibility', 16]], (1,): ...}, one key per argument.
  static const std::regex kPerArg(R"(\(\s*(\d+)\s*,\s*\)\s*:\s*\[\s*\[\s*['"]tt\.divisibility['"]\s*,\s*16\s*\])");
  std::vector<int> divisible = tuple_after(configs, kDivisibleOld);
  if (divisible.empty()) divisible = tuple_after(configs, kDivisibleDict);
  if (divisible.empty())
    for (auto it = std::sregex_iterator(configs.begin(), configs.end(), kPerArg); it != std::sregex_iterator(); ++it)
      divisible.push_back(std::stoi((*it)[1].str()));
  std::vector<int> equal = tuple_after(configs, kEqualOld);
  if (equal.empty()) equal = tuple_after(configs, kEqualDict);
  auto name_of = [&](int i) { return i >= 0 && static_cast<size_t>(i) < params.size() ? params[static_cast<size_t>(i)] : ""; };
  for (int i : divisible)
    if (!name_of(i).empty()) out.divisible_by_16.push_back(name_of(i));
  for (int i : equal)
    if (!name_of(i).empty()) out.equal_to_1.push_back(name_of(i));
  return out;
}

nlohmann::ordered_json apply_specialization(const InductorSpecialization& s, InferredSignature& signature) {
  nlohmann::ordered_json attrs = nlohmann::ordered_json::object();
  for (auto& p : signature.params) {
    bool equal = std::find(s.equal_to_1.begin(), s.equal_to_1.end(), p.name) != s.equal_to_1.end();
    bool divisible = std::find(s.divisible_by_16.begin(), s.divisible_by_16.end(), p.name) != s.divisible_by_16.end();
    if (p.type == "constexpr") continue;
    if (equal && p.type.rfind("*", 0) != 0) {
      p.type = "constexpr";
      p.value = 1;
      p.origin = Origin::Meta;
      p.guessed = false;
      p.why = "equal_to_1 in triton_meta configs";
    } else if (divisible) {
      attrs[p.name] = nlohmann::ordered_json::array({nlohmann::ordered_json::array({"tt.divisibility", 16})});
    }
  }
  return attrs;
}

}  // namespace mine::check
