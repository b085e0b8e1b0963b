#pragma once
#include <cstdint>
#include <map>
#include <string>

namespace mine {

// Which form of a kernel `mine export --form` writes.
//   original    the standalone as mined (the default);
//   kernel-only Inductor kernels as their @triton.jit function with the imports it uses, without
//               the header and heuristics of the torch that generated them (a model trained on
//               verbatim headers learns AttrsDescriptor); other kernels stay original;
//   ported      the source ported onto the Triton of the newest check (kernel_ports) where one
//               exists, else the original.
enum class KernelForm { Original, KernelOnly, Ported };
KernelForm parse_kernel_form(const std::string& text);  // throws mine::Error naming the choices
const char* kernel_form_name(KernelForm form);

struct FormedKernel {
  std::string code;
  std::string form;  // what `code` really is: "original", "kernel-only" or "ported"
};

// The code of one kernel in `form`, falling back to the original where the form does not exist.
FormedKernel kernel_in_form(KernelForm form, const std::string& plugin, const std::string& name, int64_t id,
                            const std::string& standalone, const std::map<int64_t, std::string>& ports);

}  // namespace mine
