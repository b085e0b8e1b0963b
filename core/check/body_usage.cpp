#include "core/check/body_usage.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "core/check/constant_eval.h"
#include "core/check/decorator_facts.h"
#include "core/check/name_text.h"
#include "core/check/pointer_usage.h"

namespace mine::check {
namespace {

bool bool_flag_name(const std::string& up) {
  for (const char* p : {"HAS_", "IS_", "USE_", "EVEN_", "ENABLE_", "DO_", "APPLY_", "RETURN_", "SAVE_", "WITH_",
                        "NEED_", "SHOULD_", "ALLOW_", "CAUSAL", "TRAINING"})
    if (starts_with(up, p) || (std::string(p).back() != '_' && contains(up, p))) return true;
  return false;
}


// Identifiers of expression `e` into `out`, not looking inside nodes of the `opaque` types
// (other calls type their own operands; an attribute's name is no variable).
void identifiers_in(const PythonModule& m, TSNode e, std::initializer_list<const char*> opaque, std::set<std::string>& out) {
  std::vector<TSNode> stack{e};
  while (!stack.empty()) {
    TSNode x = stack.back();
    stack.pop_back();
    if (is_type(x, "identifier")) out.insert(m.text_of(x));
    bool stop = false;
    for (const char* t : opaque) stop = stop || is_type(x, t);
    if (!stop) for_each_named_child(x, [&](TSNode c) { stack.push_back(c); });
  }
}

// `range(...)`, `tl.range(...)`, `tl.static_range(...)`: a loop's bounds.
bool loop_call(const PythonModule& m, TSNode call) {
  TSNode fn = field(call, "function");
  auto q = m.qualified_name(fn);
  return (is_type(fn, "identifier") && m.text_of(fn) == "range") ||
         (q && (ends_with(*q, "language.range") || ends_with(*q, "language.static_range")));
}

}  // namespace

std::pair<nlohmann::json, std::string> constexpr_fallback(const std::string& name, const ConstexprUse& use) {
  std::string up = upper(name);
  bool arange_bound = use.arange_bound;
  // `accumulator = ACTIVATION(accumulator)`: the repository passes a jitted function; the stand-in
  // returns its first argument (the harness builds it: BUNDLE.md, "$jit:first/N").
  if (use.called && use.called_results > 1)
    return {"$jit:first/" + std::to_string(*use.called) + "/" + std::to_string(use.called_results),
            "called as a function whose result is unpacked"};
  if (use.called) return {"$jit:first/" + std::to_string(*use.called), "called as a function"};
  if (use.dtype && use.integer_dtype) return {"tl.int32", "used as a dtype of values used as integers"};
  // Bitcast targets of a width: the floating type of that width kernels bitcast packed bits to.
  if (use.dtype && use.bitcast_bits == 16) return {"tl.bfloat16", "bitcast to from 16-bit values"};
  if (use.dtype && use.bitcast_bits == 8) return {"tl.float8e4nv", "bitcast to from 8-bit values"};
  if (use.dtype && use.bitcast_bits == 64) return {"tl.float64", "bitcast to from 64-bit values"};
  if (use.dtype) return {"tl.float32", "used as a dtype"};
  if (use.string_option) return {*use.string_option, "handed to a Triton option that takes a string"};
  // A selector's sizes-like name (`dim`) says nothing: a size no branch compares with takes none.
  if (use.selector) return {*use.selector, "compared only with literals: the first"};
  if (use.pointer_branch) return {*use.pointer_branch, "takes the branch that uses a parameter as a pointer"};
  if (use.defining_branch) return {true, "takes the only branch binding a name read after it"};
  if (bool_flag_name(up)) return {false, "flag name"};
  // The check runs on one GPU: a process group's size is 1 and this process its rank 0
  // (`tl.static_assert(N % world_size == 0)`, `K // sp_size`, `for i in tl.static_range(world_size)`
  // over its peers' buffers). Not a LoRA rank, which sizes tiles.
  if (!arange_bound && !contains(up, "LORA")) {
    bool group = up == "WORLD_SIZE" || ends_with(up, "_WORLD_SIZE") || up == "NUM_RANKS" || up == "N_RANKS" ||
                 up == "NRANKS" || up == "NUM_PES" || up == "N_PES";
    for (const char* par : {"TP", "SP", "EP", "DP", "PP", "CP"})
      group = group || up == std::string(par) + "_SIZE" || up == std::string(par) + "_WORLD_SIZE";
    if (group) return {1, "process group size: one GPU"};
    // `size_per_rank` is a size, not a rank; nor is a count the kernel unrolls (a rank-r
    // factorization's `tl.static_range(RANK)`): a process's rank is no loop count.
    bool rank = up == "RANK" || (ends_with(up, "_RANK") && !contains(up, "PER_RANK")) || up == "MY_PE" ||
                up == "PE" || up == "RANK_ID";
    if (rank && !use.unrolled) return {0, "rank of the one GPU"};
  }
  // `for i in tl.static_range(W)` copies the body W times: a guess of 1024 for a letter makes
  // one compile take minutes (conv widths, hyper-connection counts), and real counts are small.
  if (use.unrolled) return {4, "tl.static_range bound"};
  // A size-like guess (or a stand-in size of 32) shifts an int32 out of range: `(1 << 32) - 1`.
  if (use.shift_width && !arange_bound) return {4, "a shift's width: a bit count"};
  if (use.condition && !arange_bound) return {false, "tested as a condition"};
  // `dtype_min_value`: a value of the dtype (a load's `other=`), not the dtype itself.
  if (ends_with(up, "VALUE") || ends_with(up, "_VAL")) return {0, "value name"};
  // `DTYPE_MAX` (`row_max / DTYPE_MAX`): the largest value of a quantized type, a number; fp8
  // e4m3's 448 keeps scales finite.
  if (contains(up, "DTYPE") && (ends_with(up, "MAX") || ends_with(up, "MIN")))
    return {ends_with(up, "MIN") ? -448.0 : 448.0, "a dtype's largest or smallest value"};
  if (contains(up, "DTYPE")) return {"tl.float32", "dtype name"};
  if (contains(up, "NUM_WARPS")) return {4, "num_warps name"};
  if (contains(up, "STAGES")) return {2, "stages name"};
  if (starts_with(up, "GROUP") || contains(up, "GROUP_SIZE") || contains(up, "GROUP_M")) return {8, "group size name"};
  // `BLOCK_M1 = BLOCK_M // BLOCK_SLICE_FACTOR`: a ratio divides the block sizes guessed below; one
  // as large as they are leaves blocks of 1, which tl.dot refuses (K >= 16).
  if (!arange_bound && (contains(up, "FACTOR") || contains(up, "RATIO"))) return {2, "ratio name"};
  // `VALUES_PER_BYTE`, `FP4_ELEMS_PER_BYTE`: sub-byte values packed in a byte, two 4-bit ones (the
  // packed formats these kernels read: int4, e2m1); a block-sized guess divides blocks to nothing.
  if (contains(up, "PER_BYTE")) return {2, "values per byte name: two 4-bit values"};
  // BM, BN, BK, and flash-linear-attention's BT/BC/BV/BTL/BTS: its kernels are written for
  // chunks of 64 (its default chunk size), and 128-wide tiles of several of them spill so much
  // that ptxas runs for minutes.
  bool short_block = (up.size() == 2 || up.size() == 3) && up[0] == 'B' &&
                     std::all_of(up.begin() + 1, up.end(), [](char c) { return c >= 'A' && c <= 'Z'; });
  if (short_block && name == up) return {64, "block size name"};
  bool block = contains(up, "BLOCK") || contains(up, "TILE") || contains(up, "SIZE") || contains(up, "DIM") ||
               starts_with(up, "BS") || short_block || arange_bound;
  if (block) {
    bool k_step = ends_with(up, "_K") || ends_with(up, "BK") || up == "K_BLOCK" || ends_with(up, "BLOCK_K");
    return {k_step ? 64 : 128, arange_bound ? "tl.arange bound" : "block size name"};
  }
  // M, N, K, D ...: problem sizes that kernels check against their blocks
  // (`tl.static_assert(K % BLOCK_SIZE_K == 0)`); 1024 is a multiple of every block guessed above.
  if (name.size() == 1 && std::isupper(static_cast<unsigned char>(name[0]))) return {1024, "dimension letter"};
  // Triton refuses `tl.ceil` and `tl.sqrt` of an integer constant.
  if (use.float_math && !arange_bound) return {1.0, "operand of float math"};
  return {1, kNoValueFound};
}

std::vector<TSNode> reshape_dims(const PythonModule& m, TSNode call) {
  std::vector<TSNode> dims;
  TSNode fn = field(call, "function");
  auto q = m.qualified_name(fn);
  TSNode shape{};
  if (q && ends_with(*q, "language.reshape")) {
    shape = argument(call, 1);
  } else if (is_type(fn, "attribute") && m.text_of(field(fn, "attribute")) == "reshape") {
    for_each_named_child(field(call, "arguments"), [&](TSNode a) {
      if (!is_type(a, "comment") && !is_type(a, "keyword_argument")) dims.push_back(a);
    });
    if (dims.size() != 1 || (!is_type(dims[0], "tuple") && !is_type(dims[0], "list"))) return dims;
    shape = dims[0];
    dims.clear();
  }
  if (is_type(shape, "tuple") || is_type(shape, "list"))
    for_each_named_child(shape, [&](TSNode d) {
      if (!is_type(d, "comment")) dims.push_back(d);
    });
  return dims;
}

// Names used as the end of a tl.arange: those must be powers of two. `tl.arange(0, pad_hd // 2)`:
// every name in the end expression sizes the range, and a guess of 1 would make it empty. So do
// the names in a block's shape, which Triton wants in powers of two too: `tl.zeros((BLOCK, D1))`,
// `tl.full(...)`, a reshape's, and a block pointer's or descriptor's `block_shape` (a guess of 1 there makes a
// tl.dot's K dimension 1, which it refuses, and a descriptor's rows narrower than TMA's 16 bytes).
std::set<std::string> arange_bounds(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  // A dimension chosen by a flag (`D if not FP8 else D_PACKED`): its branches are dimensions,
  // its condition is not.
  std::function<void(TSNode)> dimension_names = [&](TSNode e) {
    if (is_type(e, "conditional_expression") && ts_node_named_child_count(e) == 3) {
      dimension_names(ts_node_named_child(e, 0));
      dimension_names(ts_node_named_child(e, 2));
      return;
    }
    identifiers_in(m, e, {"call", "attribute", "conditional_expression"}, out);
  };
  auto shape_names = [&](TSNode shape) {
    if (!is_type(shape, "tuple") && !is_type(shape, "list")) return;
    for_each_named_child(shape, dimension_names);
  };
  for_each_call(body, [&](TSNode n) {
    auto q = m.qualified_name(field(n, "function"));
    TSNode args = field(n, "arguments");
    if (q && ends_with(*q, "language.arange") && ts_node_named_child_count(args) >= 2)
      identifiers_in(m, ts_node_named_child(args, 1), {"call", "attribute"}, out);
    if (q && (ends_with(*q, "language.zeros") || ends_with(*q, "language.full")) && ts_node_named_child_count(args) >= 1)
      shape_names(ts_node_named_child(args, 0));
    // make_block_ptr(base, shape, strides, offsets, block_shape, order)
    if (q && ends_with(*q, "language.make_block_ptr") && ts_node_named_child_count(args) >= 5 &&
        !is_type(ts_node_named_child(args, 4), "keyword_argument"))
      shape_names(ts_node_named_child(args, 4));
    // `x.reshape(BLOCK_H, D1)`, `tl.reshape(x, (BLOCK_M, D1))`: a block's new shape.
    for (TSNode dim : reshape_dims(m, n)) dimension_names(dim);
    // make_tensor_descriptor(base, shape, strides, block_shape), built in the kernel (Triton 3.4 on)
    if (q && ends_with(*q, "language.make_tensor_descriptor") && ts_node_named_child_count(args) >= 4 &&
        !is_type(ts_node_named_child(args, 3), "keyword_argument"))
      shape_names(ts_node_named_child(args, 3));
    for_each_named_child(args, [&](TSNode a) {
      if (is_type(a, "keyword_argument") && m.text_of(field(a, "name")) == "block_shape") shape_names(field(a, "value"));
    });
  });
  // `BLOCK_D: tl.constexpr = qs5` then `block_shape=(BLOCK_M, BLOCK_D)`: the name it copies
  // sizes the block too.
  std::vector<std::pair<std::string, std::string>> copies;  // local -> the name it copies
  std::vector<TSNode> stack{body};
  while (!stack.empty()) {
    TSNode x = stack.back();
    stack.pop_back();
    if (is_type(x, "assignment") && is_type(field(x, "left"), "identifier") && is_type(field(x, "right"), "identifier"))
      copies.emplace_back(m.text_of(field(x, "left")), m.text_of(field(x, "right")));
    if (is_type(x, "function_definition") && !ts_node_eq(x, body)) continue;
    for_each_named_child(x, [&](TSNode c) { stack.push_back(c); });
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [local, copied] : copies)
      if (out.count(local)) grew = out.insert(copied).second || grew;
  }
  return out;
}

