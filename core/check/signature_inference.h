#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/launch/launch_site.h"
#include "core/python/module_model.h"

namespace mine::check {

// Where a parameter's type or value came from, in the resolver's order of precedence: a launch
// site of the repository, then the kernel's own annotations and defaults, its decorators, and last
// mine's reading of its body. Launch, Meta, Annotation, Default, Autotune and Heuristics are read
// from code; Code, Name and Fallback are mine's guesses and make the parameter "guessed".
enum class Origin { Launch, Meta, Annotation, Default, Autotune, Heuristics, Code, Name, Fallback };
const char* origin_name(Origin o);
bool is_guess(Origin o);

struct InferredParam {
  std::string name;
  std::string type;                  // Triton signature type: "*fp32", "i32", "fp32", "i1", "constexpr"
  nlohmann::json value = nullptr;    // constexpr value (number, bool, string such as "tl.float16", null)
  Origin origin = Origin::Fallback;
  bool guessed = false;              // type or value not stated by the kernel or its generator
  std::string why;                   // the evidence, in a few words
};

// A kernel's launch description for `mine check`.
struct InferredSignature {
  std::vector<InferredParam> params;     // in the kernel's parameter order
  nlohmann::json grid = nullptr;         // [g0, g1, g2] when it follows from the kernel, else null
  nlohmann::ordered_json numels = nlohmann::ordered_json::object();  // Inductor: xnumel, ynumel, r0_numel ... when known
  nlohmann::ordered_json options = nlohmann::ordered_json::object(); // num_warps / num_stages of the chosen config
  // The kernel's own autotune configs as run_bundle.py --autotune takes them:
  // [{num_warps, num_stages, constexprs: {...}}], at most 64.
  nlohmann::ordered_json autotune = nlohmann::ordered_json::array();
  std::vector<std::string> notes;        // why parts could not be inferred
  // Pointers typed *fp32 only because nothing stated their element type (a launch tensor the
  // launcher takes from its caller included): the harness may retype them when a tl.dot says so.
  // Also the dtype constexprs at `tl.float32` for the same want (guessed, or a default the launch
  // overrides with what the scan could not evaluate): they move with the pointers.
  std::vector<std::string> assumed_fp32;
  // Parameters that hold addresses the kernel dereferences (PointerFacts::pointer_tables).
  std::vector<std::string> pointer_tables;
  // Integer parameters the kernel casts to pointers ({param: element type}): the check hands each
  // the address of a buffer of those elements.
  nlohmann::ordered_json addresses = nlohmann::ordered_json::object();
  // Constexprs whose launch value follows from the stand-in sizes (`HEAD_DIM = q.shape[-1]`): the
  // harness may move one to the block size it must match (a shape mismatch names both).
  std::vector<std::string> nominal;
  // A Triton 1.x kernel's keyword splat (`**meta`): its name; its keys are constexpr params above,
  // which the harness makes real parameters before it compiles.
  std::string keyword_splat;
  // From the launch site the signature followed (launch_facts.h): scalar argument values and the
  // shapes of tensor arguments as the launcher builds them ({param: {shape, dtype}}).
  nlohmann::ordered_json args = nlohmann::ordered_json::object();
  nlohmann::ordered_json tensors = nlohmann::ordered_json::object();
  int64_t launch_id = 0;                 // kernel_launches.id followed, 0 for none
  size_t launch_count = 0;               // launch sites the kernel has (variants)
  nlohmann::json launch = nullptr;       // {id, path, line, launcher} of the followed launch

  nlohmann::ordered_json signature() const;   // {param: type}, parameter order
  nlohmann::ordered_json constexprs() const;  // {param: value} for constexpr params
  nlohmann::json guessed() const;             // [param, ...]
  nlohmann::ordered_json origins() const;     // {param: "autotune" | "code" | ...}
};

// What inference needs of a stored kernel.
struct KernelSource {
  std::string plugin;      // 'triton' | 'inductor'
  std::string name;        // the entry: the @triton.jit function or the `k = triton.jit(fn)` name
  std::string standalone;  // the module the check imports
  nlohmann::json meta;     // kernels.meta
  // `standalone` already parsed by the caller, or nullptr (inference parses it).
  const PythonModule* module = nullptr;
  // The kernel's launch sites in its repository (kernel_launches), arguments bound to parameters.
  std::vector<LaunchSite> launches;
};

// Infers the launch signature. Inductor kernels take signature and constants from their
// triton_meta exactly; other kernels are read from their code (see the .cpp for the rules).
// Never throws for odd kernels: what cannot be read is guessed and noted.
InferredSignature infer_signature(const KernelSource& kernel);

}  // namespace mine::check
