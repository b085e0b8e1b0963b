#include "core/check/pointer_usage.h"

#include <cerrno>
#include <cstdlib>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <tuple>

#include "core/check/body_usage.h"
#include "core/python/function_parameters.h"

namespace mine::check {
namespace {

// Triton ops whose first argument (or the named keyword) is an address.
struct PointerOp {
  const char* name;
  const char* keyword;
};
constexpr PointerOp kPointerOps[] = {
    {"load", "pointer"},          {"store", "pointer"},        {"atomic_add", "pointer"},
    {"atomic_max", "pointer"},    {"atomic_min", "pointer"},   {"atomic_and", "pointer"},
    {"atomic_or", "pointer"},     {"atomic_xor", "pointer"},   {"atomic_xchg", "pointer"},
    {"atomic_cas", "pointer"},    {"make_block_ptr", "base"},  {"make_tensor_descriptor", "base"},
    {"_experimental_make_tensor_descriptor", "base"},
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string last_component(const std::string& dotted) {
  size_t dot = dotted.rfind('.');
  return dot == std::string::npos ? dotted : dotted.substr(dot + 1);
}

// The value of keyword argument `name`, or a null node.
TSNode keyword(TSNode call, std::string_view name, const PythonModule& m) {
  return ts::keyword_value(call, name, [&](TSNode n) { return m.text_of(n); });
}

}  // namespace

bool integer_element_type(const std::string& d) { return !d.empty() && (d[0] == 'i' || d[0] == 'u') && d != "i1"; }

std::string triton_dtype(const std::string& name) {
  static const std::map<std::string, std::string> kTypes = {
      {"float16", "fp16"}, {"bfloat16", "bf16"}, {"float32", "fp32"},  {"float64", "fp64"}, {"int8", "i8"},
      {"int16", "i16"},    {"int32", "i32"},     {"int64", "i64"},     {"uint8", "u8"},     {"uint16", "u16"},
      {"uint32", "u32"},   {"uint64", "u64"},    {"int1", "i1"},       {"float8e4nv", "fp8e4nv"},
      {"float8e5", "fp8e5"}, {"float8e4b15", "fp8e4b15"},
  };
  bool triton = name.rfind("triton.language.", 0) == 0 || name.rfind("tl.", 0) == 0;
  if (!triton) return "";
  auto it = kTypes.find(last_component(name));
  return it == kTypes.end() ? "" : it->second;
}

TSNode tested_expression(TSNode condition) {
  while (is_type(condition, "not_operator") || is_type(condition, "parenthesized_expression"))
    condition = is_type(condition, "not_operator") ? field(condition, "argument") : ts_node_named_child(condition, 0);
  return condition;
}

TSNode argument(TSNode call, size_t position) {
  TSNode found{};
  size_t index = 0;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (!ts_node_is_null(found) || is_type(a, "comment") || is_type(a, "keyword_argument")) return;
    if (index++ == position) found = a;
  });
  return found;
}

std::vector<std::string> parameter_names(const PythonModule& m, TSNode definition) {
  std::vector<std::string> out;
  for (const auto& p : parameter_nodes(m, definition)) out.push_back(p.name);
  return out;
}

void for_each_call_argument(const PythonModule& m, TSNode call, TSNode callee,
                            const std::function<void(const std::string&, TSNode)>& visit) {
  std::vector<ParameterNodes> nodes = parameter_nodes(m, callee);
  std::vector<std::string> params;
  for (const auto& p : nodes) params.push_back(p.name);
  size_t positional = 0, splats = 0;
  bool dictionary_splat = false, variadic = false, defaults = false;
  std::set<std::string> named;
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (is_type(a, "comment")) return;
    if (is_type(a, "list_splat")) ++splats;
    else if (is_type(a, "dictionary_splat")) dictionary_splat = true;
    else if (is_type(a, "keyword_argument")) named.insert(m.text_of(field(a, "name")));
    else ++positional;
  });
  for_each_named_child(field(callee, "parameters"), [&](TSNode p) {
    variadic = variadic || is_type(p, "list_splat_pattern") || is_type(p, "dictionary_splat_pattern");
  });
  for (const auto& p : nodes) defaults = defaults || !ts_node_is_null(p.default_value);
  // A call that cannot bind its arguments (a stale call left in a branch the kernel never
  // compiles, one argument short) says nothing of what its arguments are.
  bool splat = splats > 0 || dictionary_splat || variadic;
  bool binds = splat || positional <= params.size();
  for (size_t i = positional; binds && !splat && i < nodes.size(); ++i)
    binds = !ts_node_is_null(nodes[i].default_value) || named.count(nodes[i].name);
  if (!binds) return;
  // `f(a, *strides, n, BLOCK)`: a splat fills as many parameters as the call leaves over, where
  // that is knowable (one splat, a callee without defaults or variadics); else the positional
  // arguments after it bind nothing here, rather than the wrong parameters.
  std::optional<size_t> splat_width;
  if (splats == 1 && !variadic && !defaults && params.size() >= positional + named.size())
    splat_width = params.size() - positional - named.size();
  size_t index = 0;
  bool lost = false;  // past a splat of unknown width
  for_each_named_child(field(call, "arguments"), [&](TSNode a) {
    if (is_type(a, "comment")) return;
    std::string target;
    TSNode value = a;
    if (is_type(a, "keyword_argument")) {
      target = m.text_of(field(a, "name"));
      value = field(a, "value");
    } else if (is_type(a, "list_splat")) {
      if (splat_width) index += *splat_width;
      else lost = true;
    } else if (is_type(a, "dictionary_splat")) {
      return;
    } else if (!lost && index < params.size()) {
      target = params[index++];
    }
    if (!target.empty()) visit(target, value);
  });
}

const PointerFacts& PointerUsage::facts(const FunctionSite& function) {
  auto it = memo_.find(function.qualname);
  if (it != memo_.end()) return *it->second;
  static const PointerFacts kNone;
  if (in_progress_.count(function.qualname)) return kNone;
  in_progress_.insert(function.qualname);
  auto result = std::make_unique<PointerFacts>(analyze(function));
  in_progress_.erase(function.qualname);
  return *(memo_[function.qualname] = std::move(result));
}