std::set<std::string> unit_strides(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    auto q = m.qualified_name(field(n, "function"));
    if (!q || !(ends_with(*q, "language.make_tensor_descriptor") || ends_with(*q, "_experimental_make_tensor_descriptor")))
      return;
    TSNode strides = keyword_value(n, "strides", [&](TSNode x) { return m.text_of(x); });
    if (ts_node_is_null(strides)) strides = argument(n, 2);
    if (!is_type(strides, "tuple") && !is_type(strides, "list")) return;
    TSNode last{};
    for_each_named_child(strides, [&](TSNode e) {
      if (!is_type(e, "comment")) last = e;
    });
    if (is_type(last, "identifier")) out.insert(m.text_of(last));
  });
  return out;
}

std::map<std::string, int> bitcast_widths(const PythonModule& m, TSNode body) {
  std::map<std::string, int> out;
  for_each_call(body, [&](TSNode n) {
    TSNode fn = field(n, "function");
    if (!is_type(fn, "attribute") || m.text_of(field(fn, "attribute")) != "to") return;
    TSNode target = argument(n, 0), bitcast = keyword_value(n, "bitcast", [&](TSNode x) { return m.text_of(x); });
    if (!is_type(target, "identifier") || ts_node_is_null(bitcast) || m.text_of(bitcast) != "True") return;
    // The value bitcast: a conversion to an integer type of a stated width.
    TSNode source = field(fn, "object");
    TSNode inner = is_type(source, "call") ? field(source, "function") : TSNode{};
    if (!is_type(inner, "attribute") || m.text_of(field(inner, "attribute")) != "to") return;
    auto q = m.qualified_name(argument(source, 0));
    static const std::map<std::string, int> kWidths = {
        {"language.uint8", 8},   {"language.int8", 8},   {"language.uint16", 16}, {"language.int16", 16},
        {"language.uint32", 32}, {"language.int32", 32}, {"language.uint64", 64}, {"language.int64", 64}};
    for (const auto& [suffix, bits] : kWidths)
      if (q && ends_with(*q, suffix)) out[m.text_of(target)] = bits;
  });
  return out;
}

