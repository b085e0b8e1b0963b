#include "core/check/descriptor_usage.h"

#include <algorithm>
#include <optional>

#include "core/check/body_usage.h"
#include "core/check/branch_reach.h"
#include "core/check/pointer_usage.h"
#include "core/python/function_parameters.h"

namespace mine::check {
namespace {

std::vector<TSNode> elements(TSNode list) {
  std::vector<TSNode> out;
  if (!is_type(list, "list") && !is_type(list, "tuple")) return out;
  for_each_named_child(list, [&](TSNode c) {
    if (!is_type(c, "comment")) out.push_back(c);
  });
  return out;
}

// The first constexpr that is a factor of a product in `e` (`pid_m * BLOCK_M`), or `e` itself.
TSNode constexpr_factor(const PythonModule& m, TSNode e, const std::set<std::string>& constexprs) {
  if (is_type(e, "identifier") && constexprs.count(m.text_of(e))) return e;
  TSNode found{};
  uint32_t first = UINT32_MAX;
  for_each_node(e, [&](TSNode n) {
    if (!is_type(n, "binary_operator") || m.text_of(ts_node_child(n, 1)) != "*") return;
    for (TSNode side : {field(n, "left"), field(n, "right")})
      if (is_type(side, "identifier") && constexprs.count(m.text_of(side)) && ts_node_start_byte(side) < first)
        found = side, first = ts_node_start_byte(side);
  });
  return found;
}

// The block an offset steps by: a product with a constexpr in the offset itself or in what the
// body assigns to it (`offs_am = pid_m * BLOCK_M`, `offs_k += BLOCK_K`), also past a base added
// to it (`peer_base + offset_m`, `M * peer + offset_m`).
TSNode block_of(const PythonModule& m, TSNode body, TSNode offset, const std::set<std::string>& constexprs,
                int depth = 0) {
  TSNode direct = constexpr_factor(m, offset, constexprs);
  if (!ts_node_is_null(direct) || depth > 4) return direct;
  if (is_type(offset, "parenthesized_expression")) return block_of(m, body, ts_node_named_child(offset, 0), constexprs, depth + 1);
  if (is_type(offset, "binary_operator")) {
    std::string op = m.text_of(ts_node_child(offset, 1));
    if (op != "+" && op != "-") return direct;
    for (TSNode side : {field(offset, "left"), field(offset, "right")}) {
      TSNode f = block_of(m, body, side, constexprs, depth + 1);
      if (!ts_node_is_null(f)) return f;
    }
    return direct;
  }
  if (!is_type(offset, "identifier")) return direct;
  std::string name = m.text_of(offset);
  TSNode found{};
  uint32_t first = UINT32_MAX;
  // `for k in range(0, K, BLOCK_K)`: a loop counter steps by its block.
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "for_statement") || m.text_of(field(n, "left")) != name) return;
    TSNode range = field(n, "right");
    if (!is_type(range, "call") || !ends_with(m.text_of(field(range, "function")), "range")) return;
    TSNode step = argument(range, 2);
    TSNode f = ts_node_is_null(step) ? step : constexpr_factor(m, step, constexprs);
    if (!ts_node_is_null(f) && ts_node_start_byte(n) < first) found = f, first = ts_node_start_byte(n);
  });
  if (!ts_node_is_null(found)) return found;
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "assignment") && !is_type(n, "augmented_assignment")) return;
    TSNode left = field(n, "left");
    if (!is_type(left, "identifier") || m.text_of(left) != name || ts_node_start_byte(n) >= first) return;
    TSNode f = block_of(m, body, field(n, "right"), constexprs, depth + 1);
    if (!ts_node_is_null(f)) found = f, first = ts_node_start_byte(n);
  });
  return found;
}

