#pragma once
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/python/module_model.h"

namespace mine::check {

// What a kernel's body says about its parameters as pointers.
struct PointerFacts {
  std::set<std::string> pointers;              // used as a pointer base (load/store/atomics/block pointers/.dtype)
  std::set<std::string> addressed;             // of those, the ones a load, store or atomic addresses (here or in a helper)
  std::map<std::string, std::string> dtypes;   // pointer -> Triton element type the code implies ("fp16", "i32")
  std::map<std::string, std::string> evidence; // pointer -> what in the code said so, for the corpus
  // Flag parameters choosing between a pointer and a value use of the same parameter
  // (`if FILL_IS_PTR: v = tl.load(fill) else: v = fill`) -> the value that takes the pointer branch.
  std::map<std::string, bool> pointer_branch_flags;
  // Parameters the function can only use as integers (offsets, loop bounds, `//`), so that a
  // caller handing it a loaded value knows that value is an integer.
  std::set<std::string> integer_params;
  // Dtype parameters whose converted values the function uses as integers
  // (`v = x.to(OUT_DTYPE)` then `v << shifts`): an integer type.
  std::set<std::string> integer_dtype_params;
  // Parameters used as numbers: operands of arithmetic or of an ordering comparison, here or in a
  // helper they are handed to. A launch's None for one of them cannot be what the kernel runs with.
  std::set<std::string> numeric_params;
  // Scalar parameters that seed a value a loop carries and rebinds from loaded or float values
  // (`acc = bg` then `acc = tl.where(v, blend(c, acc), acc)` in the loop): floats, as the loop's
  // value must keep its type.
  std::set<std::string> float_seeds;
  // Parameters the kernel compares with None (`if bias is None:`): it has a path for a launch that
  // leaves them out, so a None the launch hands one is what the kernel runs with.
  std::set<std::string> none_guarded;
  // Pointers whose fp32 comes only from a float `other=` fill or from float-only math on their
  // values: floating, of no stated width.
  std::set<std::string> width_unstated;
  // Whether the body states the element type of `p`, width included (see width_unstated).
  bool width_stated(const std::string& p) const { return dtypes.count(p) && !width_unstated.count(p); }
  // Tables of addresses: parameters whose loaded values the kernel casts to pointers
  // (`tl.load(peer_ptrs + r).to(tl.pointer_type(tl.float32))`, symmetric-memory and peer-pointer
  // kernels). Their stand-ins must hold addresses a kernel may dereference.
  std::set<std::string> pointer_tables;
  // Parameters the kernel casts to a pointer itself (`a_ptr.to(tl.pointer_type(tl.float32))`) ->
  // the element type cast to. Where the launcher hands an integer (LeetGPU's `a_ptr: int`, a
  // `x.data_ptr()`), the parameter is a 64-bit address of a buffer of those elements.
  std::map<std::string, std::string> cast_addresses;
  // Scalar parameters whose type the kernel asserts (`tl.static_assert(addr.dtype == tl.int64)`).
  std::map<std::string, std::string> asserted_scalars;
  // (destination, source) of values stored as they were loaded: a copy, whose two element types
  // are one (a block pointer's store accepts no other).
  std::vector<std::pair<std::string, std::string>> copies;
  // Pointers whose loads are the two operands of one tl.dot, as loaded: Triton dots operands of
  // one type (fp8 with fp8, fp16 with fp16), so their element types are one too.
  std::vector<std::pair<std::string, std::string>> dot_operands;
  // Pointers whose loaded elements a tl.dot multiplies, here or in a helper (through what a
  // helper returns, or the operands it is handed): floating or int8, never the int32 an
  // index-like name suggests (an attention indexer's `query_index`). `dot_values`: parameters
  // whose values are such operands, as handed in.
  std::set<std::string> dotted, dot_values;
  // Pointers whose loads one name takes in two branches of an `if`: Triton wants the name of one
  // type after it, so their element types are one too.
  std::vector<std::pair<std::string, std::string>> branch_operands;
  // Parameters the function returns offsets of (`return T + offs`, or one element of a returned
  // tuple): a caller that addresses memory through the result addresses it through its argument.
  std::set<std::string> returned_bases;
  // Per returned position (one for a single value, one per element of a returned tuple): the
  // parameters whose loaded elements the value is computed from (`return tl.load(starts + i) +
  // pid * B`). A caller that uses that result as an integer makes those elements integers.
  std::vector<std::set<std::string>> returned_loads;
  // Value parameters whose element type the function fixes (an operand of `tl.dot_scaled` in
  // format "e2m1" is packed uint8): a caller's loaded argument has that type.
  std::map<std::string, std::string> value_dtypes;
  // Parameters handed as a load's fill (`other=MAX_PTR`) or a store's value: values whatever
  // their names say.
  std::set<std::string> values;
  // Parameters that size a tl.arange here or in a helper they are handed to.
  std::set<std::string> arange_bounds;
};

// Reads pointer use out of @triton.jit functions of one module. Helper calls are followed into
// the module's own functions, so a pointer a kernel only hands to a helper is still found.
class PointerUsage {
 public:
  explicit PointerUsage(const PythonModule& module) : m_(module) {}
  const PointerFacts& facts(const FunctionSite& function);

 private:
  PointerFacts analyze(const FunctionSite& function);
  const PythonModule& m_;
  std::map<std::string, std::unique_ptr<PointerFacts>> memo_;  // by qualname
  std::set<std::string> in_progress_;                          // recursion guard for mutually recursive helpers
};

// Names of a function's parameters in order (splats excluded).
std::vector<std::string> parameter_names(const PythonModule& m, TSNode definition);

// The positional argument of `call` at `position`, or a null node.
TSNode argument(TSNode call, size_t position);

// A condition without its `not`s and parentheses: what it tests (`not (USE_FP8)` -> `USE_FP8`).
TSNode tested_expression(TSNode condition);

// Calls `visit(parameter, argument value)` for each argument of `call`, a call of the function
// defined at `callee`: keywords by name, positional arguments in order.
void for_each_call_argument(const PythonModule& m, TSNode call, TSNode callee,
                            const std::function<void(const std::string&, TSNode)>& visit);

// "triton.language.float16" / "tl.float16" -> "fp16"; empty when not a Triton dtype.
std::string triton_dtype(const std::string& qualified_or_text);

// An integer element type ("i32", "u8", "i64"), not the bool "i1" nor a floating one.
bool integer_element_type(const std::string& dtype);

}  // namespace mine::check