// Identifiers used where Triton wants a dtype: `x.to(OUT_DTYPE)`, `tl.zeros(..., dtype=ACC)`.
// A constexpr used so gets a dtype, whatever its name.
std::set<std::string> dtype_operands(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    TSNode fn = field(n, "function");
    TSNode args = field(n, "arguments");
    if (is_type(fn, "attribute") && m.text_of(field(fn, "attribute")) == "to") {
      TSNode first = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : TSNode{};
      if (is_type(first, "identifier")) out.insert(m.text_of(first));
    }
    for_each_named_child(args, [&](TSNode a) {
      if (!is_type(a, "keyword_argument")) return;
      std::string key = m.text_of(field(a, "name"));
      TSNode value = field(a, "value");
      if ((key == "dtype" || key == "out_dtype" || key == "acc_dtype") && is_type(value, "identifier"))
        out.insert(m.text_of(value));
    });
  });
  // `x_type.itemsize`, `DT.primitive_bitwidth`, `OUT.is_fp8()`: attributes only a Triton dtype has.
  static const std::set<std::string> kDtypeAttributes = {
      "itemsize",  "primitive_bitwidth", "int_bitwidth", "fp_mantissa_width", "exponent_bias", "is_floating",
      "is_int",    "is_int_signed",      "is_int_unsigned", "is_fp8",       "is_fp16",       "is_bf16",
      "is_fp32",   "is_fp64",            "is_fp8e4nv",   "is_fp8e5",        "is_standard_floating"};
  std::vector<TSNode> stack{body};
  while (!stack.empty()) {
    TSNode x = stack.back();
    stack.pop_back();
    if (is_type(x, "attribute") && is_type(field(x, "object"), "identifier") &&
        kDtypeAttributes.count(m.text_of(field(x, "attribute"))))
      out.insert(m.text_of(field(x, "object")));
    for_each_named_child(x, [&](TSNode c) { stack.push_back(c); });
  }
  return out;
}

std::vector<TSNode> static_assert_conditions(const PythonModule& m, TSNode body) {
  std::vector<TSNode> out;
  for_each_call(body, [&](TSNode n) {
    auto q = m.qualified_name(field(n, "function"));
    TSNode first = ts_node_named_child(field(n, "arguments"), 0);
    if (q && ends_with(*q, "static_assert") && !ts_node_is_null(first)) out.push_back(first);
  });
  return out;
}

std::map<std::string, std::string> string_option_operands(const PythonModule& m, TSNode body) {
  // Each option with a value every Triton 3.x accepts (its default where it has a string one).
  static const std::map<std::string, std::string> kOptions = {
      {"input_precision", "ieee"}, {"eviction_policy", ""}, {"cache_modifier", ""},
      {"padding_option", ""},      {"rounding", "rtne"},    {"sem", "acq_rel"},
      {"scope", "gpu"},            {"fp_downcast_rounding", "rtne"}};
  std::map<std::string, std::string> out;
  for_each_call(body, [&](TSNode n) {
    for_each_named_child(field(n, "arguments"), [&](TSNode a) {
      if (!is_type(a, "keyword_argument")) return;
      auto option = kOptions.find(m.text_of(field(a, "name")));
      TSNode value = field(a, "value");
      if (option != kOptions.end() && is_type(value, "identifier")) out.emplace(m.text_of(value), option->second);
    });
  });
  return out;
}