// The dtype `n` names: a constexpr's value, `tl.float16`, or a local bound once to one
// (`scale_dtype = tl.float32`).
std::string dtype_of(const PythonModule& m, TSNode body, TSNode n, const Env& known) {
  if (ts_node_is_null(n)) return "";
  if (!is_type(n, "identifier")) return triton_dtype(m.text_of(n));
  std::string name = m.text_of(n);
  auto it = known.find(name);
  if (it != known.end()) return it->second.is_string() ? triton_dtype(it->second.get<std::string>()) : "";
  std::vector<TSNode> bound;
  for_each_node(body, [&](TSNode s) {
    if ((is_type(s, "assignment") || is_type(s, "augmented_assignment")) && m.text_of(field(s, "left")) == name)
      bound.push_back(field(s, "right"));
  });
  if (bound.size() != 1) return "";
  TSNode value = bound[0];
  // `dtypeC = tl.bfloat16 if dtype_c == 0 else tl.float16`: the branch the known values choose.
  if (is_type(value, "conditional_expression") && ts_node_named_child_count(value) == 3) {
    auto chosen = eval_with(m, known, ts_node_named_child(value, 1));
    if (!chosen || !chosen->is_boolean()) return "";
    value = ts_node_named_child(value, chosen->get<bool>() ? 0 : 2);
  }
  return is_type(value, "attribute") ? triton_dtype(m.text_of(value)) : "";
}

// The shape a stored value was made with: `c = acc.to(T)` of `acc = tl.zeros((BM, BN), ...)`,
// through `acc = tl.dot(a, b, acc)` and `acc += ...` (a loop-carried value keeps its shape). A
// store's block is the value's shape, which offsets stepping by other constexprs can misstate.
std::vector<TSNode> stored_shape(const PythonModule& m, TSNode body, TSNode value, int depth = 0) {
  if (ts_node_is_null(value) || depth > 6) return {};
  if (is_type(value, "parenthesized_expression")) return stored_shape(m, body, ts_node_named_child(value, 0), depth + 1);
  if (is_type(value, "call")) {
    TSNode fn = field(value, "function");
    std::string name = is_type(fn, "attribute") ? m.text_of(field(fn, "attribute")) : m.text_of(fn);
    if (name == "to" && is_type(fn, "attribute")) return stored_shape(m, body, field(fn, "object"), depth + 1);
    if (name == "zeros" || name == "full" || name == "empty") return elements(argument(value, 0));
    if (name == "dot") {
      TSNode acc = argument(value, 2);
      for_each_named_child(field(value, "arguments"), [&](TSNode a) {
        if (is_type(a, "keyword_argument") && m.text_of(field(a, "name")) == "acc") acc = field(a, "value");
      });
      return stored_shape(m, body, acc, depth + 1);
    }
    return {};
  }
  // `acc[None, None, :, :]`: a dimension of 1 (a null node) for each None, the value's own for each
  // full slice.
  if (is_type(value, "subscript")) {
    TSNode of = field(value, "value");
    std::vector<TSNode> inner = stored_shape(m, body, of, depth + 1), shape;
    size_t next = 0;
    bool whole = !inner.empty();
    for_each_named_child(value, [&](TSNode index) {
      if (ts_node_eq(index, of) || is_type(index, "comment")) return;
      if (is_type(index, "none")) shape.push_back(TSNode{});
      else if (is_type(index, "slice") && ts_node_named_child_count(index) == 0 && next < inner.size()) shape.push_back(inner[next++]);
      else whole = false;
    });
    return whole && next == inner.size() ? shape : std::vector<TSNode>{};
  }
  if (!is_type(value, "identifier")) return {};
  // The last assignment before the store that tells a shape: the value stored.
  std::string name = m.text_of(value);
  std::vector<TSNode> shape;
  uint32_t latest = 0;
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "assignment") || m.text_of(field(n, "left")) != name) return;
    if (ts_node_end_byte(n) > ts_node_start_byte(value) || (!shape.empty() && ts_node_start_byte(n) < latest)) return;
    std::vector<TSNode> assigned = stored_shape(m, body, field(n, "right"), depth + 1);
    if (!assigned.empty()) shape = std::move(assigned), latest = ts_node_start_byte(n);
  });
  return shape;
}

