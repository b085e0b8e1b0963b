#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/check/signature_inference.h"
#include "corpus/check_store.h"

namespace mine::check {

struct BundleKernel {
  int64_t id = 0;
  std::string plugin;      // kept in bundle.json for people reading it; the harness ignores it
  std::string entry;       // attribute of the module the harness compiles
  std::string standalone;  // written verbatim as k<id>.py (k<id>.cu for CUDA C)
  InferredSignature signature;  // Triton kernels only
  // The kernel without its launch decorators (kernel_only_module.h), written as
  // k<id>_kernel.py; the harness compiles it when the standalone itself cannot be imported.
  std::optional<std::string> kernel_only;
  std::string language = "triton";  // or "cuda", or "torch_module" (a PyTorch module for the inductor stage)
  nlohmann::json parameters = nlohmann::json::array();  // CUDA: the C parameter declarations, as written
  std::string launch_bounds;  // CUDA: `__launch_bounds__(...)` when the kernel has one
  nlohmann::json launch_config;  // CUDA: the block (and constant grid) of the unit's own launch, or null
  // Triton specialization attributes by parameter ({"x_ptr": [["tt.divisibility", 16]]}): what
  // an Inductor kernel's triton_meta configs promised (inductor_form.h). Written when not empty.
  nlohmann::ordered_json attrs = nlohmann::ordered_json::object();
  // torch_module: the inputs the plugin inferred ({init, forward}, input_inference.h).
  nlohmann::json inputs = nlohmann::json::object();
  // {backend, evidence} for kernels written for another accelerator (kernel_target.h), else null.
  nlohmann::json target = nullptr;
};

// Writes BUNDLE_DIR/k<id>.py (or .cu) for each kernel and then BUNDLE_DIR/bundle.json (format in
// kernels/harness/BUNDLE.md), so a bundle.json on disk always describes complete modules.
// The folder is created if needed; an existing one must be empty or hold an earlier bundle,
// whose k<id>.py modules are removed first. Throws mine::Error naming the path on failure.
// `libraries`: packages of other corpus repositories the kernels import, copied into BUNDLE_DIR/lib
// (bundle_libraries.h); returns bundle.json's "libraries" object (null when none was copied), and
// adds files it could not copy to `problems`.
nlohmann::json write_bundle(const std::string& dir, const std::vector<BundleKernel>& kernels,
                            const std::vector<LibraryPackage>& libraries = {},
                            std::vector<std::string>* problems = nullptr);

}  // namespace mine::check