std::map<std::string, int> called_operands(const PythonModule& m, TSNode body, const std::set<std::string>& params) {
  std::map<std::string, int> out;
  for_each_call(body, [&](TSNode n) {
    TSNode fn = field(n, "function");
    if (!is_type(fn, "identifier") || !params.count(m.text_of(fn))) return;
    int positional = 0;
    for_each_named_child(field(n, "arguments"), [&](TSNode a) {
      if (!is_type(a, "keyword_argument") && !is_type(a, "comment")) ++positional;
    });
    int& most = out[m.text_of(fn)];
    most = std::max(most, positional);
  });
  return out;
}

std::map<std::string, int> called_results(const PythonModule& m, TSNode body, const std::set<std::string>& params) {
  auto unpacked = [&](TSNode left) {
    int count = 0;
    if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern"))
      for_each_named_child(left, [&](TSNode) { ++count; });
    return count;
  };
  std::map<std::string, int> out;
  std::map<std::string, std::string> held;  // a local bound to a call's result -> the parameter called
  for_each_call(body, [&](TSNode n) {
    TSNode fn = field(n, "function");
    TSNode up = ts_node_parent(n);
    if (!is_type(fn, "identifier") || !params.count(m.text_of(fn)) || !is_type(up, "assignment")) return;
    TSNode left = field(up, "left");
    if (int count = unpacked(left); count > 1) out[m.text_of(fn)] = std::max(out[m.text_of(fn)], count);
    if (is_type(left, "identifier")) held[m.text_of(left)] = m.text_of(fn);
  });
  if (held.empty()) return out;
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "assignment") || !is_type(field(n, "right"), "identifier")) return;
    auto from = held.find(m.text_of(field(n, "right")));
    if (int count = unpacked(field(n, "left")); from != held.end() && count > 1)
      out[from->second] = std::max(out[from->second], count);
  });
  return out;
}

// Identifiers used as loop bounds (`range(0, n_cols, BLOCK)`, `tl.range`, `tl.static_range`):
// Triton requires them to be integers, which outweighs any use in float math elsewhere
// (`tl.sqrt(total / n_cols + eps)`).
std::set<std::string> loop_bound_operands(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    if (loop_call(m, n)) identifiers_in(m, field(n, "arguments"), {"call", "keyword_argument"}, out);
  });
  return out;
}

// Identifiers in the arguments of tl.static_range, whose loops Triton unrolls.
namespace {

using UnrolledByHelper = std::map<const FunctionSite*, std::set<std::string>>;

std::set<std::string> unrolled_operands(const PythonModule& m, TSNode body, int depth, UnrolledByHelper& helpers);

// A helper's unrolled counts, read once however often the body calls it.
const std::set<std::string>& helper_unrolled(const PythonModule& m, const FunctionSite* helper, int depth,
                                             UnrolledByHelper& helpers) {
  auto it = helpers.find(helper);
  if (it != helpers.end()) return it->second;
  helpers[helper];  // a recursive helper reads as none while it is read
  std::set<std::string> found = unrolled_operands(m, field(helper->definition, "body"), depth, helpers);
  return helpers[helper] = std::move(found);
}

std::set<std::string> unrolled_operands(const PythonModule& m, TSNode body, int depth, UnrolledByHelper& helpers) {
  std::set<std::string> out;
  // Local constexprs (`num_l: tl.constexpr = LMAX + 1`) count with what they are made of: every
  // assignment of each local, in source order.
  std::multimap<std::string, TSNode> bound;
  for_each_node(body, [&](TSNode n) {
    if (is_type(n, "assignment") && is_type(field(n, "left"), "identifier") && !ts_node_is_null(field(n, "right")))
      bound.emplace(m.text_of(field(n, "left")), field(n, "right"));
  });
  // start and end set the trip count; a large step only makes it smaller. So does a size the
  // bound divides (`static_range(HEAD_DIM // X)` runs HEAD_DIM / X times): it is no count.
  std::function<void(TSNode)> counts = [&](TSNode e) {
    if (is_type(e, "binary_operator") && m.text_of(field(e, "operator")) == "//") {
      counts(field(e, "right"));
      return;
    }
    if (is_type(e, "identifier")) {
      out.insert(m.text_of(e));
      return;
    }
    if (is_type(e, "call")) return;
    for_each_named_child(e, [&](TSNode c) { counts(c); });
  };
  bool unrolls = false;
  for_each_call(body, [&](TSNode n) {
    // A helper that unrolls over a parameter: what the call hands it is a count here too
    // (`_mix(x, LMAX + 1, RANK)` into `for r in tl.static_range(RANK)`), with what a local
    // handed so is first made of.
    if (depth < 3 && is_type(field(n, "function"), "identifier"))
      if (const FunctionSite* helper = module_function(m, m.text_of(field(n, "function")))) {
        const std::set<std::string>& counted = helper_unrolled(m, helper, depth + 1, helpers);
        for_each_call_argument(m, n, helper->definition, [&](const std::string& target, TSNode value) {
          if (!counted.count(target)) return;
          for_each_node(value, [&](TSNode id) {
            if (!is_type(id, "identifier")) return;
            out.insert(m.text_of(id));
            auto local = bound.find(m.text_of(id));
            if (local != bound.end())
              for_each_node(local->second, [&](TSNode x) {
                if (is_type(x, "identifier")) out.insert(m.text_of(x));
              });
          });
        });
      }
    auto q = m.qualified_name(field(n, "function"));
    if (!q || !ends_with(*q, "language.static_range")) return;
    unrolls = true;
    size_t index = 0;
    for_each_named_child(field(n, "arguments"), [&](TSNode a) {
      if (is_type(a, "keyword_argument") || is_type(a, "comment")) return;
      if (index++ < 2) counts(a);
    });
  });
  // `loop_range: tl.constexpr = window_size` (or `-window_size` on another branch), then
  // `tl.static_range(loop_range)`: what the local is made of counts too.
  std::set<std::string> expanded;
  for (bool grew = unrolls; grew;) {
    grew = false;
    std::set<std::string> so_far = out;  // `counts` adds to `out` while this runs
    for (const std::string& name : so_far) {
      if (!expanded.insert(name).second) continue;
      auto [from, to] = bound.equal_range(name);
      for (auto it = from; it != to; ++it) {
        size_t before = out.size();
        counts(it->second);
        grew = grew || out.size() != before;
      }
    }
  }
  return out;
}

}  // namespace