// `c = acc.to(tl.float16)` before `c_desc.store([...], c)`: the type the kernel converts to.
std::string stored_dtype(const PythonModule& m, TSNode body, TSNode value, const Env& known) {
  auto converted = [&](TSNode e) -> std::string {
    if (!is_type(e, "call")) return "";
    TSNode fn = field(e, "function");
    if (!is_type(fn, "attribute") || m.text_of(field(fn, "attribute")) != "to") return "";
    return dtype_of(m, body, argument(e, 0), known);
  };
  if (!is_type(value, "identifier")) return converted(value);
  std::string name = m.text_of(value), out;
  uint32_t last = 0;
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "assignment") || m.text_of(field(n, "left")) != name) return;
    if (ts_node_start_byte(n) >= ts_node_start_byte(value) || ts_node_start_byte(n) < last) return;
    last = ts_node_start_byte(n);
    out = converted(field(n, "right"));
  });
  return out;
}

// `h = h_desc.load([0, 0])` then `tl.dot(x.to(tl.bfloat16), h)`: Triton dots operands of one
// type, so a descriptor whose loads are dotted beside a cast holds elements of the cast's type.
// The loaded value is followed through one local and through layout ops (`.T`, `tl.trans`,
// `.reshape`), which keep the type.
std::string dotted_dtype(const PythonModule& m, TSNode body, TSNode load, const Env& known) {
  std::string local;
  TSNode parent = ts_node_parent(load);
  if (is_type(parent, "assignment") && is_type(field(parent, "left"), "identifier")) local = m.text_of(field(parent, "left"));
  auto is_loaded = [&](TSNode e) {
    for (int depth = 0; depth < 6 && !ts_node_is_null(e); ++depth) {
      if (ts_node_eq(e, load)) return true;
      if (is_type(e, "identifier")) return !local.empty() && m.text_of(e) == local;
      if (is_type(e, "parenthesized_expression")) {
        e = ts_node_named_child(e, 0);
      } else if (is_type(e, "attribute") && m.text_of(field(e, "attribute")) == "T") {
        e = field(e, "object");
      } else if (is_type(e, "call")) {
        TSNode fn = field(e, "function");
        std::string name = is_type(fn, "attribute") ? m.text_of(field(fn, "attribute")) : m.text_of(fn);
        if (name != "trans" && name != "reshape" && name != "permute" && name != "view") return false;
        auto q = m.qualified_name(fn);
        e = q && ends_with(*q, "language." + name) ? argument(e, 0) : field(fn, "object");
      } else {
        return false;
      }
    }
    return false;
  };
  std::string out;
  for_each_call(body, [&](TSNode call) {
    auto q = m.qualified_name(field(call, "function"));
    if (!out.empty() || !q || !ends_with(*q, "language.dot")) return;
    for (int side = 0; side < 2 && out.empty(); ++side)
      if (is_loaded(argument(call, side))) out = stored_dtype(m, body, argument(call, 1 - side), known);
  });
  return out;
}

// The dims of `value.reshape(A, B)` or `tl.reshape(value, (A, B))` applied to `value` directly.
std::vector<TSNode> reshape_of(const PythonModule& m, TSNode value) {
  TSNode parent = ts_node_parent(value);
  if (is_type(parent, "attribute") && ts_node_eq(field(parent, "object"), value) && is_type(ts_node_parent(parent), "call"))
    return reshape_dims(m, ts_node_parent(parent));
  TSNode call = is_type(parent, "argument_list") ? ts_node_parent(parent) : TSNode{};
  if (is_type(call, "call") && ts_node_eq(argument(call, 0), value)) {
    auto q = m.qualified_name(field(call, "function"));
    if (q && ends_with(*q, "language.reshape")) return reshape_dims(m, call);
  }
  return {};
}

}  // namespace

