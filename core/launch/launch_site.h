#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mine {

// One argument of a kernel launch, with what the launcher's code says it is. Values are
// nominal: the launcher is evaluated with every unknown tensor dimension set to one size (see
// launcher_values.h), so sizes, strides and shapes agree with each other as they would at run time.
struct LaunchArgument {
  std::string keyword;        // empty for a positional argument
  int position = -1;          // index among the positional arguments, -1 for keywords
                              // and for those after a spread of unknown length
  int from_end = 0;           // those after the last such spread: 1 for the last positional, 2 before
                              // it...; 0 otherwise (not stored: linking turns it into a position)
  std::string text;           // the expression as written
  std::string role;           // tensor | descriptor | int | float | bool | str | none | dtype | tuple | unknown
  std::string dtype;          // tensors and dtypes: Triton element type ("fp16"), empty when unknown
  nlohmann::json value;       // int/float/bool/str: the nominal value; dtype: "tl.float16"; tuple: [ints];
                              // descriptor: its block's dimensions as written, when written out; else null
  nlohmann::json shape;       // tensors: nominal shape, or null when the code does not fix its rank;
                              // descriptor: the block it loads
  std::string tensor;         // tensors: the launcher variable it views (aliases share one buffer)
  std::string param;          // the kernel parameter it binds (set when the launch is linked)
  bool nominal = false;       // the value follows from the nominal sizes, not from the code alone
  bool ratio = false;         // a ratio of sizes (`K // scale.shape[1]`): the stand-ins cannot tell it
  bool sizes = false;         // a ratio a tensor of the same launch is shaped with (`torch.empty(B, K)`)
  bool autocast = false;      // tensors: dtype is the one `@custom_fwd(cast_inputs=...)` casts floating
                              // tensors to, which an integer tensor does not take
};

// A place where code launches a Triton kernel: `k[grid](...)` or `k.run(..., grid=...)`.
struct LaunchSite {
  int64_t id = 0;           // kernel_launches.id once stored
  std::string path;         // repository-relative file of the launch
  int line = 0;             // 1-based line of the call
  std::string launcher;     // qualname of the enclosing function; empty at module level
  std::string kind;         // subscript | run
  std::string callee;       // the launched expression as written (`_fwd_kernel`, `self.kernel`)
  std::string target_path;  // file defining the kernel when the imports say; empty: match by name
  std::string target_name;  // the kernel's name
  // `kernel.InstanceNorm.backward[grid]`: the name before the kernel's (`InstanceNorm`), which
  // tells apart methods of the same name in different classes; empty for `self.k` or a bare name.
  std::string target_owner;
  std::string grid_text;    // the grid as written, a local `grid = ...` followed
  nlohmann::json grid = nullptr;                              // [g0, g1, g2] when evaluable now
  nlohmann::json grid_env = nlohmann::json::object();         // names the grid reads -> nominal values
  nlohmann::json options = nlohmann::json::object();          // num_warps, num_stages, ... as launched
  std::vector<LaunchArgument> args;
  bool complete = true;     // false when a *args / **kwargs could not be expanded
  bool expects_error = false;  // inside `with pytest.raises(...)`: launched to see it fail
  // The launcher as a runnable unit: its definition, and its standalone (the closure the core
  // computes for it, which holds the kernel it launches and everything both need).
  std::string launcher_source;
  std::string launcher_standalone;
  bool launcher_self_contained = false;
};

// kernel_launches.args as stored (schema/006_launches.sql), written and read in one place.
nlohmann::json arguments_json(const std::vector<LaunchArgument>& args);
std::vector<LaunchArgument> arguments_from_json(const nlohmann::json& args);

}  // namespace mine