std::set<std::string> static_range_operands(const PythonModule& m, TSNode body) {
  UnrolledByHelper helpers;
  return unrolled_operands(m, body, 0, helpers);
}

std::set<std::string> multiplied_trip_counts(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    if (!loop_call(m, n)) return;
    std::vector<TSNode> positional;
    for_each_named_child(field(n, "arguments"), [&](TSNode a) {
      if (!is_type(a, "keyword_argument") && !is_type(a, "comment")) positional.push_back(a);
    });
    if (positional.empty()) return;
    TSNode end = positional.size() == 1 ? positional[0] : positional[1];
    // `kd * kh * kw * blocks`: the product of the names, not a stride or an offset added to it.
    std::set<std::string> names;
    int factors = 0;
    std::function<void(TSNode)> factor = [&](TSNode e) {
      if (is_type(e, "parenthesized_expression")) return factor(ts_node_named_child(e, 0));
      if (is_type(e, "binary_operator") && m.text_of(field(e, "operator")) == "*") {
        factor(field(e, "left"));
        factor(field(e, "right"));
        return;
      }
      if (is_type(e, "identifier")) names.insert(m.text_of(e));
      ++factors;
    };
    factor(end);
    if (factors >= 3 || (factors == 2 && names.size() == 2)) out.insert(names.begin(), names.end());
  });
  return out;
}

std::set<std::string> shift_widths(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "binary_operator")) return;
    std::string op = m.text_of(field(n, "operator"));
    bool power_of_two = op == "**" && m.text_of(field(n, "left")) == "2";
    if (op != "<<" && op != ">>" && !power_of_two) return;
    identifiers_in(m, field(n, "right"), {"call", "attribute", "subscript"}, out);
  });
  return out;
}

// Names tested for truth on their own: `if INVERT:`, `if not flag:`, `1 if invert else 0`,
// `a and FLAG`. A number there would be a guess; a bool says what the code does with it.
std::set<std::string> condition_operands(const PythonModule& m, TSNode body, int depth) {
  std::set<std::string> out;
  // A flag handed on to a helper that tests it (`impl(..., invert)`) is tested all the same.
  std::vector<TSNode> calls;
  auto take = [&](TSNode c) {
    c = tested_expression(c);
    if (is_type(c, "identifier")) out.insert(m.text_of(c));
  };
  std::vector<TSNode> stack{body};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    std::string_view t = node_type(n);
    if (t == "if_statement" || t == "elif_clause" || t == "while_statement") take(field(n, "condition"));
    if (t == "conditional_expression") take(ts_node_named_child(n, 1));
    if (t == "boolean_operator") {
      take(field(n, "left"));
      take(field(n, "right"));
    }
    if (t == "call" && is_type(field(n, "function"), "identifier")) calls.push_back(n);
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
  for (TSNode call : calls) {
    const FunctionSite* helper = depth < 4 ? module_function(m, m.text_of(field(call, "function"))) : nullptr;
    if (!helper) continue;
    std::set<std::string> tested = condition_operands(m, field(helper->definition, "body"), depth + 1);
    for_each_call_argument(m, call, helper->definition, [&](const std::string& target, TSNode value) {
      if (tested.count(target) && is_type(value, "identifier")) out.insert(m.text_of(value));
    });
  }
  return out;
}

std::set<std::string> defining_branch_flags(const PythonModule& m, TSNode body, const std::set<std::string>& params) {
  std::set<std::string> out;
  // Every binding of a plain name, with where it starts, and every read of one (`p += step`
  // reads p: it binds nothing new).
  std::multimap<std::string, uint32_t> bound, read;
  for_each_node(body, [&](TSNode n) {
    if (is_type(n, "assignment")) {
      std::vector<TSNode> targets{field(n, "left")};
      while (!targets.empty()) {
        TSNode t = targets.back();
        targets.pop_back();
        if (is_type(t, "identifier")) bound.emplace(m.text_of(t), ts_node_start_byte(t));
        else if (is_type(t, "pattern_list") || is_type(t, "tuple_pattern") || is_type(t, "parenthesized_expression"))
          for_each_named_child(t, [&](TSNode c) { targets.push_back(c); });
      }
    } else if (is_type(n, "identifier")) {
      TSNode up = ts_node_parent(n);
      bool target = !ts_node_is_null(up) && is_type(up, "assignment") && ts_node_eq(field(up, "left"), n);
      bool attribute_name = !ts_node_is_null(up) && is_type(up, "attribute") && ts_node_eq(field(up, "attribute"), n);
      bool keyword_name = !ts_node_is_null(up) && is_type(up, "keyword_argument") && ts_node_eq(field(up, "name"), n);
      if (!target && !attribute_name && !keyword_name) read.emplace(m.text_of(n), ts_node_start_byte(n));
    }
  });
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "if_statement")) return;
    TSNode cond = field(n, "condition");
    if (!is_type(cond, "identifier") || !params.count(m.text_of(cond))) return;
    bool has_else = false;
    for_each_named_child(n, [&](TSNode c) { has_else = has_else || is_type(c, "else_clause"); });
    if (has_else) return;
    TSNode branch = field(n, "consequence");
    uint32_t if_start = ts_node_start_byte(n), if_end = ts_node_end_byte(n);
    // Reads inside a later block the same flag guards (`if USE_G: b_g = ...` then `if USE_G:
    // ... b_g ...`) need no binding with the flag off.
    // Found on the first read after the chain that needs them.
    std::string flag = m.text_of(cond);
    std::optional<std::vector<std::pair<uint32_t, uint32_t>>> guarded;
    auto unguarded = [&](uint32_t at) {
      if (!guarded) {
        guarded.emplace();
        for_each_node(body, [&](TSNode g) {
          if (!is_type(g, "if_statement") && !is_type(g, "elif_clause") && !is_type(g, "conditional_expression")) return;
          TSNode c = is_type(g, "conditional_expression") ? ts_node_named_child(g, 1) : field(g, "condition");
          bool tests = false;
          for_each_node(c, [&](TSNode x) { tests = tests || (is_type(x, "identifier") && m.text_of(x) == flag); });
          if (tests) guarded->emplace_back(ts_node_start_byte(g), ts_node_end_byte(g));
        });
      }
      for (const auto& [a, b] : *guarded)
        if (at >= a && at < b) return false;
      return true;
    };
    for (const auto& [name, at] : bound) {
      if (at < ts_node_start_byte(branch) || at >= ts_node_end_byte(branch)) continue;
      bool earlier = false, later_read = false;
      auto [lo, hi] = bound.equal_range(name);
      // Bound only by this chain before the read: a name another block binds too (`if USE_G:
      // b_g = ...` and `if USE_G_GAMMA: b_g = ...`) has other ways to exist. A binding after the
      // read (the same local name reused in a later loop) is no way for it to.
      for (auto it = lo; it != hi; ++it) earlier = earlier || it->second < if_start;
      auto [rlo, rhi] = read.equal_range(name);
      for (auto it = rlo; it != rhi && !later_read; ++it) {
        if (it->second < if_end || !unguarded(it->second)) continue;
        bool rebound = false;
        for (auto b = lo; b != hi; ++b) rebound = rebound || (b->second >= if_end && b->second < it->second);
        later_read = !rebound;
      }
      if (!earlier && later_read && !params.count(name)) {
        out.insert(m.text_of(cond));
        break;
      }
    }
  });
  return out;
}