std::map<std::string, std::vector<DescriptorUse>> descriptor_uses(const PythonModule& m, TSNode body,
                                                                  const std::vector<std::string>& params,
                                                                  const std::set<std::string>& constexprs) {
  std::map<std::string, std::vector<DescriptorUse>> out;
  std::set<std::string> names(params.begin(), params.end());
  std::vector<std::pair<uint32_t, std::pair<std::string, DescriptorUse>>> found;
  // Locals that only ever hold one of the parameters (`cur_desc = a_desc` or `= scratch_desc`
  // by branch): a use through one is a use of each.
  std::map<std::string, std::set<std::string>> aliases;
  std::set<std::string> not_aliases;
  for_each_node(body, [&](TSNode n) {
    if (!is_type(n, "assignment") || !is_type(field(n, "left"), "identifier")) return;
    std::string local = m.text_of(field(n, "left"));
    TSNode right = field(n, "right");
    if (names.count(local)) return;
    if (is_type(right, "identifier") && names.count(m.text_of(right))) aliases[local].insert(m.text_of(right));
    else not_aliases.insert(local);
  });
  for (const auto& local : not_aliases) aliases.erase(local);
  auto params_of = [&](TSNode object) -> std::vector<std::string> {
    if (!is_type(object, "identifier")) return {};
    std::string name = m.text_of(object);
    if (names.count(name)) return {name};
    auto it = aliases.find(name);
    return it == aliases.end() ? std::vector<std::string>{} : std::vector<std::string>(it->second.begin(), it->second.end());
  };
  auto from_offsets = [&](TSNode list, DescriptorUse& use) {
    for (TSNode o : elements(list)) use.block.push_back(block_of(m, body, o, constexprs));
  };
  for_each_call(body, [&](TSNode call) {
    TSNode fn = field(call, "function");
    DescriptorUse use;
    use.call = call;
    std::vector<std::string> params_used;
    if (is_type(fn, "attribute") && !params_of(field(fn, "object")).empty()) {
      std::string method = m.text_of(field(fn, "attribute"));
      if (method != "load" && method != "store") return;
      params_used = params_of(field(fn, "object"));
      from_offsets(argument(call, 0), use);
      if (method == "store") use.stored = argument(call, 1);
    } else if (auto q = m.qualified_name(fn); q && !params_of(argument(call, 0)).empty() &&
                                              !ts_node_is_null(argument(call, 1))) {
      params_used = params_of(argument(call, 0));
      // The free-function spellings of desc.load / desc.store (Triton 3.3 on).
      if (ends_with(*q, "language.load_tensor_descriptor")) {
        from_offsets(argument(call, 1), use);
      } else if (ends_with(*q, "language.store_tensor_descriptor") && !ts_node_is_null(argument(call, 2))) {
        from_offsets(argument(call, 1), use);
        use.stored = argument(call, 2);
      } else if (ts_node_is_null(argument(call, 2))) {
        return;
      } else if (ends_with(*q, "_experimental_descriptor_load")) {
        for (TSNode b : elements(argument(call, 2))) use.block.push_back(b);
        use.dtype = argument(call, 3);
      } else if (ends_with(*q, "_experimental_descriptor_store")) {
        from_offsets(argument(call, 2), use);
        use.stored = argument(call, 1);
      } else {
        return;
      }
    } else {
      return;
    }
    if (!ts_node_is_null(use.stored)) {
      std::vector<TSNode> shape = stored_shape(m, body, use.stored);
      if (!shape.empty() && shape.size() == use.block.size()) {
        use.block = shape;
        while (use.leading_ones < shape.size() && ts_node_is_null(shape[use.leading_ones])) ++use.leading_ones;
      }
    }
    // `desc.load([t, h, 0, 0]).reshape(BLOCK_H, D)`: offsets that step by no block say nothing of
    // it, but the reshape says how many elements the block holds and in which trailing dims; a
    // block of those dims, 1 before them, loads as many.
    if (ts_node_is_null(use.stored) && std::any_of(use.block.begin(), use.block.end(), ts_node_is_null)) {
      std::vector<TSNode> reshaped = reshape_of(m, call);
      if (!reshaped.empty() && reshaped.size() <= use.block.size()) {
        size_t lead = use.block.size() - reshaped.size();
        for (size_t d = 0; d < use.block.size(); ++d) use.block[d] = d < lead ? TSNode{} : reshaped[d - lead];
        use.leading_ones = lead;
      }
    }
    if (use.block.empty()) return;
    for (const auto& param : params_used) found.push_back({ts_node_start_byte(call), {param, use}});
  });
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [at, entry] : found) out[entry.first].push_back(entry.second);
  return out;
}

