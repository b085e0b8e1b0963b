#include "core/export/kernel_form.h"

#include "core/check/inductor_form.h"
#include "core/error.h"

namespace mine {

KernelForm parse_kernel_form(const std::string& text) {
  if (text == "original") return KernelForm::Original;
  if (text == "kernel-only") return KernelForm::KernelOnly;
  if (text == "ported") return KernelForm::Ported;
  throw Error("unknown form '" + text + "' (use original, kernel-only or ported)");
}

const char* kernel_form_name(KernelForm form) {
  switch (form) {
    case KernelForm::KernelOnly: return "kernel-only";
    case KernelForm::Ported: return "ported";
    default: return "original";
  }
}

FormedKernel kernel_in_form(KernelForm form, const std::string& plugin, const std::string& name, int64_t id,
                            const std::string& standalone, const std::map<int64_t, std::string>& ports) {
  if (form == KernelForm::Ported) {
    auto it = ports.find(id);
    if (it != ports.end()) return {it->second, "ported"};
  } else if (form == KernelForm::KernelOnly && plugin == "inductor") {
    if (auto kernel = check::inductor_kernel_only(standalone, name)) return {*kernel, "kernel-only"};
  }
  return {standalone, "original"};
}

}  // namespace mine