PointerFacts PointerUsage::analyze(const FunctionSite& function) {
  PointerFacts out;
  std::vector<std::string> params = parameter_names(m_, function.definition);
  std::set<std::string> param_set(params.begin(), params.end());
  TSNode body = field(function.definition, "body");

  // One pass over the body: local assignments, pointer ops, calls into module functions.
  std::map<std::string, std::vector<TSNode>> assigned;
  std::map<std::string, std::vector<TSNode>> updated;  // `x += e`: kept apart, an update is no alias
  struct Op {
    std::string name;
    TSNode call, address;
  };
  std::vector<Op> ops;
  std::vector<TSNode> calls, dtype_reads, returned;
  auto op_name = [&](TSNode call) -> std::string {
    TSNode fn = field(call, "function");
    auto q = m_.qualified_name(fn);
    std::string name = q ? *q : m_.text_of(fn);
    bool triton = name.rfind("triton.language.", 0) == 0 || name.rfind("tl.", 0) == 0 ||
                  name.rfind("triton.experimental.", 0) == 0;
    return triton ? last_component(name) : "";
  };
  // What `tl.split(x)` or `x.split()` splits (the module function is an attribute call too, so it
  // is told apart first); a null node for any other call.
  auto split_operand = [&](TSNode call) -> TSNode {
    if (!is_type(call, "call")) return TSNode{};
    TSNode fn = field(call, "function");
    if (op_name(call) == "split" && !ts_node_is_null(argument(call, 0))) return argument(call, 0);
    if (is_type(fn, "attribute") && m_.text_of(field(fn, "attribute")) == "split") return field(fn, "object");
    return TSNode{};
  };
  std::vector<TSNode> stack{body};
  size_t visited = 0;
  while (!stack.empty() && ++visited < 200000) {
    TSNode n = stack.back();
    stack.pop_back();
    std::string_view t = node_type(n);
    if (t == "assignment") {
      TSNode left = field(n, "left"), right = field(n, "right");
      if (is_type(left, "identifier") && !ts_node_is_null(right)) assigned[m_.text_of(left)].push_back(right);
      // `start, mid, end = 0, count - 1, count`: each name holds the value in its own place.
      bool tuple_left = is_type(left, "pattern_list") || is_type(left, "tuple_pattern");
      bool tuple_right = is_type(right, "expression_list") || is_type(right, "tuple");
      if (tuple_left && tuple_right && ts_node_named_child_count(left) == ts_node_named_child_count(right))
        for (uint32_t i = 0; i < ts_node_named_child_count(left); ++i) {
          TSNode name = ts_node_named_child(left, i);
          if (is_type(name, "identifier")) assigned[m_.text_of(name)].push_back(ts_node_named_child(right, i));
        }
      // `lo, hi = tl.load(p + tl.arange(0, 2)).split()`: each name holds elements of the operand.
      if ((is_type(left, "pattern_list") || is_type(left, "tuple_pattern")) && is_type(right, "call")) {
        TSNode fn = field(right, "function");
        // `p0, p1 = offsets_of(X, ...)`, a module function's tuple: each name may hold what it
        // returns (the call, read through the function's returned_bases below).
        TSNode operand = split_operand(right);
        if (ts_node_is_null(operand) && is_type(fn, "identifier")) operand = right;
        if (!ts_node_is_null(operand))
          for_each_named_child(left, [&](TSNode c) {
            if (is_type(c, "identifier")) assigned[m_.text_of(c)].push_back(operand);
          });
      }
    } else if (t == "return_statement") {
      if (ts_node_named_child_count(n) > 0) returned.push_back(ts_node_named_child(n, 0));
    } else if (t == "augmented_assignment") {
      TSNode left = field(n, "left"), right = field(n, "right");
      if (is_type(left, "identifier") && !ts_node_is_null(right)) updated[m_.text_of(left)].push_back(right);
    } else if (t == "call") {
      std::string name = op_name(n);
      bool matched = false;
      for (const auto& op : kPointerOps) {
        if (name != op.name) continue;
        TSNode address = argument(n, 0);
        if (ts_node_is_null(address)) address = keyword(n, op.keyword, m_);
        if (!ts_node_is_null(address)) ops.push_back({name, n, address});
        matched = true;
      }
      if (!matched && is_type(field(n, "function"), "identifier")) calls.push_back(n);
    } else if (t == "attribute") {
      std::string attr = m_.text_of(field(n, "attribute"));
      if (attr == "dtype" || attr == "element_ty") dtype_reads.push_back(n);
    }
    uint32_t count = ts_node_named_child_count(n);
    for (uint32_t i = count; i > 0; --i) stack.push_back(ts_node_named_child(n, i - 1));
  }

  // The assignments of `name` whose value can be the one read at byte `use`: those before it that
  // no later assignment in the same block replaces first (`ptr = scales_ptrs + g; s = tl.load(ptr);
  // ptr = zeros_ptrs + g; z = tl.load(ptr)` loads zeros from zeros_ptr only), branches kept apart.
  // Read before any of them (a loop-carried value): all of them.
  auto enclosing_block = [&](TSNode n) {
    for (TSNode up = ts_node_parent(n); !ts_node_is_null(up); up = ts_node_parent(up))
      if (is_type(up, "block")) return up;
    return body;
  };
  auto reaching = [&](const std::vector<TSNode>& rhss, uint32_t use) {
    std::vector<TSNode> out;
    // A name is bound once its value is computed: a use inside the value (`p = (p + offs)`) reads
    // the binding before it, not this one.
    for (TSNode a : rhss) {
      uint32_t at = ts_node_end_byte(a);
      if (at > use) continue;
      bool replaced = false;
      for (TSNode b : rhss) {
        uint32_t bt = ts_node_end_byte(b);
        if (bt <= at || bt > use) continue;
        TSNode block = enclosing_block(b);
        uint32_t a_start = ts_node_start_byte(a);
        replaced = replaced || (a_start >= ts_node_start_byte(block) && a_start < ts_node_end_byte(block));
      }
      if (!replaced) out.push_back(a);
    }
    if (!out.empty()) return out;
    // Read before any of them: a loop-carried value, any of them but the one being computed from
    // it (`x = tl.load(x)` loads through the parameter, not through what it loaded). Only those a
    // loop around the read binds carry into it: a read outside every such loop sees what the
    // name held first (`k += offs` on the pointer before `k = tl.load(k_ptrs)` rebinds it).
    auto carried = [&](TSNode a) {
      for (TSNode up = ts_node_parent(a); !ts_node_is_null(up) && !ts_node_eq(up, body); up = ts_node_parent(up))
        if ((is_type(up, "for_statement") || is_type(up, "while_statement")) && ts_node_start_byte(up) <= use &&
            use < ts_node_end_byte(up))
          return true;
      return false;
    };
    for (TSNode a : rhss)
      if ((use < ts_node_start_byte(a) || use >= ts_node_end_byte(a)) && carried(a)) out.push_back(a);
    return out;
  };
  // The module function a call reaches by its bare name, if any.
  auto helper_of = [&](TSNode call) -> const FunctionSite* {
    TSNode fn = field(call, "function");
    if (!is_type(fn, "identifier")) return nullptr;
    std::string callee = m_.text_of(fn);
    const FunctionSite* helper = nullptr;
    for (const auto& f : m_.functions())
      if (f.statement && f.name == callee && f.qualname != function.qualname) helper = &f;
    return helper;
  };
  // The parameters an address expression is based on: the left of `+`/`-` chains, through
  // subscripts, casts, local aliases (`x_ptrs = x_ptr + offs`) and module functions returning
  // offsets of what they are handed.
  std::function<void(TSNode, std::set<std::string>&, std::set<std::string>&, int)> bases =
      [&](TSNode e, std::set<std::string>& found, std::set<std::string>& seen, int depth) {
        if (ts_node_is_null(e) || depth > 64) return;
        std::string_view t = node_type(e);
        if (t == "identifier") {
          std::string name = m_.text_of(e);
          if (param_set.count(name)) found.insert(name);
          if (!seen.insert(name + "@" + std::to_string(ts_node_start_byte(e))).second) return;
          auto it = assigned.find(name);
          if (it != assigned.end())
            for (TSNode rhs : reaching(it->second, ts_node_start_byte(e))) bases(rhs, found, seen, depth + 1);
        } else if (t == "parenthesized_expression") {
          bases(ts_node_named_child(e, 0), found, seen, depth + 1);
        } else if (t == "binary_operator") {
          std::string op = m_.text_of(field(e, "operator"));
          if (op != "+" && op != "-") return;
          bases(field(e, "left"), found, seen, depth + 1);
          TSNode right = field(e, "right");
          if (op == "+" && is_type(right, "identifier") &&
              (ends_with(m_.text_of(right), "_ptr") || ends_with(m_.text_of(right), "_pointer")))
            bases(right, found, seen, depth + 1);
        } else if (t == "subscript") {
          bases(field(e, "value"), found, seen, depth + 1);
        } else if (t == "conditional_expression") {
          bases(ts_node_named_child(e, 0), found, seen, depth + 1);
          bases(ts_node_named_child(e, 2), found, seen, depth + 1);
        } else if (t == "call") {
          TSNode fn = field(e, "function");
          std::string name = op_name(e);
          if (name == "advance" || name == "multiple_of" || name == "max_contiguous" || name == "max_constancy")
            bases(argument(e, 0), found, seen, depth + 1);
          else if (name == "make_block_ptr") {  // a block pointer reads and writes its base's elements
            TSNode base = argument(e, 0);
            bases(ts_node_is_null(base) ? keyword(e, "base", m_) : base, found, seen, depth + 1);
          }
          else if (name == "where") {  // `p = tl.where(i == 0, ptr0, ptr1)`: either may be the base
            bases(argument(e, 1), found, seen, depth + 1);
            bases(argument(e, 2), found, seen, depth + 1);
          }
          else if (is_type(fn, "attribute") && m_.text_of(field(fn, "attribute")) == "to")
            bases(field(fn, "object"), found, seen, depth + 1);
          else if (name == "cast")  // `tl.cast(dst, tl.pointer_type(tl.uint32))`, as `.to` is
            bases(argument(e, 0), found, seen, depth + 1);
          else if (const FunctionSite* helper = name.empty() ? helper_of(e) : nullptr) {
            const PointerFacts& hf = facts(*helper);
            if (!hf.returned_bases.empty())
              for_each_call_argument(m_, e, helper->definition, [&](const std::string& target, TSNode value) {
                if (hf.returned_bases.count(target)) bases(value, found, seen, depth + 1);
              });
          }
        }
      };
  auto bases_of = [&](TSNode e) {
    std::set<std::string> found, seen;
    bases(e, found, seen, 0);
    return found;
  };
  // The values a return statement returns, one per position of a returned tuple.
  auto returned_values = [&](TSNode r) {
    std::vector<TSNode> values{r};
    if (is_type(r, "expression_list") || is_type(r, "tuple") || is_type(r, "parenthesized_expression")) {
      values.clear();
      for_each_named_child(r, [&](TSNode c) { values.push_back(c); });
    }
    return values;
  };
  for (TSNode r : returned) {
    // A parameter rebound before it is returned (`x = tl.load(x)`) returns what it was bound to.
    for (TSNode v : returned_values(r))
      for (const auto& p : bases_of(v))
        if (!assigned.count(p)) out.returned_bases.insert(p);
  }
  auto note = [&](const std::string& p, const std::string& why) {
    if (out.pointers.insert(p).second) out.evidence[p] = why;
  };
  auto set_dtype = [&](const std::string& p, const std::string& dtype, const std::string& why) {
    if (dtype.empty() || out.dtypes.count(p)) return;
    out.dtypes[p] = dtype;
    out.evidence[p] += "; " + why;
  };
  // Floating elements of no stated width (PointerFacts::width_unstated).
  auto set_floating = [&](const std::string& p, const std::string& why) {
    if (out.dtypes.count(p)) return;
    out.width_unstated.insert(p);
    set_dtype(p, "fp32", why);
  };
  // `.to(tl.X)` applied to `e`, directly or via a local assigned once from such a cast.
  // `x.to(...)`: a conversion (or a bitcast) of a value.
  auto is_to_call = [&](TSNode e) {
    return is_type(e, "call") && is_type(field(e, "function"), "attribute") &&
           m_.text_of(field(field(e, "function"), "attribute")) == "to";
  };
  auto cast_type = [&](TSNode e) -> std::string {
    for (int hop = 0; hop < 2 && !ts_node_is_null(e); ++hop) {
      if (is_type(e, "call")) {
        if (is_to_call(e)) {
          TSNode target = argument(e, 0);
          if (ts_node_is_null(target)) return "";
          auto q = m_.qualified_name(target);
          return triton_dtype(q ? *q : m_.text_of(target));
        }
        return "";
      }
      if (!is_type(e, "identifier")) return "";
      auto it = assigned.find(m_.text_of(e));
      if (it == assigned.end() || it->second.size() != 1) return "";
      e = it->second[0];
    }
    return "";
  };

  // Pointers by what the body does with them: an op's address. (`x.dtype`, noted below, is read
  // of values as well: `m_i = m_ij.to(m_i.dtype)` in a helper handed running maxima.)
  std::set<std::string> addressed;
  for (const auto& op : ops)
    for (const auto& p : bases_of(op.address)) {
      note(p, "tl." + op.name + " address");
      addressed.insert(p);
      out.addressed.insert(p);
    }
  for (TSNode a : dtype_reads) {
    TSNode object = field(a, "object");
    std::string attr = m_.text_of(field(a, "attribute"));
    if (attr == "element_ty" && is_type(object, "attribute")) object = field(object, "object");
    for (const auto& p : bases_of(object)) note(p, "." + attr + " read");
  }
  // The address a load (or an atomic) reads, and the loads whose value an operand is (the load
  // itself, or the assignments of a local that reach it).
  auto address_of = [&](TSNode op) {
    TSNode address = argument(op, 0);
    return ts_node_is_null(address) ? keyword(op, "pointer", m_) : address;
  };
  // `tl.trans(k)`, `k.T`, `tl.reshape(k, ...)`: the same elements, another layout.
  auto unwrap_layout = [&](TSNode operand) {
    for (int hops = 0; hops < 4; ++hops) {
      if (is_type(operand, "attribute") && m_.text_of(field(operand, "attribute")) == "T") {
        operand = field(operand, "object");
      } else if (is_type(operand, "call")) {
        std::string name = op_name(operand);
        TSNode fn = field(operand, "function");
        std::string method = is_type(fn, "attribute") ? m_.text_of(field(fn, "attribute")) : "";
        static const std::set<std::string> kLayout = {"trans",        "permute",      "reshape", "view",
                                                      "expand_dims", "broadcast_to", "ravel",   "flip"};
        if (kLayout.count(name) && !ts_node_is_null(argument(operand, 0))) operand = argument(operand, 0);
        else if (name.empty() && kLayout.count(method))
          operand = field(fn, "object");
        else break;
      } else {
        break;
      }
    }
    return operand;
  };
  // Through a local rebound to another layout of itself (`bits = tl.reshape(bits, [T, B])`), a
  // few bindings deep.
  auto loads_of = [&](TSNode operand) {
    std::vector<TSNode> found;
    std::set<uint32_t> seen;
    std::function<void(TSNode, int)> visit = [&](TSNode x, int depth) {
      if (is_type(x, "call") && op_name(x) == "load") {
        found.push_back(x);
        return;
      }
      if (!is_type(x, "identifier") || depth > 3) return;
      auto it = assigned.find(m_.text_of(x));
      if (it == assigned.end()) return;
      for (TSNode rhs : reaching(it->second, ts_node_start_byte(x))) {
        if (!seen.insert(ts_node_start_byte(rhs)).second) continue;
        if (is_type(rhs, "call") && op_name(rhs) == "load") found.push_back(rhs);
        else if (depth < 3) {
          TSNode inner = unwrap_layout(rhs);
          if (!ts_node_eq(inner, rhs) && is_type(inner, "identifier")) visit(inner, depth + 1);
        }
      }
    };
    visit(operand, 0);
    return found;
  };
  // Each call of the Triton op `name` in the body.
  auto for_each_op = [&](const std::string& name, const std::function<void(TSNode)>& visit) {
    for_each_call(body, [&](TSNode n) {
      if (op_name(n) == name) visit(n);
    });
  };
  // The kernel states its element types itself: `tl.static_assert(b.dtype == tl.int8)` after
  // `b = tl.load(b_ptrs)`, `tl.static_assert(x_ptr.dtype.element_ty == tl.bfloat16)`. Before
  // every other dtype rule, which only guess.
  // Each comparison a static assert requires: both sides of an `and`, the first type an `or`
  // allows (`w_type == tl.uint8 or w_type == tl.float8e4nv`).
  std::function<void(TSNode, std::vector<TSNode>&)> required = [&](TSNode c, std::vector<TSNode>& into) {
    if (ts_node_is_null(c) || into.size() > 8) return;
    if (is_type(c, "parenthesized_expression") && ts_node_named_child_count(c) == 1) {
      required(ts_node_named_child(c, 0), into);
    } else if (is_type(c, "boolean_operator")) {
      std::string op = m_.text_of(field(c, "operator"));
      required(field(c, "left"), into);
      if (op == "and") required(field(c, "right"), into);
    } else if (is_type(c, "comparison_operator")) {
      into.push_back(c);
    }
  };
  // `mx_dtype: tl.constexpr = mx_ptr.dtype.element_ty`, then `mx_dtype == tl.uint8`: the type read.
  auto type_read = [&](TSNode side) {
    if (!is_type(side, "identifier") || param_set.count(m_.text_of(side))) return side;
    auto it = assigned.find(m_.text_of(side));
    if (it == assigned.end()) return side;
    std::vector<TSNode> values = reaching(it->second, ts_node_start_byte(side));
    if (values.size() != 1 || !is_type(values[0], "attribute")) return side;
    std::string attr = m_.text_of(field(values[0], "attribute"));
    return attr == "dtype" || attr == "element_ty" ? values[0] : side;
  };
  auto stated_by = [&](TSNode cond) {
    if (ts_node_named_child_count(cond) != 2 || m_.text_of(cond).find("==") == std::string::npos) return;
    TSNode l = type_read(ts_node_named_child(cond, 0)), r = type_read(ts_node_named_child(cond, 1));
    if (!is_type(l, "attribute")) std::swap(l, r);
    if (!is_type(l, "attribute")) return;
    std::string attr = m_.text_of(field(l, "attribute"));
    TSNode object = field(l, "object");
    bool parameter = is_type(object, "identifier") && param_set.count(m_.text_of(object));
    // `tl.static_assert(x_ptr.dtype == tl.pointer_type(tl.int8))`: a pointer to those elements.
    if (auto pq = is_type(r, "call") ? m_.qualified_name(field(r, "function")) : std::nullopt;
        pq && ends_with(*pq, "pointer_type")) {
      auto e = ts_node_is_null(argument(r, 0)) ? std::nullopt : m_.qualified_name(argument(r, 0));
      std::string element = e ? triton_dtype(*e) : "";
      if (attr == "dtype" && parameter && !element.empty()) {
        note(m_.text_of(object), "tl.static_assert on its pointer type");
        set_dtype(m_.text_of(object), element, "tl.static_assert on its pointer type");
      }
      return;
    }
    auto q = m_.qualified_name(r);
    std::string dtype = triton_dtype(q ? *q : m_.text_of(r));
    if (dtype.empty()) return;
    // `tl.static_assert(addr.dtype == tl.int64)` of a parameter no load binds: its own type. In a
    // helper (`def vpopc(x): tl.static_assert(x.dtype == tl.uint32)`), that of the values a caller
    // loads and hands it.
    if (attr == "dtype" && parameter && loads_of(object).empty()) {
      out.asserted_scalars[m_.text_of(object)] = dtype;
      out.value_dtypes.emplace(m_.text_of(object), dtype);
      return;
    }
    if (attr == "element_ty" && is_type(object, "attribute") && m_.text_of(field(object, "attribute")) == "dtype") {
      for (const auto& p : bases_of(field(object, "object"))) set_dtype(p, dtype, "tl.static_assert on its element type");
    } else if (attr == "dtype" && is_type(object, "identifier")) {
      for (TSNode load : loads_of(object))
        for (const auto& p : bases_of(address_of(load))) set_dtype(p, dtype, "tl.static_assert on the loaded values' type");
    }
  };
  for_each_op("static_assert", [&](TSNode n) {
    std::vector<TSNode> comparisons;
    required(argument(n, 0), comparisons);
    for (TSNode cond : comparisons) stated_by(cond);
  });
  // `tl.dot_scaled(a, a_scale, "e2m1", b, b_scale, "e4m3", acc)`: Triton checks each operand
  // against its format (e2m1 packs two values in a uint8) and the scales are e8m0 bytes. A
  // format parameter states nothing here.
  for_each_op("dot_scaled", [&](TSNode n) {
    static const std::map<std::string, std::string> kFormat = {
        {"e2m1", "u8"}, {"e2m3", "u8"}, {"e3m2", "u8"}, {"e4m3", "fp8e4nv"}, {"e5m2", "fp8e5"}, {"bf16", "bf16"}, {"fp16", "fp16"}};
    const char* keywords[2][3] = {{"lhs", "lhs_scale", "lhs_format"}, {"rhs", "rhs_scale", "rhs_format"}};
    for (int side = 0; side < 2; ++side) {
      auto arg = [&](int i) {
        TSNode a = keyword(n, keywords[side][i], m_);
        return ts_node_is_null(a) ? argument(n, side * 3 + i) : a;
      };
      TSNode format = arg(2);
      // `b_dtype: tl.constexpr = "e4m3"` under branches: the first format bound, the branch the
      // other first-branch rules (element types, selectors) take too.
      if (!ts_node_is_null(format) && is_type(format, "identifier")) {
        auto bound = assigned.find(m_.text_of(format));
        TSNode first{};
        if (bound != assigned.end())
          for (TSNode rhs : bound->second)
            if (is_type(rhs, "string") && (ts_node_is_null(first) || ts_node_start_byte(rhs) < ts_node_start_byte(first))) first = rhs;
        format = first;
      }
      std::string text = ts_node_is_null(format) || !is_type(format, "string") ? "" : m_.text_of(format);
      if (text.size() < 2) continue;
      auto dtype = kFormat.find(text.substr(1, text.size() - 2));
      if (dtype == kFormat.end()) continue;
      const std::pair<TSNode, std::string> operands[2] = {{arg(0), dtype->second}, {arg(1), "u8"}};
      const std::string why[2] = {"tl.dot_scaled operand in format " + text, "tl.dot_scaled scale (e8m0 bytes)"};
      for (int i = 0; i < 2; ++i) {
        TSNode operand = unwrap_layout(operands[i].first);
        for (TSNode load : loads_of(operand))
          for (const auto& p : bases_of(address_of(load))) set_dtype(p, operands[i].second, why[i]);
        // An operand the helper is handed (`q` loaded by the kernel that calls it).
        if (!is_type(operand, "identifier")) continue;
        std::string name = m_.text_of(operand);
        if (param_set.count(name) && !assigned.count(name)) out.value_dtypes.emplace(name, operands[i].second);
      }
    }
  });

  // Flags that switch a parameter between pointer and value: the pointer branch is the one a
  // launch with a pointer argument can compile.
  {
    auto inside = [](TSNode inner, TSNode outer) {
      return !ts_node_is_null(outer) && ts_node_start_byte(inner) >= ts_node_start_byte(outer) &&
             ts_node_end_byte(inner) <= ts_node_end_byte(outer);
    };
    auto pointer_params_in = [&](TSNode block) {
      std::set<std::string> found;
      for (const auto& op : ops)
        if (inside(op.call, block))
          for (const auto& p : bases_of(op.address)) found.insert(p);
      return found;
    };
    auto value_params_in = [&](TSNode block, const std::set<std::string>& pointers) {
      std::set<std::string> found;
      std::vector<TSNode> work{block};
      while (!work.empty()) {
        TSNode x = work.back();
        work.pop_back();
        if (is_type(x, "call") && !op_name(x).empty() && op_name(x) != "where" && op_name(x) != "minimum" &&
            op_name(x) != "maximum")
          continue;  // operands of Triton ops: loads and stores are pointer uses, the rest typed there
        if (is_type(x, "identifier") && param_set.count(m_.text_of(x)) && !pointers.count(m_.text_of(x)))
          found.insert(m_.text_of(x));
        for_each_named_child(x, [&](TSNode c) { work.push_back(c); });
      }
      return found;
    };
    std::vector<TSNode> walk{body};
    size_t steps = 0;
    while (!walk.empty() && ++steps < 200000) {
      TSNode n = walk.back();
      walk.pop_back();
      for_each_named_child(n, [&](TSNode c) { walk.push_back(c); });
      if (!is_type(n, "if_statement")) continue;
      TSNode condition = field(n, "condition");
      bool negated = false;
      while (is_type(condition, "not_operator") || is_type(condition, "parenthesized_expression")) {
        if (is_type(condition, "not_operator")) negated = !negated;
        condition = is_type(condition, "not_operator") ? field(condition, "argument") : ts_node_named_child(condition, 0);
      }
      TSNode alternative = field(n, "alternative");
      if (!is_type(condition, "identifier") || !is_type(alternative, "else_clause")) continue;
      std::string flag = m_.text_of(condition);
      if (!param_set.count(flag)) continue;
      TSNode then_block = field(n, "consequence"), else_block = field(alternative, "body");
      std::set<std::string> then_ptr = pointer_params_in(then_block), else_ptr = pointer_params_in(else_block);
      std::set<std::string> then_val = value_params_in(then_block, then_ptr), else_val = value_params_in(else_block, else_ptr);
      auto meets = [](const std::set<std::string>& a, const std::set<std::string>& b) {
        for (const auto& x : a)
          if (b.count(x)) return true;
        return false;
      };
      if (meets(then_ptr, else_val)) out.pointer_branch_flags.emplace(flag, !negated);
      else if (meets(else_ptr, then_val)) out.pointer_branch_flags.emplace(flag, negated);
    }
  }

  // Calls of the module's own functions, with the function each one reaches (resolved once: the
  // pointer and the integer evidence below both read them).
  std::vector<std::pair<TSNode, const FunctionSite*>> helper_calls;
  for (TSNode call : calls)
    if (const FunctionSite* helper = helper_of(call)) helper_calls.emplace_back(call, helper);
  // Helpers: a pointer handed to a module function that uses it as one.
  for (const auto& [call, helper] : helper_calls) {
    std::string callee = helper->name;
    const PointerFacts& hf = facts(*helper);
    for_each_call_argument(m_, call, helper->definition, [&](const std::string& target, TSNode value) {
      if (!hf.pointers.count(target)) return;
      for (const auto& p : bases_of(value)) {
        note(p, "passed to " + callee + "(" + target + ")");
        if (hf.addressed.count(target)) out.addressed.insert(p);
        auto d = hf.dtypes.find(target);
        // The helper's float `other=` fill says as little of the width here as there.
        if (d != hf.dtypes.end() && hf.width_unstated.count(target) && !out.dtypes.count(p))
          out.width_unstated.insert(p);
        if (d != hf.dtypes.end()) set_dtype(p, d->second, "as in " + callee);
        if (hf.pointer_tables.count(target)) out.pointer_tables.insert(p);
      }
    });
    // A loaded value handed where the helper fixes its type, or this function's own parameter
    // handed on (the caller's loads have that type then).
    for_each_call_argument(m_, call, helper->definition, [&](const std::string& target, TSNode value) {
      auto d = hf.value_dtypes.find(target);
      if (d == hf.value_dtypes.end()) return;
      for (TSNode load : loads_of(value))
        for (const auto& p : bases_of(address_of(load))) set_dtype(p, d->second, "as in " + callee + " (" + target + ")");
      if (is_type(value, "identifier") && param_set.count(m_.text_of(value)) && !assigned.count(m_.text_of(value)))
        out.value_dtypes.emplace(m_.text_of(value), d->second);
    });
  }

  // A fact of a helper's parameter is one of the parameter handed to it as it is (`helper(x, N)`).
  auto through_helpers = [&](std::set<std::string> PointerFacts::*fact) {
    for (const auto& [call, helper] : helper_calls) {
      const std::set<std::string>& of_helper = facts(*helper).*fact;
      for_each_call_argument(m_, call, helper->definition, [&](const std::string& target, TSNode value) {
        if (of_helper.count(target) && is_type(value, "identifier") && param_set.count(m_.text_of(value)))
          (out.*fact).insert(m_.text_of(value));
      });
    }
  };
  // Sizes of a tl.arange, here or in a helper (`load_tokens(Q, ..., HID)` ranging over
  // `tl.arange(0, HID)`): powers of two, tile-sized.
  for (const auto& name : arange_bounds(m_, body))
    if (param_set.count(name)) out.arange_bounds.insert(name);
  through_helpers(&PointerFacts::arange_bounds);

  // Numbers: `o_w < W`, `i_n * D * W`, `while i < seq_num`. Not equality: `act == "relu"` holds
  // for strings, and a None there is a mode the kernel tests.
  for_each_node(body, [&](TSNode n) {
    bool numeric = false;
    if (is_type(n, "binary_operator")) {
      numeric = true;
    } else if (is_type(n, "comparison_operator")) {
      numeric = true;
      for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
        TSNode c = ts_node_child(n, i);
        if (ts_node_is_named(c)) continue;
        std::string op = m_.text_of(c);
        numeric = numeric && (op == "<" || op == "<=" || op == ">" || op == ">=");
      }
    }
    if (!numeric) return;
    for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "identifier") && param_set.count(m_.text_of(c))) out.numeric_params.insert(m_.text_of(c));
    });
  });
  through_helpers(&PointerFacts::numeric_params);
  // `if cu_seqlens is None:`: the kernel has a path for the parameter left out.
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "comparison_operator")) return;
    bool against_none = false, identity = false;
    for (uint32_t i = 0; i < ts_node_child_count(n); ++i) {
      TSNode c = ts_node_child(n, i);
      if (is_type(c, "none")) against_none = true;
      std::string op = ts_node_is_named(c) ? "" : m_.text_of(c);
      if (op.rfind("is", 0) == 0 || op == "==" || op == "!=") identity = true;
    }
    if (!against_none || !identity) return;
    for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "identifier") && param_set.count(m_.text_of(c))) out.none_guarded.insert(m_.text_of(c));
    });
  });

  // What a store writes: `tl.store(p, v)` or `tl.store(p, value=v)`; null for other ops.
  auto stored_value = [&](const Op& op) {
    if (op.name != "store") return TSNode{};
    TSNode value = argument(op.call, 1);
    return ts_node_is_null(value) ? keyword(op.call, "value", m_) : value;
  };
  // Element types, strongest evidence first: a cast of the stored value names the type exactly.
  for (const auto& op : ops) {
    if (op.name != "store") continue;
    TSNode value = stored_value(op);
    std::string dtype = cast_type(value);
    for (const auto& p : bases_of(op.address)) set_dtype(p, dtype, "stored value cast to " + dtype);
    auto copied_from = [&](TSNode load) {
      for (const auto& dst : bases_of(op.address))
        for (const auto& src : bases_of(address_of(load)))
          if (dst != src) out.copies.emplace_back(dst, src);
    };
    // Stored as loaded (`idx = tl.load(t_ptrs)` then `tl.store(p_ptrs, idx)`): a copy, one type.
    for (TSNode load : loads_of(value)) copied_from(load);
    // Stored converted to another load's type (`partial_dw = acc.to(w.dtype)` after `w =
    // tl.load(W + cols)`, a layout change or two later): the two buffers hold one type.
    TSNode converted = value;
    for (int hop = 0; hop < 4 && !ts_node_is_null(converted); ++hop) {
      converted = unwrap_layout(converted);
      if (!is_type(converted, "identifier")) break;
      auto it = assigned.find(m_.text_of(converted));
      if (it == assigned.end() || it->second.size() > 2) break;
      // The binding that converts, of at most two (`x = x.to(w.dtype)` then `x = tl.reshape(x, ...)`).
      TSNode next{};
      for (TSNode rhs : it->second)
        if (ts_node_is_null(next) || is_to_call(rhs)) next = rhs;
      if (ts_node_eq(next, converted)) break;
      converted = next;
    }
    if (is_to_call(converted)) {
      TSNode target = argument(converted, 0);
      if (is_type(target, "attribute") && m_.text_of(field(target, "attribute")) == "dtype")
        for (TSNode load : loads_of(field(target, "object"))) copied_from(load);
    }
  }
  // `x.to(tl.float8e4nv, bitcast=True)` (or `x.cast(...)`, `tl.cast(x, ...)`) of loaded values:
  // Triton bitcasts only between types of one width, so the elements are that wide (a byte buffer
  // read as fp8). Narrow widths only: the fp32 assumed for want of evidence is already 32 bits wide.
  for_each_call(body, [&](TSNode n) {
    TSNode fn = field(n, "function");
    TSNode bitcast = keyword(n, "bitcast", m_);
    if (!is_type(fn, "attribute") || ts_node_is_null(bitcast) || m_.text_of(bitcast) != "True") return;
    std::string method = m_.text_of(field(fn, "attribute"));
    bool function_form = method == "cast" && op_name(n) == "cast";  // `tl.cast(x, dtype, ...)`
    if (method != "to" && method != "cast") return;
    TSNode value = function_form ? argument(n, 0) : field(fn, "object");
    TSNode target = argument(n, function_form ? 1 : 0);
    if (ts_node_is_null(target)) target = keyword(n, "dtype", m_);
    if (ts_node_is_null(target)) return;
    auto q = m_.qualified_name(target);
    std::string dtype = triton_dtype(q ? *q : m_.text_of(target));
    bool byte = dtype.rfind("fp8", 0) == 0 || dtype == "i8" || dtype == "u8";
    bool half = dtype == "fp16" || dtype == "bf16" || dtype == "i16" || dtype == "u16";
    if (!byte && !half) return;
    // Under a mode flag (`if USE_FP8: k = k.to(tl.float8e5, bitcast=True)`) the bitcast is one
    // path, and the elements are as wide as the other path's use of them.
    for (TSNode up = ts_node_parent(n); !ts_node_is_null(up) && !ts_node_eq(up, body); up = ts_node_parent(up)) {
      if (!is_type(up, "if_statement") && !is_type(up, "elif_clause")) continue;
      TSNode cond = tested_expression(field(up, "condition"));
      if (is_type(cond, "identifier") && param_set.count(m_.text_of(cond))) return;
    }
    // Through ops that only move elements: `tl.reshape(vu, (C, D)).to(tl.float8e4nv, bitcast=True)`.
    for (TSNode load : loads_of(unwrap_layout(value)))
      for (const auto& p : bases_of(address_of(load)))
        set_dtype(p, byte ? "u8" : "i16", "loaded values bitcast to " + dtype);
  });
  // `tl.inline_asm_elementwise(asm, "=r,r", args=[packed], dtype=..., is_pure=True, pack=4)`: pack
  // elements of each argument share one 32-bit register, so loaded arguments are 32/pack bits
  // wide (a uint8 buffer of fp4 pairs unpacked four bytes at a time).
  for_each_op("inline_asm_elementwise", [&](TSNode n) {
    TSNode pack = keyword(n, "pack", m_);
    if (ts_node_is_null(pack)) pack = argument(n, 5);
    TSNode constraints = keyword(n, "constraints", m_);
    if (ts_node_is_null(constraints)) constraints = argument(n, 1);
    std::string p = ts_node_is_null(pack) ? "" : m_.text_of(pack);
    if ((p != "2" && p != "4") || ts_node_is_null(constraints) || m_.text_of(constraints).find('r') == std::string::npos)
      return;
    TSNode args = keyword(n, "args", m_);
    if (ts_node_is_null(args)) args = argument(n, 2);
    if (!is_type(args, "list") && !is_type(args, "tuple")) return;
    for_each_named_child(args, [&](TSNode a) {
      for (TSNode load : loads_of(a))
        for (const auto& base : bases_of(address_of(load)))
          set_dtype(base, p == "4" ? "u8" : "i16", "loaded values packed " + p + " to a register of inline assembly");
    });
  });
  // The type a Triton op makes values of: `tl.zeros(shape, dtype=tl.int32)`, `tl.full(shape, 0,
  // tl.int64)`, `tl.cast(pid, tl.int64)`.
  auto made_type = [&](TSNode e) -> std::string {
    if (!is_type(e, "call")) return "";
    std::string name = op_name(e);
    if (name != "cast" && name != "zeros" && name != "full") return "";
    TSNode target = keyword(e, "dtype", m_);
    if (ts_node_is_null(target)) target = argument(e, name == "full" ? 2 : 1);
    if (ts_node_is_null(target)) return "";
    auto q = m_.qualified_name(target);
    return triton_dtype(q ? *q : m_.text_of(target));
  };
  // An integer literal outside int32 is an int64 constant to Triton, as in
  // `tl.where(mask, pos, 99999999999)`: the code compiles only if the other branch is as wide.
  auto wide_literal = [&](TSNode e) {
    TSNode literal = is_type(e, "unary_operator") ? field(e, "argument") : e;
    if (!is_type(literal, "integer")) return false;
    std::string digits;
    for (char c : m_.text_of(literal))
      if (c != '_') digits += c;
    if (digits.size() > 2 && digits[0] == '0' && std::isalpha(static_cast<unsigned char>(digits[1]))) return false;
    return digits.size() > 10 || (digits.size() == 10 && digits > "2147483647");
  };
  // The type a branch states: `x.to(tl.int64)`, one made as above, or a wide literal's.
  auto stated_type = [&](TSNode e) -> std::string {
    if (wide_literal(e)) return "i64";
    std::string dtype = cast_type(e);
    return dtype.empty() ? made_type(e) : dtype;
  };
  // `tl.store(block_ptr, acc)` of `acc = tl.zeros(..., tl.float16)` (or `x.to(tl.float16)`): a
  // block pointer's store converts nothing, so the base holds elements of the value's type.
  std::function<bool(TSNode, int)> block_pointer = [&](TSNode e, int depth) {
    if (ts_node_is_null(e) || depth > 4) return false;
    if (is_type(e, "call")) return op_name(e) == "make_block_ptr" || op_name(e) == "advance";
    if (!is_type(e, "identifier")) return false;
    auto it = assigned.find(m_.text_of(e));
    if (it == assigned.end()) return false;
    for (TSNode rhs : it->second)
      if (!block_pointer(rhs, depth + 1)) return false;
    return true;
  };
  // What a name assigned once holds (`cmp = tl.full(...)`): that assignment's value; else `e`.
  auto single_value = [&](TSNode e) {
    if (!is_type(e, "identifier")) return e;
    auto it = assigned.find(m_.text_of(e));
    return it != assigned.end() && it->second.size() == 1 ? it->second[0] : e;
  };
  // `tl.atomic_cas(table + slot, cmp, key)` of `cmp = tl.full((B,), empty, dtype=tl.uint32)`: an
  // atomic converts nothing either, so a compared or exchanged value of stated type names the
  // elements.
  for (const auto& op : ops) {
    if (op.name != "atomic_cas" && op.name != "atomic_xchg") continue;
    for (uint32_t i = 1; i <= (op.name == "atomic_cas" ? 2u : 1u); ++i) {
      TSNode value = single_value(argument(op.call, i));
      if (ts_node_is_null(value)) continue;
      std::string dtype = stated_type(value);
      for (const auto& p : bases_of(op.address)) set_dtype(p, dtype, "tl." + op.name + " of a " + dtype + " value");
    }
  }
  for (const auto& op : ops) {
    if (op.name != "store" || !block_pointer(op.address, 0)) continue;
    TSNode value = stored_value(op);
    if (ts_node_is_null(value)) continue;
    std::string dtype = stated_type(value);
    if (dtype.empty()) dtype = made_type(single_value(value));
    if (dtype.empty()) continue;
    for (const auto& p : bases_of(op.address)) set_dtype(p, dtype, "stored through a block pointer as " + dtype);
  }
  // `tl.load(idx + pid) if idx else pid.to(tl.int64)`: a condition Triton cannot decide when it
  // compiles wants both branches of one type, so the loaded elements are the other's type.
  // `tl.where(m, coords, tl.zeros(..., dtype=tl.int64))` picks between two of one kind: integer
  // elements of the width the kernel wrote (floats are promoted there, and say less).
  for_each_node(body, [&](TSNode n) {
    bool ternary = is_type(n, "conditional_expression") && ts_node_named_child_count(n) == 3;
    bool where = !ternary && is_type(n, "call") && op_name(n) == "where";
    if (!ternary && !where) return;
    TSNode branches[2] = {ternary ? ts_node_named_child(n, 0) : argument(n, 1),
                          ternary ? ts_node_named_child(n, 2) : argument(n, 2)};
    if (ts_node_is_null(branches[0]) || ts_node_is_null(branches[1])) return;
    for (int i = 0; i < 2; ++i) {
      std::string dtype = stated_type(branches[1 - i]);
      if (dtype.empty() || (where && !integer_element_type(dtype))) continue;
      for (TSNode load : loads_of(branches[i]))
        for (const auto& p : bases_of(address_of(load)))
          set_dtype(p, dtype, "the other branch of a conditional is " + dtype);
    }
  });
  auto has_float_literal = [&](TSNode e) {
    bool found = false;
    for_each_node(e, [&](TSNode x) { found = found || is_type(x, "float"); });
    return found;
  };
  // A loaded value used inside another address is an index: integer elements.
  std::set<std::string> offset_names;
  std::vector<TSNode> nested_loads;
  // What a name was bound to where it is read, each binding walked once: `x = tl.load(x)` reads
  // memory through the parameter, not through what it loaded. By the value's start byte.
  std::set<uint32_t> expanded;
  {
    std::vector<TSNode> work;
    auto walk_bindings = [&](TSNode name) {
      auto it = assigned.find(m_.text_of(name));
      if (it == assigned.end()) return;
      for (TSNode rhs : reaching(it->second, ts_node_start_byte(name)))
        if (expanded.insert(ts_node_start_byte(rhs)).second) work.push_back(rhs);
    };
    // A bare name as the address is the pointer, not an offset: what it was computed from is
    // walked (`ptrs = base + offs`), the values it holds are not indexes.
    // So is the left of `+`/`-` chains in one (`k + offs`): the pointer moved, whose name a later
    // binding may reuse for what it loads (`k = tl.load(k + offs)`).
    std::function<void(TSNode, int)> address = [&](TSNode a, int depth) {
      if (is_type(a, "identifier")) {
        walk_bindings(a);
      } else if (depth < 16 && is_type(a, "parenthesized_expression")) {
        address(ts_node_named_child(a, 0), depth + 1);
      } else if (depth < 16 && is_type(a, "binary_operator") &&
                 (m_.text_of(field(a, "operator")) == "+" || m_.text_of(field(a, "operator")) == "-")) {
        address(field(a, "left"), depth + 1);
        work.push_back(field(a, "right"));
      } else {
        work.push_back(a);
      }
    };
    for (const auto& op : ops) address(op.address, 0);
    // Triton adds only integers to a pointer, wherever the sum goes (inline assembly, a multimem
    // instruction): `p.to(tl.pointer_type(tl.uint64)) + offs * 2`.
    for_each_node(body, [&](TSNode n) {
      if (!is_type(n, "binary_operator")) return;
      std::string op = m_.text_of(field(n, "operator"));
      if (op != "+" && op != "-") return;
      TSNode left = field(n, "left");
      bool pointer = m_.text_of(left).find("pointer_type(") != std::string::npos;
      for (const auto& b : bases_of(left)) pointer = pointer || addressed.count(b) > 0;
      if (pointer) work.push_back(field(n, "right"));
    });
    // A tensor descriptor's or block pointer's offsets are indexes too: `desc.load([base + s, 0])`,
    // `tl.load_tensor_descriptor(desc, [off, 0])`, `tl.advance(p, (0, step))`, `offsets=(row, 0)`.
    for_each_node(body, [&](TSNode n) {
      if (!is_type(n, "call")) return;
      std::string name = op_name(n);
      TSNode fn = field(n, "function");
      TSNode offsets{};
      if (name.empty() && is_type(fn, "attribute")) {
        std::string method = m_.text_of(field(fn, "attribute"));
        TSNode first = argument(n, 0);
        bool listed = !ts_node_is_null(first) && (is_type(first, "list") || is_type(first, "tuple"));
        if (listed && (method == "load" || method == "store" || method == "gather" || method == "scatter" ||
                       method.rfind("atomic_", 0) == 0))
          offsets = first;
      } else if (name == "load_tensor_descriptor" || name == "store_tensor_descriptor" || name == "advance" ||
                 name == "_experimental_descriptor_load") {
        offsets = argument(n, 1);
      } else if (name == "_experimental_descriptor_store") {  // (desc, value, offsets)
        offsets = argument(n, 2);
      } else if (name == "make_block_ptr") {
        offsets = keyword(n, "offsets", m_);
        if (ts_node_is_null(offsets)) offsets = argument(n, 3);
      }
      if (!ts_node_is_null(offsets)) work.push_back(offsets);
    });
    size_t steps = 0;
    while (!work.empty() && ++steps < 100000) {
      TSNode n = work.back();
      work.pop_back();
      if (is_type(n, "identifier")) {
        offset_names.insert(m_.text_of(n));
        walk_bindings(n);
      }
      if (is_type(n, "call") && op_name(n) == "load") nested_loads.push_back(n);
      // `tl.argmax(x, 1)` is an index whatever x holds.
      if (is_type(n, "call") && (op_name(n) == "argmax" || op_name(n) == "argmin")) continue;
      // `px = tl.floor(sx).to(tl.int32)`: what float-only math reads is a float, whatever
      // integer its result is cast to and indexes with.
      if (is_type(n, "call") && float_only_math(op_name(n))) continue;
      // `tl.maximum(center - support + 0.5, 0).to(tl.int32)`: arithmetic with a float literal is
      // float arithmetic, whatever integer its result is cast to.
      if (is_type(n, "call") && is_type(field(n, "function"), "attribute") &&
          m_.text_of(field(field(n, "function"), "attribute")) == "to" &&
          has_float_literal(field(field(n, "function"), "object")))
        continue;
      // A comparison is boolean whatever its operands hold (`qk_mask = (qk + gap) >= qk_max`).
      if (is_type(n, "comparison_operator")) continue;
      // An atomic returns the old elements at its address (`off = tl.atomic_add(counts, n)`): the
      // index is what that pointer holds, not what is added to it.
      if (is_type(n, "call") && op_name(n).rfind("atomic_", 0) == 0) {
        nested_loads.push_back(n);
        if (!ts_node_is_null(argument(n, 0))) work.push_back(argument(n, 0));
        continue;
      }
      uint32_t count = ts_node_named_child_count(n);
      for (uint32_t i = 0; i < count; ++i) work.push_back(ts_node_named_child(n, i));
    }
  }
  // `tl.load(ptrs + i).to(tl.pointer_type(T))` (or `tl.cast(..., tl.pointer_type(T))`), directly
  // or through a local: the loaded values are addresses (a table of peer or per-layer buffers),
  // so 64-bit integers, and the table is one the check must fill with addresses
  // (pointer_tables). First, before the offsets rules below take the addresses for 32-bit indexes.
  for_each_call(body, [&](TSNode n) {
    TSNode fn = field(n, "function");
    bool to = is_type(fn, "attribute") && m_.text_of(field(fn, "attribute")) == "to";
    if (!to && op_name(n) != "cast") return;
    TSNode target = argument(n, to ? 0 : 1);
    if (ts_node_is_null(target)) target = keyword(n, "dtype", m_);
    auto q = is_type(target, "call") ? m_.qualified_name(field(target, "function")) : std::nullopt;
    if (!q || !ends_with(*q, "pointer_type")) return;
    std::vector<TSNode> sources{to ? field(fn, "object") : argument(n, 0)};
    // `tl.cast(dst_i32, tl.pointer_type(tl.uint32))` of a parameter: a pointer to what it is cast
    // to pointing at (a launcher's int address, `x.data_ptr()`, becomes such a buffer).
    if (is_type(sources[0], "identifier") && param_set.count(m_.text_of(sources[0]))) {
      TSNode element = argument(target, 0);
      auto e = ts_node_is_null(element) ? std::nullopt : m_.qualified_name(element);
      note(m_.text_of(sources[0]), "cast to a pointer type");
      set_dtype(m_.text_of(sources[0]), e ? triton_dtype(*e) : "", "cast to a pointer to its elements");
      if (e && !triton_dtype(*e).empty()) out.cast_addresses.emplace(m_.text_of(sources[0]), triton_dtype(*e));
      return;
    }
    if (is_type(sources[0], "identifier")) {
      std::string local = m_.text_of(sources[0]);
      for_each_node(body, [&](TSNode x) {
        if (is_type(x, "assignment") && m_.text_of(field(x, "left")) == local) sources.push_back(field(x, "right"));
      });
    }
    for (TSNode s : sources)
      for (const auto& op : ops)
        if (op.name == "load" && ts_node_start_byte(op.call) >= ts_node_start_byte(s) &&
            ts_node_end_byte(op.call) <= ts_node_end_byte(s))
          for (const auto& p : bases_of(op.address)) {
            out.pointer_tables.insert(p);
            set_dtype(p, "i64", "loaded values cast to a pointer type");
          }
  });
  auto load_in = [&](TSNode e) -> TSNode {
    for (int hop = 0; hop < 3 && is_type(e, "call"); ++hop) {
      if (op_name(e) == "load") return e;
      TSNode fn = field(e, "function");
      if (!is_type(fn, "attribute")) break;
      e = field(fn, "object");
    }
    return TSNode{};
  };
  // `key *= 0x85ebca6b` on `key = tl.load(keys + offs)`: a hash's constant int32 cannot hold.
  // Triton refuses it against 32-bit signed elements, so the repository's keys are unsigned 32-bit
  // (a constant below 2**32) or 64-bit ones; taken before the plain integer use types them i32.
  {
    auto beyond_int32 = [&](TSNode x) -> std::string {
      if (!is_type(x, "integer")) return "";
      std::string digits;
      for (char c : m_.text_of(x))
        if (c != '_') digits += c;
      errno = 0;
      char* end = nullptr;
      unsigned long long v = std::strtoull(digits.c_str(), &end, 0);
      if (errno != 0 || end == digits.c_str() || *end != '\0') return errno == ERANGE ? "i64" : "";
      return v <= 0x7fffffffULL ? "" : v <= 0xffffffffULL ? "u32" : "i64";
    };
    // The loads whose values reach `operand` uncast: `tl.load(...)` itself, or the loads assigned
    // to the name before this use.
    auto loaded_into = [&](TSNode operand, const std::string& dtype, const std::string& why) {
      if (!cast_type(operand).empty()) return;
      for (TSNode load : loads_of(operand))
        for (const auto& p : bases_of(address_of(load))) set_dtype(p, dtype, why);
    };
    // (operand, constant, type) of each such operation; names shifted by 32 or more bits hold
    // 64-bit values (`lo = packed & 0xFFFFFFFF`, `hi = packed >> 32`).
    std::vector<std::tuple<TSNode, TSNode, std::string>> found;
    std::set<std::string> shifted_wide;
    std::vector<TSNode> walk{body};
    for (size_t steps = 0; !walk.empty() && ++steps < 200000;) {
      TSNode n = walk.back();
      walk.pop_back();
      bool augmented = is_type(n, "augmented_assignment");
      if (augmented || is_type(n, "binary_operator")) {
        TSNode a = field(n, "left"), b = field(n, "right");
        std::string op = m_.text_of(field(n, "operator"));
        if ((op.find(">>") == 0 || op.find("<<") == 0) && is_type(a, "identifier") && is_type(b, "integer") &&
            std::strtoll(m_.text_of(b).c_str(), nullptr, 0) >= 32)
          shifted_wide.insert(m_.text_of(a));
        for (int side = 0; side < 2; ++side, std::swap(a, b)) {
          std::string dtype = beyond_int32(b);
          if (!dtype.empty() && !ts_node_is_null(a)) found.emplace_back(a, b, dtype);
          if (augmented) break;  // the constant is on the right of `key *= C`
        }
      }
      for_each_named_child(n, [&](TSNode c) { walk.push_back(c); });
    }
    for (const auto& [operand, constant, dtype] : found) {
      bool wide = is_type(operand, "identifier") && shifted_wide.count(m_.text_of(operand));
      loaded_into(operand, wide ? "i64" : dtype,
                  "loaded values computed with " + m_.text_of(constant) + ", which int32 cannot hold");
    }
  }
  // An index cast to a wider integer (`tl.load(idx + i).to(tl.int64)`) suggests that type, but
  // only suggests it: Triton accepts the cast from any integer, while a value of the same pointer
  // that seeds a loop-carried `e = 0` must be i32. Such suggestions wait for the rules below.
  std::vector<std::pair<TSNode, std::string>> suggested_index_types;
  for (const auto& [local, rhss] : assigned) {
    if (!offset_names.count(local)) continue;
    for (TSNode rhs : rhss) {
      // Only the bindings an offset reads: `bias = tl.load(bias + offs)` loads through the
      // parameter, whose name the rebinding reuses.
      if (!expanded.count(ts_node_start_byte(rhs))) continue;
      TSNode load = load_in(rhs);
      if (ts_node_is_null(load)) continue;
      std::string dtype = cast_type(rhs);
      if (!dtype.empty() && dtype[0] != 'f' && dtype[0] != 'b') {
        suggested_index_types.emplace_back(load, dtype);
        continue;
      }
      for (const auto& p : bases_of(argument(load, 0))) set_dtype(p, "i32", "loaded values index memory");
    }
  }
  for (TSNode load : nested_loads) {
    bool suggested = false;
    for (const auto& [cast_load, dtype] : suggested_index_types) suggested = suggested || ts_node_eq(cast_load, load);
    if (!suggested)
      for (const auto& p : bases_of(argument(load, 0))) set_dtype(p, "i32", "loaded values index memory");
  }
  // Reductions and scans keep their operand's element type: `total += tl.sum(counts)`.
  // So do the ops that only move elements: `w = tl.interleave(w, w)` before `(w >> shifts) & 0xF`.
  auto integer_preserving = [](const std::string& name) {
    return name == "sum" || name == "cumsum" || name == "max" || name == "min" || name == "xor_sum" ||
           name == "abs" || name == "reshape" || name == "broadcast_to" || name == "ravel" || name == "view" ||
           name == "interleave" || name == "join" || name == "trans" || name == "permute" ||
           name == "expand_dims" || name == "flip" || name == "broadcast";
  };
  // The identifiers an integer result is computed from: operands of arithmetic, of
  // tl.minimum/maximum and the branches of tl.where; not through calls or casts.
  auto arithmetic_operands = [&](TSNode e) {
    std::set<std::string> names;
    std::vector<TSNode> work{e};
    while (!work.empty()) {
      TSNode x = work.back();
      work.pop_back();
      std::string_view t = node_type(x);
      if (t == "identifier") {
        names.insert(m_.text_of(x));
      } else if (t == "binary_operator") {
        std::string op = m_.text_of(field(x, "operator"));
        if (op == "+" || op == "-" || op == "*" || op == "//" || op == "%") {
          work.push_back(field(x, "left"));
          work.push_back(field(x, "right"));
        }
      } else if (t == "parenthesized_expression" || t == "unary_operator") {
        for_each_named_child(x, [&](TSNode c) { work.push_back(c); });
      } else if (t == "subscript") {
        work.push_back(field(x, "value"));  // `qz[None, :]`: the same elements, another shape
      } else if (t == "conditional_expression" && ts_node_named_child_count(x) == 3) {
        // `end = seq_len if not CAUSAL else tl.minimum(...)`: either branch is the value.
        work.push_back(ts_node_named_child(x, 0));
        work.push_back(ts_node_named_child(x, 2));
      } else if (t == "call") {
        std::string name = op_name(x);
        if (name == "minimum" || name == "maximum" || integer_preserving(name)) {
          for_each_named_child(field(x, "arguments"), [&](TSNode c) {
            if (!is_type(c, "keyword_argument")) work.push_back(c);
          });
        } else if (name == "where") {
          TSNode a = argument(x, 1), b = argument(x, 2);
          if (!ts_node_is_null(a)) work.push_back(a);
          if (!ts_node_is_null(b)) work.push_back(b);
        }
      }
    }
    return names;
  };
  // `tl.zeros(shape, dtype=tl.int32)`, `tl.full(shape, 0, dtype=tl.int64)`, `tl.cast(0, dtype=tl.int64)`.
  auto integer_fill = [&](TSNode e) { return integer_element_type(made_type(e)); };
  // A loaded value that only integers can be used as: a loop bound, an operand of `//`, shifts
  // or bitwise operators, or tl.cdiv. Triton rejects all of these on floats, so the guess of
  // fp32 elements would fail to compile a kernel that is fine.
  {
    // The names used as integers, and where: a name rebound later (`zeros = (zeros >> s) & 0xF`
    // then `zeros = (zeros + 1) * scales`) is an integer only up to its last such use, so only the
    // values it held before then (or within a loop around one) are integers too. UINT32_MAX: an
    // integer everywhere.
    std::map<std::string, std::vector<uint32_t>> used_at;
    auto use_as_int = [&](const std::string& name, uint32_t at) {  // true when the use is new
      auto& uses = used_at[name];
      if (std::find(uses.begin(), uses.end(), at) != uses.end()) return false;
      uses.push_back(at);
      return true;
    };
    auto int_used = [&](const std::string& name) { return used_at.count(name) > 0; };
    for (const auto& name : offset_names) use_as_int(name, UINT32_MAX);  // inside another address: an index
    auto collect = [&](TSNode e) {
      std::vector<TSNode> inner{e};
      while (!inner.empty()) {
        TSNode x = inner.back();
        inner.pop_back();
        if (is_type(x, "identifier")) use_as_int(m_.text_of(x), ts_node_start_byte(x));
        if (is_type(x, "call") && op_name(x) == "load") continue;  // a nested load types its own pointer
        // `range(tl.floor(tl.div_rn(start, 128)).to(tl.int32), ...)`: what float-only math reads
        // is a float, whatever integer its result is cast to.
        if (is_type(x, "call") && float_only_math(op_name(x))) continue;
        // `input.shape[1] // 2`: a tensor's shape and type are integers (or types) whatever it holds.
        if (is_type(x, "attribute")) {
          std::string attr = m_.text_of(field(x, "attribute"));
          if (attr == "shape" || attr == "dtype" || attr == "type" || attr == "ndim" || attr == "numel" ||
              attr == "element_ty")
            continue;
        }
        // `mask & (m > -inf)`: a comparison is boolean whatever its operands are.
        if (is_type(x, "comparison_operator") || is_type(x, "boolean_operator") || is_type(x, "not_operator")) continue;
        for_each_named_child(x, [&](TSNode c) { inner.push_back(c); });
      }
    };
    std::vector<TSNode> direct_int_reads;
    std::vector<TSNode> walk{body};
    size_t steps = 0;
    while (!walk.empty() && ++steps < 200000) {
      TSNode n = walk.back();
      walk.pop_back();
      if (is_type(n, "binary_operator")) {
        std::string op = m_.text_of(field(n, "operator"));
        if (op == "//" || op == ">>" || op == "<<" || op == "&" || op == "|" || op == "^") {
          collect(field(n, "left"));
          collect(field(n, "right"));
          // `(tl.load(b_ptrs) >> shifts) & mask`: a load that is itself the operand.
          if (op != "&" && op != "|" && op != "^") direct_int_reads.push_back(field(n, "left"));
        }
      } else if (is_type(n, "augmented_assignment")) {
        // `cos_ptr += pos_id * stride`: an offset added to a pointer is an integer. A pointer an
        // op addresses: a helper's `acc += tl.dot(p, v)` on an accumulator handed to it, whose
        // `.dtype` it reads, adds values, not an offset.
        std::string op = m_.text_of(field(n, "operator"));
        TSNode left = field(n, "left");
        if ((op == "+=" || op == "-=") && is_type(left, "identifier") && param_set.count(m_.text_of(left)) &&
            out.addressed.count(m_.text_of(left)))
          collect(field(n, "right"));
        if (op == "//=" || op == ">>=" || op == "<<=" || op == "&=" || op == "|=" || op == "^=") {
          collect(left);
          collect(field(n, "right"));
        }
      } else if (is_type(n, "call")) {
        TSNode fn = field(n, "function");
        std::string name = op_name(n);
        // `b.__lshift__(4).to(tl.int8).__rshift__(4)`: the operators called by their method names.
        std::string method = is_type(fn, "attribute") ? m_.text_of(field(fn, "attribute")) : "";
        bool shift = method == "__lshift__" || method == "__rshift__" || method == "__floordiv__";
        if (shift || method == "__and__" || method == "__or__" || method == "__xor__") {
          collect(field(fn, "object"));
          collect(field(n, "arguments"));
          if (shift) direct_int_reads.push_back(field(fn, "object"));
        }
        bool loop = (is_type(fn, "identifier") && m_.text_of(fn) == "range") || name == "range" || name == "static_range";
        // `tl.swizzle2d(i, j, size_i, size_j, size_g)` computes with `//` and `%` on all five.
        bool integer_call = name == "cdiv" || name == "swizzle2d";
        if (loop || integer_call) collect(field(n, "arguments"));
        // `tl.histogram(x, BINS)` takes only integers, as do the seed and offsets of Triton's
        // random numbers (`tl.rand(seed, offs)`).
        bool random = name == "rand" || name == "randn" || name == "randint" || name == "randint4x" ||
                      name == "philox";
        // So do the high half of a product (`tl.umulhi(a, b)`) and libdevice's bit counts.
        bool bits = name == "popc" || name == "clz" || name == "ffs" || name == "brev";
        size_t integers = random || name == "umulhi" ? 2u : name == "histogram" || bits ? 1u : 0u;
        // A cast there (`tl.load(seeds + row).to(tl.uint32)`) says the type itself, below.
        for (size_t i = 0; i < integers; ++i)
          if (!ts_node_is_null(argument(n, i)) && cast_type(argument(n, i)).empty()) {
            collect(argument(n, i));
            direct_int_reads.push_back(argument(n, i));
          }
        // `for i in tl.range(tl.load(indptr + b), tl.load(indptr + b + 1))`: Triton takes only
        // integer loop bounds, so the loaded values are integers.
        if (loop || name == "swizzle2d")
          for_each_named_child(field(n, "arguments"), [&](TSNode a) {
            if (!is_type(a, "keyword_argument") && !is_type(a, "comment")) direct_int_reads.push_back(a);
          });
      }
      for_each_named_child(n, [&](TSNode c) { walk.push_back(c); });
    }
    // The loads (and atomics, which return the old element) whose values flow into `e` through
    // arithmetic: `tl.load(c + pid) - repeats`, `tl.atomic_add(loc + e, 1)`.
    auto reads_in = [&](TSNode e) {
      std::vector<TSNode> found, work{e};
      while (!work.empty()) {
        TSNode x = work.back();
        work.pop_back();
        std::string_view t = node_type(x);
        if (t == "call") {
          std::string name = op_name(x);
          if (name == "load" || name.rfind("atomic_", 0) == 0) {
            found.push_back(x);
          } else if (name == "minimum" || name == "maximum" || name == "where" || integer_preserving(name)) {
            for_each_named_child(field(x, "arguments"), [&](TSNode c) { work.push_back(c); });
          } else if (is_type(field(x, "function"), "attribute") &&
                     m_.text_of(field(field(x, "function"), "attribute")) == "to") {
            work.push_back(field(field(x, "function"), "object"));
          }
        } else if (t == "binary_operator" || t == "parenthesized_expression" || t == "unary_operator") {
          for_each_named_child(x, [&](TSNode c) { work.push_back(c); });
        } else if (t == "subscript") {
          work.push_back(field(x, "value"));
        } else if (t == "conditional_expression" && ts_node_named_child_count(x) == 3) {
          work.push_back(ts_node_named_child(x, 0));
          work.push_back(ts_node_named_child(x, 2));
        }
      }
      return found;
    };
    // What each returned value is loaded from, through arithmetic and the locals it is computed
    // from, by position in the returned tuple.
    for (TSNode r : returned) {
      std::vector<TSNode> values = returned_values(r);
      if (out.returned_loads.size() < values.size()) out.returned_loads.resize(values.size());
      for (size_t i = 0; i < values.size(); ++i) {
        std::set<std::string> seen;
        std::vector<TSNode> work{values[i]};
        for (size_t steps = 0; !work.empty() && steps < 256; ++steps) {
          TSNode x = work.back();
          work.pop_back();
          for (TSNode read : reads_in(x))
            for (const auto& p : bases_of(address_of(read))) out.returned_loads[i].insert(p);
          for (const std::string& name : arithmetic_operands(x)) {
            if (!seen.insert(name).second) continue;
            for (const auto* sources : {&assigned, &updated})
              if (auto it = sources->find(name); it != sources->end())
                for (TSNode rhs : it->second)
                  if (cast_type(rhs).empty()) work.push_back(rhs);
          }
        }
      }
    }
    // Values handed to a helper that uses its parameter as an integer (an offset, a bound).
    for (const auto& [call, helper] : helper_calls) {
      const PointerFacts& hf = facts(*helper);
      for_each_call_argument(m_, call, helper->definition, [&](const std::string& target, TSNode value) {
        if (hf.integer_params.count(target))
          for (const std::string& name : arithmetic_operands(value)) use_as_int(name, ts_node_start_byte(value));
      });
    }
    // A local that starts as an integer literal and is updated inside a loop or branch must
    // keep its type there (Triton rejects `total = 0` followed by `total += <float>`), so what
    // it accumulates is integer: `curr_sum = 0; curr_sum += tl.load(counts + i)`.
    for (const auto& [local, rhss] : assigned) {
      bool int_literal = false;
      for (TSNode rhs : rhss) {
        // `last = -1`: a negative literal is a unary minus around an integer.
        TSNode literal = is_type(rhs, "unary_operator") ? field(rhs, "argument") : rhs;
        int_literal = int_literal || is_type(literal, "integer") || integer_fill(rhs);
      }
      if (int_literal && (rhss.size() > 1 || updated.count(local))) use_as_int(local, UINT32_MAX);
    }
    // Whether the value `rhs` gives its local can reach one of the local's integer uses.
    auto reaches_use = [&](const std::string& local, TSNode rhs) {
      uint32_t at = ts_node_start_byte(rhs);
      auto uses = used_at.find(local);
      if (uses == used_at.end()) return false;
      // Another binding of the local that completes after `rhs` and before the use, in a block
      // that holds the use, replaces this value first: `zeros = (zeros + 1) * scales` then, in a
      // loop, `zeros = tl.load(p)` and `(zeros >> s) & 0xF` is no integer use of the product.
      auto rebound_before = [&](uint32_t use) {
        auto again = assigned.find(local);
        if (again == assigned.end()) return false;
        for (TSNode other : again->second) {
          if (ts_node_start_byte(other) <= at || ts_node_end_byte(other) > use) continue;
          // rhs -> assignment -> its statement -> the block holding the statement
          TSNode block = ts_node_parent(ts_node_parent(other));
          if (!ts_node_is_null(block) && is_type(block, "expression_statement")) block = ts_node_parent(block);
          if (!ts_node_is_null(block) && ts_node_start_byte(block) <= use && use < ts_node_end_byte(block)) return true;
        }
        return false;
      };
      // A use inside the value itself (`k = tl.load(k + offs)`) reads the binding before it, as one
      // before it does; in a loop either reads this one from the iteration before.
      uint32_t computed = ts_node_end_byte(rhs);
      for (uint32_t use : uses->second) {
        if (computed <= use) {
          if (use == UINT32_MAX || !rebound_before(use)) return true;
          continue;
        }
        for (TSNode up = ts_node_parent(rhs); !ts_node_is_null(up) && !ts_node_eq(up, body); up = ts_node_parent(up))
          if ((is_type(up, "for_statement") || is_type(up, "while_statement")) && use >= ts_node_start_byte(up) &&
              use < ts_node_end_byte(up)) {
            // Into the next iteration, unless the loop binds the local again before the use.
            bool killed = false;
            auto again = assigned.find(local);
            if (again != assigned.end())
              for (TSNode other : again->second)
                killed = killed || (ts_node_start_byte(other) >= ts_node_start_byte(up) && ts_node_start_byte(other) < use);
            if (!killed) return true;
          }
      }
      return false;
    };
    // Integer use spreads to what the value is computed from: `out_offset = cumsum - repeats`
    // used as an offset makes both operands integers, as does `end = tl.minimum(a, seq_len)`
    // used as a loop bound. A cast stops it: the operand's own type no longer matters.
    for (bool grew = true; grew;) {
      grew = false;
      std::vector<std::string> locals;
      for (const auto& [name, uses] : used_at) locals.push_back(name);
      for (const std::string& local : locals) {
        for (const auto* sources : {&assigned, &updated}) {
          auto it = sources->find(local);
          if (it == sources->end()) continue;
          for (TSNode rhs : it->second) {
            if (!reaches_use(local, rhs)) continue;
            for (const std::string& name : arithmetic_operands(rhs)) grew = use_as_int(name, ts_node_start_byte(rhs)) || grew;
          }
        }
      }
    }
    for (TSNode operand : direct_int_reads)
      for (TSNode read : reads_in(operand))
        for (const auto& p : bases_of(address_of(read))) set_dtype(p, "i32", "loaded values used as integers");
    for (const auto& [local, rhss] : updated) {
      if (!int_used(local)) continue;
      for (TSNode rhs : rhss)
        for (TSNode read : reaches_use(local, rhs) ? reads_in(rhs) : std::vector<TSNode>{})
          for (const auto& p : bases_of(address_of(read))) set_dtype(p, "i32", "loaded values used as integers");
    }
    for (const auto& [local, rhss] : assigned) {
      if (!int_used(local)) continue;
      for (TSNode rhs : rhss) {
        TSNode fn = is_type(rhs, "call") ? field(rhs, "function") : TSNode{};
        if (is_type(fn, "attribute") && m_.text_of(field(fn, "attribute")) == "to" &&
            is_type(argument(rhs, 0), "identifier") && param_set.count(m_.text_of(argument(rhs, 0))) &&
            reaches_use(local, rhs))
          out.integer_dtype_params.insert(m_.text_of(argument(rhs, 0)));
        if (!cast_type(rhs).empty() || !reaches_use(local, rhs)) continue;
        for (TSNode read : reads_in(rhs))
          for (const auto& p : bases_of(address_of(read))) set_dtype(p, "i32", "loaded values used as integers");
      }
    }
    // `start, end, expert = compute_range(pid, starts, ...)` then `a + start * stride`: the
    // helper's result is an offset, so the elements it loaded to compute it are integers.
    for (const auto& [call, helper] : helper_calls) {
      TSNode assignment = ts_node_parent(call);
      if (ts_node_is_null(assignment) || !is_type(assignment, "assignment") || !ts_node_eq(field(assignment, "right"), call))
        continue;
      std::vector<std::string> targets;
      TSNode left = field(assignment, "left");
      if (is_type(left, "identifier")) targets.push_back(m_.text_of(left));
      else if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern"))
        for_each_named_child(left, [&](TSNode c) { targets.push_back(is_type(c, "identifier") ? m_.text_of(c) : ""); });
      const PointerFacts& hf = facts(*helper);
      for (size_t i = 0; i < targets.size() && i < hf.returned_loads.size(); ++i) {
        // Only an address use counts here: the wider integer use above also spreads through
        // updates of accumulators (`acc *= x_scale`), too loose to type another function's loads.
        if (targets[i].empty() || !offset_names.count(targets[i]) || hf.returned_loads[i].empty()) continue;
        for_each_call_argument(m_, call, helper->definition, [&](const std::string& target, TSNode value) {
          if (!hf.returned_loads[i].count(target)) return;
          for (const auto& p : bases_of(value))
            if (out.pointers.count(p))
              set_dtype(p, "i32", "loaded values used as integers (what " + helper->name + " returns)");
        });
      }
    }
    for (const auto& p : params)
      if (int_used(p) && !out.pointers.count(p)) out.integer_params.insert(p);
  }
  for (const auto& [load, dtype] : suggested_index_types)
    for (const auto& p : bases_of(argument(load, 0))) set_dtype(p, dtype, "loaded values index memory");
  // `tl.load(p).to(tl.int64)`: an integer cast of the loaded value suggests integer elements.
  for (const auto& op : ops) {
    if (op.name != "load") continue;
    TSNode parent = ts_node_parent(op.call);
    if (!is_type(parent, "attribute") || m_.text_of(field(parent, "attribute")) != "to") continue;
    TSNode cast = ts_node_parent(parent);
    std::string dtype = is_type(cast, "call") ? cast_type(cast) : "";
    if (!dtype.empty() && (dtype[0] == 'i' || dtype[0] == 'u'))
      for (const auto& p : bases_of(op.address)) set_dtype(p, dtype, "loaded value cast to " + dtype);
  }
  // `tl.dot(a, b.to(tl.bfloat16))`: Triton dots operands of one type, so a loaded operand whose
  // pointer nothing typed takes the type the other operand is cast to.
  for_each_op("dot", [&](TSNode n) {
    TSNode a = argument(n, 0), b = argument(n, 1);
    if (ts_node_is_null(a) || ts_node_is_null(b)) return;
    // Loaded as they are dotted: the two pointers hold one element type. Only where every value
    // that reaches the operand is a load, or a cast of the operand itself on some path (`if
    // AB_DTYPE: a = a.to(c_type)`): `k = tl.load(p)` then `k = ((k - z) * s).to(q.dtype)` dots
    // dequantized values, and the packed pointer's type says nothing of the other operand's.
    auto as_loaded = [&](TSNode operand) {
      operand = unwrap_layout(operand);  // `tl.dot(q, tl.trans(k))` dots k's elements
      std::vector<TSNode> found = loads_of(operand);
      if (!is_type(operand, "identifier")) return found;
      std::string name = m_.text_of(operand);
      auto it = assigned.find(name);
      if (it == assigned.end()) return std::vector<TSNode>{};
      for (TSNode rhs : reaching(it->second, ts_node_start_byte(operand))) {
        if (is_type(rhs, "call") && op_name(rhs) == "load") continue;
        TSNode fn = is_type(rhs, "call") ? field(rhs, "function") : TSNode{};
        bool self_cast = !ts_node_is_null(fn) && is_type(fn, "attribute") &&
                         m_.text_of(field(fn, "attribute")) == "to" && m_.text_of(field(fn, "object")) == name;
        if (!self_cast) return std::vector<TSNode>{};
      }
      return found;
    };
    for (TSNode la : as_loaded(a))
      for (TSNode lb : as_loaded(b))
        for (const auto& pa : bases_of(address_of(la)))
          for (const auto& pb : bases_of(address_of(lb)))
            if (pa != pb) out.dot_operands.emplace_back(pa, pb);
    for (int side = 0; side < 2; ++side) {
      std::string cast = cast_type(side ? a : b);
      if (cast.empty() || cast == "i1") continue;
      for (TSNode load : loads_of(unwrap_layout(side ? b : a)))
        for (const auto& p : bases_of(address_of(load))) set_dtype(p, cast, "tl.dot operand beside one cast to " + cast);
    }
  });
  // `acc = tl.zeros(..., dtype=tl.int32)` then `acc += tl.dot(a, b)`: an integer GEMM, whose
  // operands Triton dots as int8 only (fp operands give an fp32 product the accumulator refuses).
  {
    auto int8_operands = [&](TSNode dot, const char* why) {
      for (int i = 0; i < 2; ++i)
        for (TSNode load : loads_of(unwrap_layout(argument(dot, i))))
          for (const auto& p : bases_of(address_of(load))) set_dtype(p, "i8", why);
    };
    for (const auto& [local, rhss] : assigned) {
      bool int32_accumulator = false;
      for (TSNode rhs : rhss) {
        if (!is_type(rhs, "call") || (op_name(rhs) != "zeros" && op_name(rhs) != "full")) continue;
        TSNode dtype = keyword(rhs, "dtype", m_);
        auto q = ts_node_is_null(dtype) ? std::nullopt : m_.qualified_name(dtype);
        int32_accumulator = int32_accumulator || (q && triton_dtype(*q) == "i32");
      }
      if (!int32_accumulator) continue;
      std::vector<TSNode> dots;
      auto upd = updated.find(local);
      if (upd != updated.end())
        for (TSNode rhs : upd->second)
          if (is_type(rhs, "call") && op_name(rhs) == "dot") dots.push_back(rhs);
      for (TSNode rhs : rhss)  // `acc = tl.dot(a, b, acc)`
        if (is_type(rhs, "call") && op_name(rhs) == "dot" && m_.text_of(rhs).find(local) != std::string::npos)
          dots.push_back(rhs);
      for (TSNode dot : dots) int8_operands(dot, "operand of a tl.dot into an int32 accumulator");
    }
    // `tl.dot(a, b, out_dtype=tl.int32)`: the same GEMM, its product's type stated in the call.
    for_each_op("dot", [&](TSNode n) {
      TSNode out_dtype = keyword(n, "out_dtype", m_);
      auto q = ts_node_is_null(out_dtype) ? std::nullopt : m_.qualified_name(out_dtype);
      if (q && triton_dtype(*q) == "i32") int8_operands(n, "operand of a tl.dot with out_dtype=tl.int32");
    });
  }
  // What a tl.dot multiplies: loads, casts of loads, a helper's returned loads, operands handed in.
  {
    std::function<void(TSNode, int)> reach = [&](TSNode operand, int depth) {
      if (ts_node_is_null(operand) || depth > 3) return;
      operand = unwrap_layout(operand);
      if (is_to_call(operand)) return reach(field(field(operand, "function"), "object"), depth + 1);
      for (TSNode load : loads_of(operand))
        for (const auto& p : bases_of(address_of(load))) out.dotted.insert(p);
      if (!is_type(operand, "identifier")) return;
      std::string name = m_.text_of(operand);
      if (param_set.count(name) && !assigned.count(name)) out.dot_values.insert(name);
      auto it = assigned.find(name);
      if (it == assigned.end()) return;
      for (TSNode rhs : reaching(it->second, ts_node_start_byte(operand))) {
        if (is_to_call(rhs)) {
          reach(rhs, depth + 1);
          continue;
        }
        const FunctionSite* helper = is_type(rhs, "call") ? helper_of(rhs) : nullptr;
        if (!helper) continue;
        const PointerFacts& hf = facts(*helper);
        if (hf.returned_loads.empty()) continue;
        for_each_call_argument(m_, rhs, helper->definition, [&](const std::string& target, TSNode value) {
          if (hf.returned_loads[0].count(target))
            for (const auto& p : bases_of(value)) out.dotted.insert(p);
        });
      }
    };
    for_each_op("dot", [&](TSNode n) {
      reach(argument(n, 0), 0);
      reach(argument(n, 1), 0);
    });
    for (const auto& [call, helper] : helper_calls) {
      const PointerFacts& hf = facts(*helper);
      for_each_call_argument(m_, call, helper->definition, [&](const std::string& target, TSNode value) {
        if (hf.dot_values.count(target)) reach(value, 0);
        if (hf.dotted.count(target))
          for (const auto& p : bases_of(value)) out.dotted.insert(p);
      });
    }
  }
  // `if a_ptr.dtype.element_ty == tl.float16:` (or through a name bound to it) chooses code by the
  // element type: with no other evidence, the first type the kernel names is one it handles.
  {
    std::map<std::string, TSNode> element_type_names;  // local -> the pointer whose type it holds
    auto element_type_of = [&](TSNode e) -> TSNode {
      if (is_type(e, "identifier")) {
        auto it = element_type_names.find(m_.text_of(e));
        return it == element_type_names.end() ? TSNode{} : it->second;
      }
      if (!is_type(e, "attribute") || m_.text_of(field(e, "attribute")) != "element_ty") return TSNode{};
      TSNode dtype = field(e, "object");
      if (!is_type(dtype, "attribute") || m_.text_of(field(dtype, "attribute")) != "dtype") return TSNode{};
      return field(dtype, "object");
    };
    for (const auto& [local, rhss] : assigned)
      if (rhss.size() == 1 && !ts_node_is_null(element_type_of(rhss[0]))) element_type_names[local] = element_type_of(rhss[0]);
    std::vector<std::pair<uint32_t, std::pair<TSNode, std::string>>> named;  // in source order
    for_each_node(body, [&](TSNode n) {
      if (!is_type(n, "if_statement") && !is_type(n, "elif_clause")) return;
      TSNode cond = field(n, "condition");
      while (is_type(cond, "parenthesized_expression")) cond = ts_node_named_child(cond, 0);
      if (!is_type(cond, "comparison_operator") || ts_node_named_child_count(cond) != 2 ||
          m_.text_of(cond).find("==") == std::string::npos)
        return;
      TSNode l = ts_node_named_child(cond, 0), r = ts_node_named_child(cond, 1);
      if (ts_node_is_null(element_type_of(l))) std::swap(l, r);
      TSNode pointer = element_type_of(l);
      auto q = m_.qualified_name(r);
      std::string dtype = triton_dtype(q ? *q : m_.text_of(r));
      if (!ts_node_is_null(pointer) && !dtype.empty()) named.push_back({ts_node_start_byte(n), {pointer, dtype}});
    });
    std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, use] : named)
      for (const auto& p : bases_of(use.first)) set_dtype(p, use.second, "its element type selects a branch");
  }
  // The blocks of an `if` statement: its consequence, then each `elif`'s and the `else`'s.
  auto if_blocks = [&](TSNode n) {
    std::vector<TSNode> blocks{field(n, "consequence")};
    for_each_named_child(n, [&](TSNode c) {
      if (is_type(c, "elif_clause")) blocks.push_back(field(c, "consequence"));
      if (is_type(c, "else_clause")) blocks.push_back(field(c, "body"));
    });
    return blocks;
  };
  // Only a condition decided at run time makes Triton join the branches; one of constexprs
  // (`if USE_FP8:`) keeps a single branch, which may rebind the name to anything.
  std::set<std::string> constexpr_params;
  for (const auto& pn : parameter_nodes(m_, function.definition))
    if (!ts_node_is_null(pn.annotation) && m_.text_of(pn.annotation).find("constexpr") != std::string::npos)
      constexpr_params.insert(pn.name);
  auto decided_at_run_time = [&](TSNode condition) {
    std::set<std::string> names;
    bool type_query = false;  // `x.dtype.is_fp16()`, `x.shape[0] == 1`: known when compiling
    for_each_node(condition, [&](TSNode x) {
      if (is_type(x, "identifier")) names.insert(m_.text_of(x));
      if (is_type(x, "attribute")) {
        std::string attr = m_.text_of(field(x, "attribute"));
        type_query = type_query || attr == "dtype" || attr == "element_ty" || attr == "shape" || attr == "type";
      }
    });
    if (type_query) return false;
    for (const auto& name : names) {
      if (param_set.count(name) && !constexpr_params.count(name) && !assigned.count(name)) return true;
      auto it = assigned.find(name);
      if (it == assigned.end()) continue;
      for (TSNode rhs : it->second) {
        bool computed = false;
        for_each_call(rhs, [&](TSNode c) { computed = computed || !op_name(c).empty(); });
        if (computed || (is_type(rhs, "call") && !op_name(rhs).empty())) return true;
      }
    }
    return false;
  };
  // `if c: token = tl.load(a + i) else: token = tl.load(b + i)` with a condition Triton decides at
  // run time: the name must have one type after the `if`, so `a` and `b` hold one element type.
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "if_statement")) return;
    std::vector<TSNode> blocks = if_blocks(n);
    if (blocks.size() < 2) return;
    bool run_time = decided_at_run_time(field(n, "condition"));
    // name -> the pointers its last binding in each block loads through, and the type a block
    // casts it to (`c0 = c0.to(tl.int64)`)
    std::map<std::string, std::vector<std::set<std::string>>> bound;
    std::map<std::string, std::vector<std::string>> cast_to;
    for (size_t b = 0; b < blocks.size(); ++b)
      for_each_named_child(blocks[b], [&](TSNode st) {
        TSNode a = is_type(st, "expression_statement") ? ts_node_named_child(st, 0) : TSNode{};
        if (!is_type(a, "assignment")) return;
        TSNode left = field(a, "left"), right = field(a, "right");
        // `c0, c1 = tl.split(c01)`: each name holds elements of what is split.
        std::vector<TSNode> names;
        if (is_type(left, "identifier")) {
          names.push_back(left);
        } else if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern")) {
          right = split_operand(right);  // a tuple bound to a tuple (`a, b = b, a`) has none
          if (ts_node_is_null(right)) return;
          for_each_named_child(left, [&](TSNode c) {
            if (is_type(c, "identifier")) names.push_back(c);
          });
        } else {
          return;
        }
        std::set<std::string> pointers;
        for (TSNode load : loads_of(right))
          for (const auto& p : bases_of(address_of(load))) pointers.insert(p);
        // (`else: row = tl.zeros((B,), dtype=tl.uint32)` states it as a cast does, where Triton
        // joins the branches: a condition of constexprs keeps one, which may bind anything.)
        std::string cast = run_time ? stated_type(right) : cast_type(right);
        for (TSNode name : names) {
          auto& per_block = bound[m_.text_of(name)];
          per_block.resize(blocks.size());
          per_block[b] = pointers;
          auto& casts = cast_to[m_.text_of(name)];
          casts.resize(blocks.size());
          casts[b] = cast;
        }
      });
    for (const auto& [name, per_block] : bound)
      for (size_t i = 0; i < per_block.size(); ++i)
        for (size_t j = i + 1; j < per_block.size(); ++j)
          for (const auto& pa : per_block[i])
            for (const auto& pb : per_block[j])
              if (pa != pb) out.branch_operands.emplace_back(pa, pb);
    // A block that casts the name states its type for the loads the other blocks bind it to.
    for (const auto& [name, casts] : cast_to)
      for (size_t i = 0; i < casts.size(); ++i)
        if (!casts[i].empty())
          for (size_t j = 0; j < casts.size(); ++j)
            if (j != i)
              for (const auto& p : bound[name][j]) {
                // Integer evidence types offsets i32 by default; the cast says how wide they are.
                bool wider = (casts[i][0] == 'i' || casts[i][0] == 'u') && out.dtypes.count(p) && out.dtypes[p] == "i32";
                if (wider) out.dtypes.erase(p);
                set_dtype(p, casts[i], "its loads share a name another branch casts to " + casts[i]);
              }
  });
  // A name bound before an `if` and bound again inside it keeps its type (Triton refuses `initial
  // value for x is of type int32, but the then block redefines it as fp32`). Where one binding's
  // type is stated (`tl.full(..., tl.int1)`, `tl.zeros(..., dtype=T)`, a cast, a comparison, a
  // literal, `tl.where(c, 0, 1)`, reductions of those) and the other's value is loaded elements
  // combined elementwise (`qv[:, None] & kv[None, :]`, `tl.sum(ind)`), the loaded pointers hold
  // that type: blksprs's validity masks are bool, mdy_triton's selected indices int32.
  {
    static const std::set<std::string> kReductions = {"sum", "max", "min", "cumsum", "reduce"};
    // What stated_type reads (a cast, `tl.zeros`/`tl.full`/`tl.cast`, a wide literal), and
    // literals, comparisons, `tl.where` of two of one type and reductions of those.
    std::function<std::string(TSNode, int)> binding_type = [&](TSNode e, int depth) -> std::string {
      if (ts_node_is_null(e) || depth > 4) return "";
      if (is_type(e, "parenthesized_expression")) return binding_type(ts_node_named_child(e, 0), depth + 1);
      if (std::string stated = stated_type(e); !stated.empty()) return stated;
      if (is_type(e, "integer")) return "i32";
      if (is_type(e, "float")) return "fp32";
      if (is_type(e, "comparison_operator")) return "i1";
      if (!is_type(e, "call")) return "";
      std::string name = op_name(e);
      if (name == "where") {
        std::string a = binding_type(argument(e, 1), depth + 1), b = binding_type(argument(e, 2), depth + 1);
        return a == b ? a : "";
      }
      if (kReductions.count(name)) {
        std::string t = binding_type(argument(e, 0), depth + 1);
        return t == "i1" ? "i32" : t;  // a sum of booleans counts them
      }
      return "";
    };
    // The loads whose elements an expression combines without changing their type: every leaf a
    // load (or an integer literal), since `a + b` takes the wider of two types and says nothing of
    // a load added to an int64 offset. `pure` turns false at any other leaf.
    bool pure = true;
    std::function<void(TSNode, std::vector<TSNode>&, int)> flowing = [&](TSNode e, std::vector<TSNode>& out, int depth) {
      if (ts_node_is_null(e) || depth > 4) {
        pure = false;
        return;
      }
      if (is_type(e, "parenthesized_expression") || is_type(e, "subscript") || is_type(e, "unary_operator")) {
        flowing(is_type(e, "subscript") ? field(e, "value") : is_type(e, "unary_operator") ? field(e, "argument")
                                                                                           : ts_node_named_child(e, 0),
                out, depth + 1);
      } else if (is_type(e, "binary_operator")) {
        std::string op = m_.text_of(field(e, "operator"));
        if (op != "&" && op != "|" && op != "^" && op != "+" && op != "-" && op != "*") {
          pure = false;
          return;
        }
        for (TSNode side : {field(e, "left"), field(e, "right")})
          if (!is_type(side, "integer")) flowing(side, out, depth + 1);
      } else if (is_type(e, "call") && op_name(e) == "load") {
        out.push_back(e);
      } else if (is_type(e, "call") && kReductions.count(op_name(e))) {
        flowing(argument(e, 0), out, depth + 1);  // a sum widens narrow integers: i32 is their default anyway
      } else if (is_type(e, "identifier")) {
        auto it = assigned.find(m_.text_of(e));
        if (it == assigned.end() || updated.count(m_.text_of(e))) {
          pure = false;
          return;
        }
        for (TSNode rhs : reaching(it->second, ts_node_start_byte(e))) flowing(rhs, out, depth + 1);
      } else {
        pure = false;
      }
    };
    auto agree = [&](const std::string& type, TSNode value, const std::string& name) {
      if (type.empty()) return;
      std::vector<TSNode> loads;
      pure = true;
      flowing(value, loads, 0);
      if (!pure) return;
      for (TSNode load : loads)
        for (const auto& p : bases_of(address_of(load))) {
          // The default width of integer evidence gives way to the width the binding states.
          if (out.dtypes.count(p) && out.dtypes[p] == "i32" && (type == "i1" || integer_element_type(type)))
            out.dtypes.erase(p);
          set_dtype(p, type, "its loads are bound to " + name + ", which holds " + type + " elsewhere in an if");
        }
    };
    for_each_node(body, [&](TSNode n) {
      if (!is_type(n, "if_statement") || !decided_at_run_time(field(n, "condition"))) return;
      for (TSNode block : if_blocks(n)) {
        // The binding each name has when the block ends: its last assignment there.
        std::map<std::string, TSNode> last;
        for_each_named_child(block, [&](TSNode st) {
          TSNode a = is_type(st, "expression_statement") ? ts_node_named_child(st, 0) : TSNode{};
          if (is_type(a, "assignment") && is_type(field(a, "left"), "identifier"))
            last[m_.text_of(field(a, "left"))] = field(a, "right");
        });
        for (const auto& [name, inside] : last) {
          auto it = assigned.find(name);
          if (it == assigned.end() || updated.count(name)) continue;
          std::vector<TSNode> before = reaching(it->second, ts_node_start_byte(n));
          if (before.size() != 1 || ts_node_start_byte(before[0]) >= ts_node_start_byte(n)) continue;
          agree(binding_type(before[0], 0), inside, name);
          agree(binding_type(inside, 0), before[0], name);
        }
      }
    });
  }
  // Seeds of loop-carried floats (PointerFacts::float_seeds).
  {
    auto in_loop = [&](TSNode n) {
      for (TSNode up = ts_node_parent(n); !ts_node_is_null(up) && !ts_node_eq(up, body); up = ts_node_parent(up))
        if (is_type(up, "for_statement") || is_type(up, "while_statement")) return true;
      return false;
    };
    // Reaches a float literal, float-only math or a load of elements not known to be integers,
    // through the names it reads.
    auto floating = [&](TSNode rhs) {
      std::vector<TSNode> work{rhs};
      std::set<std::string> seen;
      for (size_t steps = 0; !work.empty() && steps < 5000; ++steps) {
        TSNode x = work.back();
        work.pop_back();
        std::string_view t = node_type(x);
        if (t == "float") return true;
        if (t == "identifier") {
          std::string name = m_.text_of(x);
          if (!seen.insert(name).second) continue;
          for (const auto* sources : {&assigned, &updated})
            if (auto it = sources->find(name); it != sources->end()) work.insert(work.end(), it->second.begin(), it->second.end());
          continue;
        }
        if (t == "call") {
          std::string name = op_name(x);
          if (float_only_math(name)) return true;
          if (name == "load") {
            bool integer = false;
            for (const auto& p : bases_of(argument(x, 0)))
              integer = integer || (out.dtypes.count(p) && integer_element_type(out.dtypes[p]));
            if (!integer) return true;
            continue;
          }
          work.push_back(field(x, "arguments"));  // not the callee's name
          continue;
        }
        for_each_named_child(x, [&](TSNode c) { work.push_back(c); });
      }
      return false;
    };
    for (const auto& [local, rhss] : assigned) {
      std::string seed;
      for (TSNode r : rhss)
        if (is_type(r, "identifier") && param_set.count(m_.text_of(r)) && !in_loop(r)) seed = m_.text_of(r);
      if (seed.empty() || seed == local) continue;
      bool carried = false;
      for (const auto* sources : {&assigned, &updated})
        if (auto it = sources->find(local); it != sources->end())
          for (TSNode r : it->second) carried = carried || (!is_type(r, "identifier") && in_loop(r) && floating(r));
      if (carried) out.float_seeds.insert(seed);
    }
  }
  // Loaded values that reach float-only math (`dx = tl.load(pos + i) - tl.load(pos + j)`, then
  // `tl.sqrt(dx * dx)`) are floats, whatever the pointer's name suggests (`positions`); of no
  // stated width. A cast on the way stops it: what was cast may be anything.
  {
    std::vector<TSNode> work;
    std::set<std::string> followed;
    for_each_call(body, [&](TSNode n) {
      if (float_only_math(op_name(n)))
        for_each_named_child(field(n, "arguments"), [&](TSNode a) {
          if (!is_type(a, "keyword_argument")) work.push_back(a);
        });
    });
    for (size_t steps = 0; !work.empty() && steps < 20000; ++steps) {
      TSNode x = work.back();
      work.pop_back();
      std::string_view t = node_type(x);
      if (t == "identifier") {
        std::string name = m_.text_of(x);
        if (!followed.insert(name).second) continue;
        for (const auto* sources : {&assigned, &updated})
          if (auto it = sources->find(name); it != sources->end()) work.insert(work.end(), it->second.begin(), it->second.end());
      } else if (t == "call") {
        std::string name = op_name(x);
        if (name == "load") {
          for (const auto& p : bases_of(argument(x, 0))) set_floating(p, "loaded values reach float-only math");
        } else if (name == "minimum" || name == "maximum" || name == "where" || integer_preserving(name)) {
          for_each_named_child(field(x, "arguments"), [&](TSNode c) {
            if (!is_type(c, "keyword_argument")) work.push_back(c);
          });
        }
      } else if (t == "binary_operator") {
        // `sum_sq / lens`: a true division is a float whatever it divides.
        std::string op = m_.text_of(field(x, "operator"));
        if (op == "+" || op == "-" || op == "*") {
          work.push_back(field(x, "left"));
          work.push_back(field(x, "right"));
        }
      } else if (t == "parenthesized_expression" || t == "unary_operator") {
        for_each_named_child(x, [&](TSNode c) { work.push_back(c); });
      } else if (t == "subscript") {
        work.push_back(field(x, "value"));
      }
    }
  }
  // A parameter that is a load's fill or a store's value is a value, not an address.
  for (const auto& op : ops) {
    TSNode value = op.name == "load" ? keyword(op.call, "other", m_) : stored_value(op);
    if (is_type(value, "identifier") && param_set.count(m_.text_of(value))) out.values.insert(m_.text_of(value));
  }
  // `other=` of a load: a float fill value means float elements.
  for (const auto& op : ops) {
    if (op.name != "load") continue;
    TSNode other = keyword(op.call, "other", m_);
    if (ts_node_is_null(other)) continue;
    TSNode literal = is_type(other, "unary_operator") ? field(other, "argument") : other;
    std::string text = m_.text_of(other);
    bool is_float = is_type(literal, "float") || text.find("float(") != std::string::npos;
    bool is_bool = is_type(literal, "true") || is_type(literal, "false");
    for (const auto& p : bases_of(op.address)) {
      if (is_float) set_floating(p, "other=" + text);
      if (is_bool) set_dtype(p, "i1", "other=" + text);
    }
  }
  return out;
}

}  // namespace mine::check