std::string descriptor_dtype(const PythonModule& m, TSNode body, const std::vector<DescriptorUse>& uses, const Env& known) {
  std::string dtype;
  for (const auto& use : uses) {  // any use that names the type: loads and stores share one descriptor
    if (dtype.empty()) dtype = dtype_of(m, body, use.dtype, known);
    if (dtype.empty() && !ts_node_is_null(use.stored)) dtype = stored_dtype(m, body, use.stored, known);
  }
  for (const auto& use : uses)
    if (dtype.empty() && ts_node_is_null(use.stored)) dtype = dotted_dtype(m, body, use.call, known);
  return dtype;
}

std::string descriptor_type(const PythonModule& m, TSNode body, const std::vector<DescriptorUse>& uses, const Env& known) {
  std::string dtype = descriptor_dtype(m, body, uses, known);
  if (dtype.empty()) dtype = "fp16";  // the common TMA operand; the kernel gave no hint
  for (const auto& use : uses) {
    if (!reachable_under(m, known, use.call, body)) continue;
    std::vector<int64_t> shape;
    for (size_t d = 0; d < use.block.size(); ++d) {
      TSNode b = use.block[d];
      // An outer offset that no block steps (`desc.load([batch, m * BLOCK_M, k])`, with `batch` a
      // program id) moves one row at a time: a block of 1 there.
      if (ts_node_is_null(b) && d + 1 < use.block.size() && (use.block.size() > 2 || d < use.leading_ones)) {
        shape.push_back(1);
        continue;
      }
      auto v = ts_node_is_null(b) ? std::nullopt : eval_with(m, known, b);
      if (!v || !v->is_number_integer() || v->get<int64_t>() < 1) return "";
      shape.push_back(v->get<int64_t>());
    }
    return tensordesc_type(dtype, shape);
  }
  return "";
}

std::string tensordesc_type(const std::string& dtype, const std::vector<int64_t>& block) {
  std::string dims;
  for (int64_t d : block) dims += (dims.empty() ? "" : ", ") + std::to_string(d);
  return "tensordesc<" + dtype + "[" + dims + "]>";
}

std::string tensordesc_dtype(const std::string& type) {
  static const std::string kPrefix = "tensordesc<";
  size_t open = type.find('[');
  if (type.rfind(kPrefix, 0) != 0 || open == std::string::npos) return "";
  return type.substr(kPrefix.size(), open - kPrefix.size());
}

std::map<std::string, std::string> handed_descriptor_types(const PythonModule& m, TSNode body,
                                                           const std::set<std::string>& params, const Env& known) {
  std::map<std::string, std::string> out;
  for_each_call(body, [&](TSNode call) {
    TSNode fn = field(call, "function");
    if (!is_type(fn, "identifier")) return;
    const FunctionSite* helper = module_function(m, m.text_of(fn));
    if (!helper) return;
    // The helper's parameters: those handed one of `params`, and the values the others take
    // where the kernel's known values decide them (its blocks).
    std::map<std::string, std::string> handed;  // helper parameter -> kernel parameter
    Env env;
    for_each_call_argument(m, call, helper->definition, [&](const std::string& param, TSNode arg) {
      if (is_type(arg, "identifier") && params.count(m.text_of(arg)) && !out.count(m.text_of(arg)))
        handed[param] = m.text_of(arg);
      else if (auto v = eval_with(m, known, arg)) env[param] = *v;
    });
    if (handed.empty()) return;
    std::vector<std::string> names;
    std::set<std::string> constexprs;
    for (const auto& [param, _] : handed) names.push_back(param);
    for (const auto& [param, _] : env) constexprs.insert(param);
    TSNode helper_body = field(helper->definition, "body");
    for (const auto& [param, uses] : descriptor_uses(m, helper_body, names, constexprs)) {
      std::string type = descriptor_type(m, helper_body, uses, env);
      if (!type.empty()) out.emplace(handed[param], type);
    }
  });
  return out;
}

}  // namespace mine::check