namespace {

// The value of a literal, or of a module constant bound to one (`if policy == Q_POLICY_INT8:`),
// when it is an integer or a string: what a mode is compared with.
std::optional<nlohmann::json> mode_literal(const PythonModule& m, const ConstantEvaluator& literals, TSNode n) {
  bool constant = is_type(n, "identifier") && !ts_node_is_null(literals.module_constant(m.text_of(n)));
  if (!constant && !is_type(n, "integer") && !is_type(n, "string") && !is_type(n, "unary_operator")) return std::nullopt;
  auto v = literals.eval(n);
  if (v && (v->is_number_integer() || v->is_string())) return v;
  return std::nullopt;
}

// What `name OP other` compares a name with: the literal of `==`/`!=`, or the first literal of a
// list or tuple it is tested to be `in` (`assert ROPE_METHOD in ["none", "self_extend"]`).
std::optional<nlohmann::json> compared_mode(const PythonModule& m, const ConstantEvaluator& literals,
                                            const std::string& op, TSNode other) {
  if (op == "==" || op == "!=") return mode_literal(m, literals, other);
  if ((op != "in" && op != "not in") || !(is_type(other, "list") || is_type(other, "tuple"))) return std::nullopt;
  std::optional<nlohmann::json> first;
  bool all = ts_node_named_child_count(other) > 0;
  for_each_named_child(other, [&](TSNode e) {
    auto v = mode_literal(m, literals, e);
    all = all && v.has_value();
    if (v && !first) first = v;
  });
  return all ? first : std::nullopt;
}

}  // namespace

std::map<std::string, nlohmann::json> selector_values(const PythonModule& m, TSNode body, int depth) {
  std::map<std::string, std::pair<uint32_t, nlohmann::json>> first;  // by position: the walk is not in order
  std::set<std::string> other_use;
  std::vector<std::pair<std::string, TSNode>> handed_on;  // (name, call of a helper of this module)
  ConstantEvaluator literals(m, nullptr);
  // The call of a jitted helper of this module that `n` is an argument of, if any.
  auto helper_call = [&](TSNode n) -> TSNode {
    TSNode list = ts_node_parent(n);
    if (is_type(list, "keyword_argument")) list = ts_node_parent(list);
    TSNode call = is_type(list, "argument_list") ? ts_node_parent(list) : TSNode{};
    if (!is_type(call, "call") || depth >= 4) return TSNode{};
    TSNode fn = field(call, "function");
    return is_type(fn, "identifier") && module_function(m, m.text_of(fn)) ? call : TSNode{};
  };
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "identifier")) return;
    std::string name = m.text_of(n);
    TSNode parent = ts_node_parent(n);
    // `x.dim` and `f(dim=...)` name something else.
    if (is_type(parent, "attribute") && ts_node_eq(field(parent, "attribute"), n)) return;
    if (is_type(parent, "keyword_argument") && ts_node_eq(field(parent, "name"), n)) return;
    // `tl.sum(x, axis=dim)`: an axis is a selector too.
    if (is_type(parent, "keyword_argument") && m.text_of(field(parent, "name")) == "axis") return;
    if (TSNode call = helper_call(n); !ts_node_is_null(call)) {  // decided by how the helper uses it
      handed_on.push_back({name, call});
      return;
    }
    std::optional<nlohmann::json> compared;
    if (is_type(parent, "comparison_operator") && ts_node_named_child_count(parent) == 2 && ts_node_child_count(parent) == 3) {
      std::string op = m.text_of(ts_node_child(parent, 1));
      bool left = ts_node_eq(ts_node_named_child(parent, 0), n);
      TSNode other = left ? ts_node_named_child(parent, 1) : ts_node_named_child(parent, 0);
      if (left || op == "==" || op == "!=") compared = compared_mode(m, literals, op, other);
    }
    uint32_t at = ts_node_start_byte(n);
    if (!compared) other_use.insert(name);
    else if (!first.count(name) || first[name].first > at) first[name] = {at, *compared};
  });
  // `apply_act_func(x, act_func)`: a selector of the helper is one here. Each helper is read once.
  std::map<const FunctionSite*, std::map<std::string, nlohmann::json>> read;
  for (const auto& [name, call] : handed_on) {
    if (other_use.count(name)) continue;
    const FunctionSite* helper = module_function(m, m.text_of(field(call, "function")));
    auto known = read.find(helper);
    if (known == read.end())
      known = read.emplace(helper, selector_values(m, field(helper->definition, "body"), depth + 1)).first;
    const std::map<std::string, nlohmann::json>& inner = known->second;
    bool selects = false;
    for_each_call_argument(m, call, helper->definition, [&](const std::string& target, TSNode value) {
      if (!is_type(value, "identifier") || m.text_of(value) != name) return;
      auto v = inner.find(target);
      if (v == inner.end()) return;
      selects = true;
      uint32_t at = ts_node_start_byte(value);
      if (!first.count(name) || first[name].first > at) first[name] = {at, v->second};
    });
    if (!selects) other_use.insert(name);
  }
  std::map<std::string, nlohmann::json> out;
  for (const auto& [name, v] : first)
    if (!other_use.count(name)) out[name] = v.second;
  return out;
}

