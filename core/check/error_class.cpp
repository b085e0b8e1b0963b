#include "core/check/error_class.h"

#include <regex>
#include <utility>
#include <vector>

namespace mine::check {

bool is_error_class(std::string_view name) {
  for (const char* c : kErrorClasses)
    if (name == c) return true;
  return false;
}

std::string classify_error(const std::string& message) {
  using Rule = std::pair<const char*, std::regex>;
  auto rx = [](const char* p) { return std::regex(p, std::regex::icase | std::regex::ECMAScript); };
  // Order matters: CUDA messages mention "type" and "memory"; the specific markers win.
  static const std::vector<Rule> kRules = {
      {"timeout", rx(R"(timed? ?out|timeout|deadline exceeded)")},
      {"crash", rx(R"(segmentation fault|sigsegv|sigabrt|sigbus|sigkill|core dumped|worker died|killed by signal|)"
                   R"(exited with code|fatal python error)")},
      {"resource_limit", rx(R"(out of resources|outofresources|shared memory|too many resources|out of memory|)"
                            R"(cuda_error_out_of_memory|memoryerror|cannot allocate memory|host memory limit|)"
                            R"(too many registers|exceeds the maximum|launch_out_of_resources)")},
      {"illegal_address", rx(R"(illegal memory access|illegal address|misaligned address|illegal instruction|)"
                             R"(cuda_error_illegal|unspecified launch failure|device-side assert|invalid program counter)")},
      {"syntax", rx(R"(\b(syntaxerror|indentationerror|taberror)\b|invalid syntax|unexpected indent|)"
                    R"(unterminated string|was never closed|unmatched)")},
      {"missing_name", rx(R"(\b(nameerror|importerror|modulenotfounderror|attributeerror|unboundlocalerror)\b|)"
                          R"(is not defined|no module named|cannot import name|has no attribute|entry .* not found|)"
                          R"(unresolved name|undefined name)")},
      {"unsupported_op", rx(R"(\bnotimplementederror\b|unsupportedlanguageconstruct|not supported|unsupported|)"
                            R"(not implemented|is not a triton|cannot be called from a jit|did you forget to add|)"
                            R"(not a valid triton|unsupported ast)")},
      {"type_error", rx(R"(\b(typeerror|valueerror|assertionerror|indexerror|keyerror)\b|incompatible|type mismatch|)"
                        R"(expected .* got|must be|unexpected type|cannot cast|invalid type|dtype|shape|)"
                        R"(positional argument|keyword argument|constexpr)")},
  };
  for (const auto& [name, pattern] : kRules)
    if (std::regex_search(message, pattern)) return name;
  return "other";
}

}  // namespace mine::check
