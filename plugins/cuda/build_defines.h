#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/plugin.h"
#include "plugins/cuda/static_python_value.h"
#include "plugins/sdk/python_file.h"

namespace mine {

// A macro the repository's build defines for a CUDA source: `-DTmax=1024` in a
// `torch.utils.cpp_extension.load(..., extra_cuda_cflags=[f"-DTmax={T_MAX}"])`, an
// `extra_compile_args={"nvcc": [...]}` or `define_macros=[("N", "1")]` of a setup.py extension.
struct BuildDefine {
  std::string name;
  std::string value;       // the text after `=`; empty for a bare `-DNAME` (which defines it as 1)
  bool has_value = false;
  StaticValue::Known known = StaticValue::Known::fixed;  // how far the Python code fixes the value
  std::string why;   // for stand-ins and unknowns: what the value was read from
  std::string from;  // `setup.py:12`: the build call
};

// The macros the first build call in the repository's Python files that names `cuda_file` among
// its `sources` defines (`-U` undefines what came before it). A source names the file by its path
// relative to the calling file's folder or a folder above it (where a build run from there
// finds it), by a path from `__file__`, by a glob pattern, else by its trailing folders and file
// name alone (`os.path.join(code_dir, "cuda/k.cu")`) when the rest is not fixed. Empty when no
// build call names it.
std::vector<BuildDefine> build_defines_of(const sdk::PythonFile& cuda_file);

// The macros a runtime-compiler call itself defines for the source it is handed
// (`load_inline(..., extra_cuda_cflags=[...])`, cupy's `RawKernel(..., options=(...))`). With
// `arguments`, a parameter without a default takes what the function's callers pass.
std::vector<BuildDefine> build_defines_of_call(const sdk::PythonFile& file, TSNode call,
                                               const ArgumentSource* arguments = nullptr);

// What stands in for a define whose value nothing in the repository fixes (`-D_N_={head_size}`
// with a head size the caller decides): the unit cannot compile without one, such values are
// sizes, and this is the check's integer for a size it is not told (the harness's INT_DEFAULT).
constexpr const char* kUnknownDefineStandIn = "64";

// Puts the defines at the top of the kernel's standalone, as the build's `-D` flags would have
// them: fixed values always; a stand-in value only when the standalone names the macro (for a
// value nothing fixes, kUnknownDefineStandIn, unless the standalone defines the macro itself:
// then it is named in `meta.build_defines_left_out`). `meta.build_defines` lists what went in
// and where each came from.
void add_build_defines(ExtractedKernel& kernel, const std::vector<BuildDefine>& defines);

// The value each define has in the standalone add_build_defines writes (name to text; 1 for a
// bare `-DNAME`), for evaluating the unit's own expressions.
std::map<std::string, std::string> define_values(const std::vector<BuildDefine>& defines);

// Defines as 1 each macro of meta.guarded_by (an `#if`/`#ifdef` around the kernel that nothing
// in its unit defines) that `defines`, the build's own, leave out: the build turns the kernel on
// with it, through flags the static reading could not follow.
void add_guard_defines(ExtractedKernel& k, const std::vector<BuildDefine>& defines);

}  // namespace mine