std::map<std::string, std::vector<nlohmann::json>> compared_literals(const PythonModule& m, TSNode body, int depth) {
  std::map<std::string, std::vector<nlohmann::json>> out;
  std::vector<std::pair<uint32_t, std::pair<std::string, nlohmann::json>>> found;  // the walk is not in order
  ConstantEvaluator literals(m, nullptr);
  std::map<const FunctionSite*, std::map<std::string, std::vector<nlohmann::json>>> helpers;  // each read once
  for_each_node(body, [&](TSNode n) {
    if (is_type(n, "call") && is_type(field(n, "function"), "identifier") && depth < 3) {
      const FunctionSite* helper = module_function(m, m.text_of(field(n, "function")));
      if (!helper) return;
      auto known = helpers.find(helper);
      if (known == helpers.end())
        known = helpers.emplace(helper, compared_literals(m, field(helper->definition, "body"), depth + 1)).first;
      for_each_call_argument(m, n, helper->definition, [&](const std::string& target, TSNode value) {
        auto inner = known->second.find(target);
        if (!is_type(value, "identifier") || inner == known->second.end()) return;
        for (const auto& v : inner->second) found.push_back({ts_node_start_byte(value), {m.text_of(value), v}});
      });
      return;
    }
    if (!is_type(n, "comparison_operator") || ts_node_named_child_count(n) != 2 || ts_node_child_count(n) != 3) return;
    std::string op = m.text_of(ts_node_child(n, 1));
    if (op != "==" && op != "!=") return;
    for (int side = 0; side < 2; ++side) {
      TSNode name = ts_node_named_child(n, side), other = ts_node_named_child(n, 1 - side);
      if (!is_type(name, "identifier")) continue;
      if (auto v = mode_literal(m, literals, other)) found.push_back({ts_node_start_byte(n), {m.text_of(name), *v}});
    }
  });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [at, entry] : found) {
    auto& values = out[entry.first];
    if (std::find(values.begin(), values.end(), entry.second) == values.end()) values.push_back(entry.second);
  }
  return out;
}

std::map<std::string, int> tuple_parameters(const PythonModule& m, TSNode body, const std::set<std::string>& params) {
  std::map<std::string, int> out;
  for_each_node(body, [&](TSNode n) {
    // `num_rows, num_cols = shape`: as many elements as names, where none is starred.
    if (is_type(n, "assignment") && is_type(field(n, "right"), "identifier") && params.count(m.text_of(field(n, "right")))) {
      TSNode left = field(n, "left");
      if (!is_type(left, "pattern_list") && !is_type(left, "tuple_pattern") && !is_type(left, "list_pattern")) return;
      int names = 0;
      bool plain = true;
      for_each_named_child(left, [&](TSNode c) {
        plain = plain && is_type(c, "identifier");
        ++names;
      });
      if (plain && names > 0 && names <= 16) {
        int& count = out[m.text_of(field(n, "right"))];
        count = std::max(count, names);
      }
      return;
    }
    if (!is_type(n, "subscript")) return;
    TSNode value = field(n, "value");
    TSNode index = field(n, "subscript");
    if (!is_type(value, "identifier") || !is_type(index, "integer") || !params.count(m.text_of(value))) return;
    int i = 0;
    try {
      i = std::stoi(m.text_of(index));
    } catch (const std::exception&) {
      return;
    }
    if (i < 0 || i > 15) return;
    int& count = out[m.text_of(value)];
    count = std::max(count, i + 1);
  });
  return out;
}

std::map<std::string, std::string> tuple_loop_bounds(const PythonModule& m, TSNode body, const std::set<std::string>& params) {
  std::map<std::string, std::string> out;
  for_each_node(body, [&](TSNode loop) {
    if (!is_type(loop, "for_statement") || !is_type(field(loop, "left"), "identifier")) return;
    TSNode range = field(loop, "right");
    auto q = is_type(range, "call") ? m.qualified_name(field(range, "function")) : std::nullopt;
    TSNode args = is_type(range, "call") ? field(range, "arguments") : TSNode{};
    if (!q || !ends_with(*q, "language.static_range") || ts_node_named_child_count(args) != 1 ||
        !is_type(ts_node_named_child(args, 0), "identifier"))
      return;
    std::string index = m.text_of(field(loop, "left")), bound = m.text_of(ts_node_named_child(args, 0));
    for_each_node(field(loop, "body"), [&](TSNode n) {
      if (!is_type(n, "subscript")) return;
      TSNode value = field(n, "value"), key = field(n, "subscript");
      if (is_type(value, "identifier") && params.count(m.text_of(value)) && is_type(key, "identifier") &&
          m.text_of(key) == index)
        out.emplace(m.text_of(value), bound);
    });
  });
  return out;
}

// Identifiers inside the arguments of float-only math (tl.exp(-x), tl.sqrt(var + eps)): a
// scalar there must be a float, since Triton refuses integer operands for these.
bool float_only_math(const std::string& op) {
  static const std::set<std::string> kFloatOnly = {"exp", "exp2", "log", "log2", "log1p", "sqrt", "rsqrt", "sqrt_rn",
                                                   "sin", "cos", "tanh", "sigmoid", "erf", "fdiv", "div_rn", "floor",
                                                   "ceil"};
  return kFloatOnly.count(op) > 0;
}

