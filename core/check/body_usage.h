#pragma once
// Fact source 4 of the signature resolver (signature_inference.h), the last: what a kernel's
// body says about its parameters when nothing states them (pointer use is pointer_usage.h),
// and the fallbacks by use and name for constexprs nothing decided.
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/python/module_model.h"

namespace mine::check {

// Calls `visit` on every named node below and including `body` (in no particular order).
template <typename Visit>
void for_each_node(TSNode body, Visit visit) {
  std::vector<TSNode> stack{body};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    visit(n);
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
}

// Calls `visit` on every call expression below `body`.
template <typename Visit>
void for_each_call(TSNode body, Visit visit) {
  for_each_node(body, [&](TSNode n) {
    if (is_type(n, "call")) visit(n);
  });
}

// The conditions of the body's `tl.static_assert(...)` calls.
std::vector<TSNode> static_assert_conditions(const PythonModule& m, TSNode body);

// How a constexpr is used in the kernel's body, for the fallbacks below.
struct ConstexprUse {
  bool arange_bound = false;  // in a tl.arange end
  bool dtype = false;         // where Triton wants a dtype
  bool integer_dtype = false; // a dtype whose values the kernel shifts or masks
  bool unrolled = false;      // in a tl.static_range: the loop is unrolled at compile time
  bool shift_width = false;   // shifts by it (`(1 << BITS) - 1`, `w >> (BITS * j)`): a bit count
  bool condition = false;     // tested as a condition (`if INVERT:`, `1 if flag else 0`)
  bool float_math = false;    // read by float-only math (`tl.ceil(RADIUS)`): a float
  std::optional<bool> pointer_branch;  // the value that takes the branch using a parameter as a pointer
  bool defining_branch = false;        // the first flag of a chain that alone binds a name read later
  std::optional<std::string> string_option;  // handed to a Triton option that takes a string
  std::optional<nlohmann::json> selector;     // only ever compared with literals: the first of them
  std::optional<int> called;                  // called as a function, with this many arguments
  int called_results = 1;                     // ... whose result the body unpacks into this many
  int bitcast_bits = 0;  // the target of `x.to(tl.uint16).to(T, bitcast=True)`: a type that wide
};

// Dtype constexprs the body bitcasts values of a stated integer width to
// (`bits.to(tl.uint16).to(compute_type, bitcast=True)`): name -> that width in bits. Triton
// bitcasts only between types of one width.
std::map<std::string, int> bitcast_widths(const PythonModule& m, TSNode body);

// Parameters the body passes as the last stride of `tl.make_tensor_descriptor` (also the
// experimental spelling), which Triton requires to be the constant 1.
std::set<std::string> unit_strides(const PythonModule& m, TSNode body);

// The reason constexpr_fallback gives when nothing about the name or its use suggested a value.
inline constexpr const char* kNoValueFound = "no value found";
// A value for a constexpr nothing decided, from its use and name, with the reason.
std::pair<nlohmann::json, std::string> constexpr_fallback(const std::string& name, const ConstexprUse& use = {});

// Names in a tl.arange end (they must be powers of two).
std::set<std::string> arange_bounds(const PythonModule& m, TSNode body);
// The new shape of a reshape call, one expression per dim: `x.reshape(A, B)`, `x.reshape((A, B))`,
// `tl.reshape(x, (A, B))`; empty for any other call.
std::vector<TSNode> reshape_dims(const PythonModule& m, TSNode call);
// Identifiers used where Triton wants a dtype: `x.to(OUT_DTYPE)`, `tl.zeros(..., dtype=ACC)`.
std::set<std::string> dtype_operands(const PythonModule& m, TSNode body);
// Identifiers handed to Triton keyword options that take strings (`input_precision=PREC`,
// `eviction_policy=POLICY`), with a value each option accepts.
std::map<std::string, std::string> string_option_operands(const PythonModule& m, TSNode body);
// Parameters the body calls (`acc = ACTIVATION(acc)`): a jitted function the launch hands in.
// Parameter -> the most positional arguments of its calls.
std::map<std::string, int> called_operands(const PythonModule& m, TSNode body, const std::set<std::string>& params);
// How many names the body unpacks the result of calling each parameter into, where more than
// one: `dg, du = COMPUTE_FN(g, u, dy)`, or `y = COMPUTE_FN(...)` then `y0, y1 = y`.
std::map<std::string, int> called_results(const PythonModule& m, TSNode body, const std::set<std::string>& params);
// Identifiers used as loop bounds (`range`, `tl.range`, `tl.static_range`): integers.
std::set<std::string> loop_bound_operands(const PythonModule& m, TSNode body);
// Identifiers in the bounds of tl.static_range, whose loops Triton unrolls, here or in a helper
// they are handed to.
std::set<std::string> static_range_operands(const PythonModule& m, TSNode body);
// Names multiplied into one loop's trip count (`range(KD * KH * KW * blocks)`): a conv's
// kernel sizes, where stand-in sizes of 32 each make 32^3 iterations.
std::set<std::string> multiplied_trip_counts(const PythonModule& m, TSNode body);
// Names a shift's width reads (`(1 << BITS) - 1`, `w >> (BITS * j)`, `2 ** LOG_N`): bit counts.
std::set<std::string> shift_widths(const PythonModule& m, TSNode body);
// Names tested for truth on their own (`if INVERT:`), also inside helpers they are handed to.
std::set<std::string> condition_operands(const PythonModule& m, TSNode body, int depth = 0);
// Flags of `if USE_INT4: b_ptrs = ... elif USE_INT8: b_ptrs = ...` chains without an else whose
// first branch binds a local the body reads after the chain (outside blocks the flag guards) and
// binds nowhere else: with every flag off, the kernel reads a name never bound. Those first
// flags must be on.
std::set<std::string> defining_branch_flags(const PythonModule& m, TSNode body, const std::set<std::string>& params);
// Names whose every use in the body is `NAME == literal` or `NAME != literal` (`if dim == 0:
// ... elif dim == 1:`, `if ACT == "gelu":`), an `axis=`, or an argument of a helper of the module
// that uses its parameter so: mode selectors, with the first literal compared.
std::map<std::string, nlohmann::json> selector_values(const PythonModule& m, TSNode body, int depth = 0);

// Each name compared with `==`/`!=` to integer or string literals, with those literals (distinct,
// in source order), whatever its other uses; also where a jitted helper of the module it is handed
// to compares its parameter so (`get_order(pid, SWIZZLE)` testing `SWIZZLE == "row"`).
std::map<std::string, std::vector<nlohmann::json>> compared_literals(const PythonModule& m, TSNode body, int depth = 0);
// Parameters the body indexes with integer literals (`stride_q[0]`, `res[1] + offs`) or unpacks
// into names (`rows, cols = shape`): Triton takes them as tuples. Parameter -> element count (the
// largest index + 1, or the names bound).
std::map<std::string, int> tuple_parameters(const PythonModule& m, TSNode body, const std::set<std::string>& params);
// Parameters indexed with the variable of a `for i in tl.static_range(N)` loop (`buf_tuple[i]`,
// a tuple of one buffer per peer), each with the name N of its loop bound: a tuple that long.
std::map<std::string, std::string> tuple_loop_bounds(const PythonModule& m, TSNode body, const std::set<std::string>& params);
// Triton math that refuses integer operands (tl.exp, tl.sqrt, tl.floor, tl.div_rn ...), by op name.
bool float_only_math(const std::string& op);
// Identifiers inside the arguments of float-only math (tl.exp, tl.sqrt, ...).
std::set<std::string> float_math_operands(const PythonModule& m, TSNode body);

bool float_name(const std::string& name);    // eps, scale, alpha, ... (never strides or sizes)
bool index_name(const std::string& name);    // idx, offsets, seqlens, ... -> *i32
bool pointer_name(const std::string& name);  // *_ptr, *_ptrs, ptr_*, numbered pointers

}  // namespace mine::check