std::set<std::string> float_math_operands(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    auto q = m.qualified_name(field(n, "function"));
    std::string op = q ? q->substr(q->rfind('.') + 1) : "";
    if (q && q->rfind("triton.language", 0) == 0 && float_only_math(op))
      identifiers_in(m, field(n, "arguments"), {"call", "keyword_argument"}, out);
  });
  // `x = p0x + t * dxp` then `tl.floor(x)`: what a local read there is computed from, through
  // plain arithmetic (a call types its own operands), a few assignments deep.
  std::map<std::string, std::vector<TSNode>> values;
  for_each_node(body, [&](TSNode n) {
    if (is_type(n, "assignment") && is_type(field(n, "left"), "identifier") && !ts_node_is_null(field(n, "right")))
      values[m.text_of(field(n, "left"))].push_back(field(n, "right"));
  });
  std::vector<std::string> work(out.begin(), out.end());
  std::set<std::string> expanded;
  for (int round = 0; round < 3 && !work.empty(); ++round) {
    std::vector<std::string> next;
    for (const auto& name : work) {
      auto it = values.find(name);
      if (it == values.end() || !expanded.insert(name).second) continue;
      for (TSNode rhs : it->second) {
        // Through `+ - *` only: a true division (`tl.sum(x * x) / N`) is a float whatever its
        // divisor, and `//`, `%` and shifts are integer math.
        std::vector<TSNode> stack{rhs};
        while (!stack.empty()) {
          TSNode x = stack.back();
          stack.pop_back();
          if (is_type(x, "identifier")) {
            std::string r = m.text_of(x);
            if (out.insert(r).second) next.push_back(r);
          } else if (is_type(x, "parenthesized_expression") || is_type(x, "unary_operator")) {
            for_each_named_child(x, [&](TSNode c) { stack.push_back(c); });
          } else if (is_type(x, "binary_operator")) {
            std::string op = m.text_of(field(x, "operator"));
            if (op == "+" || op == "-" || op == "*") {
              stack.push_back(field(x, "left"));
              stack.push_back(field(x, "right"));
            }
          }
        }
      }
    }
    work = std::move(next);
  }
  auto float_literal = [&](TSNode x) {
    while (is_type(x, "parenthesized_expression") || is_type(x, "unary_operator"))
      x = ts_node_named_child(x, ts_node_named_child_count(x) - 1);
    return is_type(x, "float");
  };
  // Names the body binds: their values may be floats already.
  std::set<std::string> bound;
  for_each_node(body, [&](TSNode n) {
    if (is_type(n, "assignment") || is_type(n, "augmented_assignment") || is_type(n, "for_statement"))
      identifiers_in(m, field(n, "left"), {}, bound);
  });
  // `2 * scale if scale >= 1.0 else 2.0`: Triton wants both branches of one type, so the scalars
  // the other branch computes from alone are floats; so is a scalar ordered against a float literal.
  auto computed_from = [&](TSNode branch) {
    std::set<std::string> names;
    identifiers_in(m, branch, {"call", "attribute", "subscript", "conditional_expression"}, names);
    for (const auto& name : names)
      if (bound.count(name)) return;
    out.insert(names.begin(), names.end());
  };
  for_each_node(body, [&](TSNode n) {
    if (is_type(n, "conditional_expression") && ts_node_named_child_count(n) == 3) {
      TSNode body_branch = ts_node_named_child(n, 0), other = ts_node_named_child(n, 2);
      if (float_literal(other) && !float_literal(body_branch)) computed_from(body_branch);
      else if (float_literal(body_branch) && !float_literal(other)) computed_from(other);
    } else if (is_type(n, "comparison_operator") && ts_node_named_child_count(n) == 2) {
      TSNode l = ts_node_named_child(n, 0), r = ts_node_named_child(n, 1);
      std::string text = m.text_of(n);
      bool ordered = text.find('<') != std::string::npos || text.find('>') != std::string::npos;
      if (ordered && is_type(l, "identifier") && float_literal(r)) out.insert(m.text_of(l));
      if (ordered && is_type(r, "identifier") && float_literal(l)) out.insert(m.text_of(r));
    }
  });
  return out;
}

bool float_name(const std::string& name) {
  std::string up = upper(name);
  // `Scale_row_stride`, `beta_stride_b`: strides and sizes of float tensors are integers.
  for (const char* p : {"STRIDE", "NUMEL", "OFFSET", "_LEN", "SIZE", "_DIM", "NUM_"})
    if (contains(up, p)) return false;
  for (const char* p : {"EPS", "SCALE", "ALPHA", "BETA", "GAMMA", "MOMENTUM", "LR", "TEMPERATURE", "SOFTCAP",
                        "SLOPE", "THETA", "DECAY", "DROPOUT", "LOGIT_CAP", "CLAMP", "MIN_VAL", "MAX_VAL"})
    if (up == p || starts_with(up, std::string(p) + "_") || ends_with(up, std::string("_") + p)) return true;
  return up == "P" || up == "SM_SCALE";
}

bool index_name(const std::string& name) {
  std::string up = upper(name);
  for (const char* p : {"IDX", "INDEX", "INDICES", "OFFSETS", "IDS", "SEQLENS", "LENS", "LENGTHS", "COUNTS", "POSITIONS",
                        "TOKEN_IDS", "EXPERT_IDS", "LOCK"})
    if (contains(up, p)) return true;
  return false;
}

bool pointer_name(const std::string& raw) {
  // `itensor_ptr0 ... itensor_ptr3`: numbered pointers, one per input tensor.
  std::string name = raw;
  while (name.size() > 1 && std::isdigit(static_cast<unsigned char>(name.back()))) name.pop_back();
  return ends_with(name, "_ptr") || ends_with(name, "_ptrs") || ends_with(name, "Ptr") || name == "ptr" ||
         starts_with(name, "ptr_") || ends_with(name, "_PTR");
}

// Takes what a launch site says of one parameter. False when it says nothing usable for the
// parameter's kind (a tensor handed to a constexpr), so that the next fact source decides.

}  // namespace mine::check
