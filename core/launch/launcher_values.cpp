#include "core/launch/launcher_values.h"

#include <climits>
#include <cmath>
#include <vector>

#include "core/check/constant_eval.h"
#include "core/check/name_text.h"
#include "core/python/function_parameters.h"
#include "core/python/module_model.h"
#include "core/python/name_scopes.h"
#include "core/python/named_children.h"
#include "core/python/python_type_set.h"

namespace mine {
namespace {

using json = nlohmann::json;
using check::arithmetic;
using check::ends_with;
using check::floor_div;
constexpr int kMaxDepth = 48;
constexpr int64_t kMaxNominalElements = int64_t{1} << 25;
constexpr int kMaxForkedPaths = 16;  // paths a helper's undecided conditions may split into, in all

std::string last_part(const std::string& dotted) { return dotted.substr(dotted.rfind('.') + 1); }

bool is_int(const json& v) { return v.is_number_integer() || v.is_boolean(); }
int64_t as_int(const json& v) { return v.is_boolean() ? (v.get<bool>() ? 1 : 0) : v.get<int64_t>(); }
bool is_number(const json& v) { return v.is_number() || v.is_boolean(); }
double as_double(const json& v) { return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>(); }

int64_t product(const json& shape) {
  int64_t p = 1;
  for (const auto& d : shape) p *= is_int(d) ? as_int(d) : 1;
  return p;
}

bool known_shape(const json& t) {
  if (!t.contains("shape") || !t["shape"].is_array()) return false;
  for (const auto& d : t["shape"])
    if (!is_int(d)) return false;
  return true;
}

json tensor(const std::string& base, const json& shape, const json& dtype) {
  return {{"$tensor", base}, {"shape", shape}, {"dtype", dtype}};
}

json contiguous_strides(const json& shape) {
  json out = json::array();
  int64_t s = 1;
  std::vector<int64_t> rev;
  for (size_t i = shape.size(); i-- > 0;) {
    rev.push_back(s);
    s *= std::max<int64_t>(1, as_int(shape[i]));
  }
  for (size_t i = rev.size(); i-- > 0;) out.push_back(rev[i]);
  return out;
}

// tree-sitter reads `*v.shape` as the attribute `shape` of `*v`: a starred element is one whose
// leftmost operand is a list_splat.
bool leading_splat(TSNode c) {
  for (int i = 0; i < 8 && !ts_node_is_null(c); ++i) {
    if (is_type(c, "list_splat")) return true;
    if (is_type(c, "attribute")) c = field(c, "object");
    else if (is_type(c, "subscript")) c = field(c, "value");
    else if (is_type(c, "call")) c = field(c, "function");
    else return false;
  }
  return false;
}

// `3`, `-1`: an integer literal, with its sign.
std::optional<int64_t> signed_integer(const PythonModule& m, TSNode n) {
  bool negative = is_type(n, "unary_operator") && m.text_of(n).rfind("-", 0) == 0;
  TSNode number = negative ? field(n, "argument") : n;
  if (!is_type(number, "integer")) return std::nullopt;
  return std::stoll(m.text_of(number)) * (negative ? -1 : 1);
}

// The fewest dimensions a tensor has whose dimension `index` is read (`x.shape[2]`: 3,
// `x.stride(-1)`: 1, counted from the end).
int64_t rank_reaching(int64_t index) { return index < 0 ? -index : index + 1; }

// `[a:b]` with integer literals (either may be missing or negative); nullopt for steps and
// anything else. tree-sitter names neither bound, so the `:` tells them apart.
std::optional<std::pair<std::optional<int64_t>, std::optional<int64_t>>> literal_slice(const PythonModule& m, TSNode slice) {
  if (!is_type(slice, "slice")) return std::nullopt;
  std::optional<int64_t> bounds[2];
  int part = 0;
  for (uint32_t i = 0; i < ts_node_child_count(slice); ++i) {
    TSNode c = ts_node_child(slice, i);
    if (!ts_node_is_named(c)) {
      if (m.text_of(c) == ":" && ++part > 1) return std::nullopt;  // a step
      continue;
    }
    bounds[part] = signed_integer(m, c);
    if (!bounds[part]) return std::nullopt;
  }
  return std::make_pair(bounds[0], bounds[1]);
}

// The [begin, end) that a literal slice's bounds select of `size` elements, as Python clamps them.
std::pair<int64_t, int64_t> sliced_range(const std::pair<std::optional<int64_t>, std::optional<int64_t>>& bounds,
                                         int64_t size) {
  auto clamp = [&](std::optional<int64_t> b, int64_t missing) {
    int64_t v = b ? (*b < 0 ? *b + size : *b) : missing;
    return std::min(std::max<int64_t>(v, 0), size);
  };
  return {clamp(bounds.first, 0), clamp(bounds.second, size)};
}

// The indices of `x[a, b, ...]`: tree-sitter gives each its own `subscript` field (read with a
// cursor: 0.20.7's ts_node_field_name_for_child misses all but the first).
std::vector<TSNode> subscript_keys(TSNode subscript) {
  std::vector<TSNode> keys;
  TSTreeCursor cursor = ts_tree_cursor_new(subscript);
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      const char* f = ts_tree_cursor_current_field_name(&cursor);
      if (f && std::string_view(f) == "subscript") keys.push_back(ts_tree_cursor_current_node(&cursor));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return keys;
}

int64_t normalized_axis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

// Results of torch's sorting, searching and counting functions, whose index and count tensors
// torch makes int64 whatever the input (`vals, idx = torch.sort(x)`, `counts.cumsum(0)`): `self`
// the tensor they work on, `args` the arguments after it. nullopt for any other function.
// A tensor's element type that torch counts as integral: integers and bool ("i64", "u8", "i1").
bool integral_dtype(const json& dt) {
  return dt.is_string() && !dt.get<std::string>().empty() && (dt.get<std::string>()[0] == 'i' || dt.get<std::string>()[0] == 'u');
}

bool indexing_function(const std::string& name) {
  static const std::set<std::string> kNames = {"sort",    "argsort", "topk",   "cumsum",  "cumprod",           "nonzero",
                                               "argmax",  "argmin",  "bincount", "unique", "unique_consecutive", "searchsorted"};
  return kNames.count(name) > 0;
}

std::optional<json> indexing_result(const json& self, const std::string& name, const std::vector<std::optional<json>>& args,
                                    const std::map<std::string, std::optional<json>>& keywords) {
  if (!indexing_function(name)) return std::nullopt;
  const json shape = known_shape(self) ? self["shape"] : json(nullptr);
  const json& dtype = self["dtype"];
  auto given = [&](size_t i, const char* key) -> std::optional<json> {
    auto k = keywords.find(key);
    if (k != keywords.end()) return k->second;
    return i < args.size() ? args[i] : std::nullopt;
  };
  auto flag = [&](const char* key) {
    auto k = keywords.find(key);
    return k != keywords.end() && k->second && check::truthy(*k->second);
  };
  auto indices = [&](const json& s) { return tensor("", s, "i64"); };
  if (name == "sort") return json::array({tensor("", shape, dtype), indices(shape)});
  if (name == "argsort") return indices(shape);
  if (name == "topk") {
    auto k = given(0, "k");
    auto dim = given(1, "dim");
    json s = shape;
    int64_t axis = dim && is_int(*dim) ? as_int(*dim) : -1;
    if (s.is_array() && k && is_int(*k)) {
      axis = normalized_axis(axis, s.size());
      if (axis >= 0 && axis < static_cast<int64_t>(s.size())) s[axis] = *k;
      else s = nullptr;
    } else {
      s = nullptr;
    }
    return json::array({tensor("", s, dtype), indices(s)});
  }
  if (name == "cumsum" || name == "cumprod") {
    auto dt = keywords.find("dtype");
    if (dt != keywords.end() && dt->second && LauncherValues::is_dtype(*dt->second)) return tensor("", shape, (*dt->second)["$dtype"]);
    return tensor("", shape, integral_dtype(dtype) ? json("i64") : dtype);
  }
  if (name == "nonzero" || name == "argmax" || name == "argmin" || name == "bincount") return indices(nullptr);
  if (name == "unique" || name == "unique_consecutive") {
    json unique = tensor("", nullptr, dtype);
    if (!flag("return_inverse") && !flag("return_counts")) return unique;
    json out = json::array({unique});
    if (flag("return_inverse")) out.push_back(indices(shape));
    if (flag("return_counts")) out.push_back(indices(nullptr));
    return out;
  }
  if (name == "searchsorted") {
    auto values = given(0, "input");
    json s = values && LauncherValues::is_tensor(*values) && known_shape(*values) ? (*values)["shape"] : json(nullptr);
    return tensor("", s, flag("out_int32") ? "i32" : "i64");
  }
  return std::nullopt;
}

// torch's elementwise math, which keeps the shape and element type of the tensor it works on
// (true division of integers aside); a name ending in `_` works in place and returns its tensor.
bool elementwise_function(const std::string& name) {
  static const std::set<std::string> kNames = {
      "abs",   "neg",   "negative", "exp",   "exp2",      "expm1",     "log",    "log2",   "log1p",    "sqrt",
      "rsqrt", "sigmoid", "tanh",   "relu",  "sin",       "cos",       "square", "sign",   "reciprocal", "clamp",
      "clamp_min", "clamp_max", "clip", "pow", "mul",     "add",       "sub",    "div",    "true_divide", "floor",
      "ceil",  "round", "trunc",    "nan_to_num", "masked_fill", "silu", "gelu",  "softmax", "log_softmax"};
  if (kNames.count(name)) return true;
  return name.size() > 1 && name.back() == '_' && kNames.count(name.substr(0, name.size() - 1));
}

// torch's reductions: the dimensions `dim` names go (or stay as 1 with `keepdim`), all of them
// without `dim`.
bool reduction_function(const std::string& name) {
  static const std::set<std::string> kNames = {"sum", "nansum", "mean", "nanmean", "amax", "amin", "max", "min",
                                               "prod", "std", "var", "norm", "logsumexp", "all", "any", "count_nonzero"};
  return kNames.count(name) > 0;
}

// What an elementwise function or a reduction of `self` gives (`x.abs().amax(dim=1)` of a bf16
// tensor is bf16, `mask.sum()` int64, `x.max(dim=1)` a pair of values and int64 indices); nullopt
// for any other function. `args` are the arguments after the tensor.
std::optional<json> derived_result(const json& self, const std::string& name, const std::vector<std::optional<json>>& args,
                                   const std::map<std::string, std::optional<json>>& keywords) {
  const json shape = known_shape(self) ? self["shape"] : json(nullptr);
  const json& dtype = self["dtype"];
  auto stated = keywords.find("dtype");
  bool stated_dtype = stated != keywords.end() && stated->second && LauncherValues::is_dtype(*stated->second);
  if (elementwise_function(name)) {
    if (name.back() == '_') return self;
    if (stated_dtype) return tensor("", shape, (*stated->second)["$dtype"]);
    bool divides = name == "div" || name == "true_divide";
    bool rounds = keywords.count("rounding_mode") || (args.size() > 1 && args[1] && args[1]->is_string());
    return tensor("", shape, divides && !rounds && integral_dtype(dtype) ? json("fp32") : dtype);
  }
  if (!reduction_function(name)) return std::nullopt;
  auto k = keywords.find("dim");
  std::optional<json> dim = k != keywords.end() ? k->second : (args.empty() ? std::nullopt : args[0]);
  // `x.max(y)`, `torch.min(a, b)`: elementwise.
  if (dim && LauncherValues::is_tensor(*dim) && (name == "max" || name == "min")) return tensor("", shape, dtype);
  auto kd = keywords.find("keepdim");
  bool keepdim = kd != keywords.end() ? kd->second && check::truthy(*kd->second)
                                      : args.size() > 1 && args[1] && args[1]->is_boolean() && args[1]->get<bool>();
  json out_dtype = stated_dtype                                                          ? (*stated->second)["$dtype"]
                   : name == "all" || name == "any"                                      ? json("i1")
                   : name == "count_nonzero"                                             ? json("i64")
                   : (name == "sum" || name == "nansum" || name == "prod") && integral_dtype(dtype) ? json("i64")
                                                                                         : dtype;
  json out_shape = nullptr;
  if (!dim || dim->is_null()) {
    out_shape = json::array();
  } else if (shape.is_array()) {
    std::set<int64_t> gone;
    bool ok = true;
    for (const json& d : dim->is_array() ? *dim : json::array({*dim})) {
      int64_t axis = is_int(d) ? normalized_axis(as_int(d), shape.size()) : -1;
      ok = ok && axis >= 0 && axis < static_cast<int64_t>(shape.size());
      if (ok) gone.insert(axis);
    }
    if (ok) {
      out_shape = json::array();
      for (size_t i = 0; i < shape.size(); ++i)
        if (!gone.count(static_cast<int64_t>(i))) out_shape.push_back(shape[i]);
        else if (keepdim) out_shape.push_back(1);
    }
  }
  json values = tensor("", out_shape, out_dtype);
  // `values, indices = x.max(dim=1)`; `.values` and `.indices` are read from the pair.
  if ((name == "max" || name == "min") && dim && !dim->is_null()) return json::array({values, tensor("", out_shape, "i64")});
  return values;
}

// `x * scale`, `-x`, `ids == pad` of a launcher's tensors: tensors again, of the broadcast shape
// (the operand of more dimensions) and the type torch promotes to (a float scalar or true
// division makes integers fp32; a comparison gives bools).
json tensor_arithmetic(const json& a, const std::string& op, const json& b) {
  bool ta = LauncherValues::is_tensor(a), tb = LauncherValues::is_tensor(b);
  const json& first = ta ? a : b;
  json shape = known_shape(first) ? first["shape"] : json(nullptr);
  if (ta && tb && known_shape(b) && (!shape.is_array() || b["shape"].size() > shape.size())) shape = b["shape"];
  static const std::set<std::string> kComparisons = {"<", "<=", ">", ">=", "==", "!="};
  if (kComparisons.count(op)) return tensor("", shape, "i1");
  if (op == "@") return tensor("", nullptr, first["dtype"]);
  auto floating = [](const json& dt) { return dt.is_string() && !integral_dtype(dt); };  // bf16 too
  json dtype = first["dtype"];
  if (ta && tb && !floating(a["dtype"]) && floating(b["dtype"])) dtype = b["dtype"];
  bool float_scalar = (!ta && a.is_number_float()) || (!tb && b.is_number_float());
  if (integral_dtype(dtype) && (op == "/" || float_scalar)) dtype = "fp32";
  return tensor("", shape, dtype);
}

// A value tested for truth. A tensor's truth is its data's (`if out_len == 0:` of a sum, `if
// mask.any():`), which no evaluation here knows.
std::optional<json> tested(std::optional<json> v) {
  if (v && LauncherValues::is_tensor(*v)) return std::nullopt;
  return v;
}

int64_t dtype_bytes(const std::string& dt) {
  if (dt == "fp64" || dt == "i64" || dt == "u64") return 8;
  if (dt == "fp32" || dt == "i32" || dt == "u32") return 4;
  if (dt == "fp16" || dt == "bf16" || dt == "i16" || dt == "u16") return 2;
  return 1;
}

}  // namespace

std::string torch_dtype_name(const std::string& qualified) {
  if (qualified.rfind("torch.", 0) != 0) return "";
  static const std::map<std::string, std::string> kNames = {
      {"float16", "fp16"}, {"half", "fp16"},     {"bfloat16", "bf16"}, {"float32", "fp32"}, {"float", "fp32"},
      {"float64", "fp64"}, {"double", "fp64"},   {"int8", "i8"},       {"uint8", "u8"},     {"int16", "i16"},
      {"short", "i16"},    {"int32", "i32"},     {"int", "i32"},       {"int64", "i64"},    {"long", "i64"},
      {"bool", "i1"},      {"float8_e4m3fn", "fp8e4nv"}, {"float8_e5m2", "fp8e5"}, {"uint16", "u16"},
      {"uint32", "u32"},   {"uint64", "u64"}};
  std::string rest = qualified.substr(6);
  if (rest.find('.') != std::string::npos) return "";
  auto it = kNames.find(rest);
  return it == kNames.end() ? "" : it->second;
}

TSNode LauncherValues::named_child(TSNode n, uint32_t i) const {
  if (!facts_) return ts_node_named_child(n, i);
  const std::vector<TSNode>& all = facts_->nodes.named_children(n);
  return i < all.size() ? all[i] : TSNode{};
}

uint32_t LauncherValues::named_count(TSNode n) const {
  return facts_ ? static_cast<uint32_t>(facts_->nodes.named_children(n).size()) : ts_node_named_child_count(n);
}

std::vector<ParameterNodes> LauncherValues::parameters(TSNode definition) const {
  if (is_type(definition, "module")) return {};  // module-level code (see the constructor)
  return facts_ ? facts_->nodes.parameters(m_, definition) : parameter_nodes(m_, definition);
}

std::optional<std::string> LauncherValues::qualified(TSNode expression) const {
  return facts_ ? facts_->nodes.qualified_name(m_, expression) : m_.qualified_name(expression);
}

int64_t LauncherValues::param_dim() {
  ++tally_->sizes_read;
  int k = sized_params_++;
  if (skew_ > 0) return dim_ * (1 + k);
  if (skew_ < 0) return dim_ * std::max(1, 6 - k);
  return dim_;
}

json LauncherValues::nominal_shape(int rank, int64_t dim) {
  json shape = json::array();
  for (int i = 0; i < rank; ++i) shape.push_back(dim);
  for (int i = 0; i < rank && product(shape) > kMaxNominalElements; ++i) shape[i] = 2;
  return shape;
}

LauncherValues::LauncherValues(const PythonModule& m, const json& env) : m_(m) {
  if (env.is_object())
    for (const auto& [k, v] : env.items()) env_[k] = v;
}

// The shape of `x[...]` for a tensor of `shape`: an integer drops its dimension, `:` keeps it, a
// slice of literals keeps what it selects, `None` adds a 1 and `...` stands for the dimensions
// the others leave; null where an index is anything else (a tensor, a slice of variables).
json LauncherValues::indexed_shape(const json& shape, TSNode subscript, int depth) const {
  if (!shape.is_array()) return nullptr;
  std::vector<TSNode> keys = subscript_keys(subscript);
  size_t consumed = 0;
  for (TSNode k : keys) consumed += is_type(k, "none") || is_type(k, "ellipsis") ? 0 : 1;
  if (consumed > shape.size()) return nullptr;
  json out = json::array();
  size_t dim = 0;
  for (TSNode k : keys) {
    if (is_type(k, "ellipsis")) {
      for (size_t fill = shape.size() - consumed; fill > 0; --fill) out.push_back(shape[dim++]);
    } else if (is_type(k, "none")) {
      out.push_back(1);
    } else if (is_type(k, "slice")) {
      auto bounds = literal_slice(m_, k);
      if (!bounds) return nullptr;
      auto [begin, end] = sliced_range(*bounds, as_int(shape[dim++]));
      out.push_back(std::max<int64_t>(0, end - begin));
    } else {
      auto i = eval(k, depth + 1);
      if (!i || !is_int(*i)) return nullptr;
      ++dim;
    }
  }
  while (dim < shape.size()) out.push_back(shape[dim++]);
  return out;
}

// In from_defaults_, for values computed from the stand-in sizes.
const std::string kStandInSize = "$size";

// Defaults left out one at a time before all of them are (each try evaluates the launcher again).
constexpr size_t kMaxDefaultsTried = 4;

LauncherValues::LauncherValues(const PythonModule& m, TSNode function, uint32_t until, CalleeLookup callees,
                               const std::map<std::string, json>* bound, int call_depth, int64_t dim,
                               TensorFactsCache* facts, std::shared_ptr<int> fork_budget, int skew,
                               std::shared_ptr<Tally> tally, const std::map<std::string, json>* caller_tensors,
                               uint32_t through)
    : m_(m), callees_(std::move(callees)), call_depth_(call_depth), dim_(dim), skew_(skew), through_(through),
      fork_budget_(std::move(fork_budget)),
      tally_(tally ? std::move(tally) : std::make_shared<Tally>()), facts_(facts) {
  if (ts_node_is_null(function)) return;
  // The module itself, for a call in its own code (`if __name__ == "__main__":`): statements and
  // no parameters, so nothing to read of their layouts.
  bool module_level = is_type(function, "module");
  TSNode body = module_level ? function : child(function, "body");
  // A definition tree-sitter recovered from text that is no Python (a C++ file named `.py`) may
  // have no body: nothing to evaluate.
  if (ts_node_is_null(body)) return;
  auto known = facts && !module_level ? facts->find(body.id) : TensorFactsCache::iterator{};
  if (module_level) {
    // rank_, dtype_ and the others describe parameters: empty.
  } else if (facts && known != facts->end()) {
    rank_ = known->second.rank;
    dtype_ = known->second.dtype;
    widest_rank_ = known->second.widest_rank;
    counted_only_ = known->second.counted_only;
    exact_rank_ = known->second.exact_rank;
  } else {
    ranks(body);  // counted_only_ too
    if (facts) facts->emplace(body.id, TensorFacts{rank_, dtype_, widest_rank_, counted_only_, exact_rank_});
  }
  // `@custom_fwd(cast_inputs=torch.float16)`: autocast hands the launcher its floating tensors
  // in that type.
  std::string cast_inputs;
  TSNode decorated = ts_node_parent(function);
  if (is_type(decorated, "decorated_definition"))
    for (TSNode d : decorators_of(decorated)) {
      if (!is_type(d, "call")) continue;
      TSNode cast = keyword_value(d, "cast_inputs", [&](TSNode x) { return m_.text_of(x); });
      auto q = ts_node_is_null(cast) ? std::nullopt : qualified(cast);
      if (q) cast_inputs = torch_dtype_name(*q);
    }
  std::map<std::string, json> parametrized = is_type(decorated, "decorated_definition") ? parametrized_values(decorated)
                                                                                      : std::map<std::string, json>{};
  TSNode owner = owning_class(function);
  // `def fwd(x): ... def launch(): k[grid](x, y, **kw)`: a function defined in a launcher reads
  // the names its enclosing function bound before defining it.
  std::map<std::string, json> enclosing_env;
  std::map<std::string, TSNode> enclosing_assigned;
  TSNode defined = is_type(decorated, "decorated_definition") ? decorated : function;
  TSNode outer = is_type(ts_node_parent(defined), "block") ? ts_node_parent(ts_node_parent(defined)) : TSNode{};
  if (call_depth_ == 0 && !module_level && is_type(outer, "function_definition")) {
    LauncherValues enclosing(m_, outer, ts_node_start_byte(defined), callees_, nullptr, call_depth_, dim_, facts_,
                             fork_budget_, skew_, tally_);
    enclosing_env = std::move(enclosing.env_);
    enclosing_assigned = std::move(enclosing.assigned_);
  }
  Tally tally_before = *tally_;
  auto evaluate = [&] {
    env_ = enclosing_env;
    assigned_ = enclosing_assigned;
    for (const ParameterNodes& p : parameters(function)) {
      const std::string& name = p.name;
      // A value made of stand-in sizes: a path those sizes contradict says nothing of defaults.
      struct SizeMark {
        LauncherValues& v;
        const std::string& name;
        int before;
        ~SizeMark() {
          if (v.sized_params_ > before) v.from_defaults_[name].insert(kStandInSize);
        }
      } size_mark{*this, name, sized_params_};
      // A method's `self` holds what its class's `__init__` assigned (`self.eps = eps`); a module
      // function's `self` (an ATen-style `def pad(self, pad, value)`) is a parameter like the others.
      if (name == "self" && !ts_node_is_null(owner)) {
        env_["self"] = attributes_after(owner, function, "__init__", "self", false);
        continue;
      }
      // An autograd Function's ctx: `forward` fills it, `backward` reads what forward left there
      // (`ctx.BLOCK = BLOCK`, `x, w = ctx.saved_tensors`).
      if (name == "ctx" && !ts_node_is_null(owner)) {
        // The sizes forward read are in the tensors it saved.
        env_["ctx"] = attributes_after(owner, function, "forward", "ctx", true);
        continue;
      }
      if (name == "ctx" || (name == "cls" && !ts_node_is_null(owner))) continue;
      if (bound) {
        auto given = bound->find(name);
        if (given != bound->end()) {
          env_[name] = given->second;
          continue;
        }
      }
      if (auto given = parametrized.find(name); given != parametrized.end()) {
        env_[name] = given->second;
        continue;
      }
      std::string a = ts_node_is_null(p.annotation) ? "" : m_.text_of(p.annotation);
      // Defaults are module-level expressions: constants, and dtypes (`= torch.float8_e4m3fn`).
      std::optional<json> d = ts_node_is_null(p.default_value) || undefaulted_.count(name) ? std::nullopt
                                                                                            : eval(p.default_value);
      if (d) from_defaults_[name] = {name};
      auto rank = rank_.find(name);
      auto stated = dtype_.find(name);
      const json* handed = nullptr;  // the caller's tensor for this parameter
      if (caller_tensors)
        if (auto c = caller_tensors->find(name); c != caller_tensors->end() && is_tensor(c->second)) handed = &c->second;
      // A caller's tensor of a type the asserts allow is that type (`c.dtype in (fp16, bf16)`
      // handed bf16 is bf16, not the first one allowed).
      auto allowed = allowed_dtypes_.find(name);
      bool handed_allowed = handed && allowed != allowed_dtypes_.end() && (*handed)["dtype"].is_string() &&
                            allowed->second.count((*handed)["dtype"].get<std::string>());
      // Autocast casts floating tensors only: an integer tensor the caller hands keeps its type.
      bool handed_integral = handed && integral_dtype((*handed)["dtype"]);
      json dtype = handed_allowed                             ? (*handed)["dtype"]
                   : stated != dtype_.end()                   ? json(stated->second)
                   : !cast_inputs.empty() && !handed_integral ? json(cast_inputs)
                   : handed                                   ? (*handed)["dtype"]
                                                              : json(nullptr);
      // The tensor's type is autocast's (here or in the caller), not one the code states.
      bool autocast = !handed_allowed && stated == dtype_.end() &&
                      ((!cast_inputs.empty() && !handed_integral) || (handed && handed->contains("$autocast")));
      struct AutocastMark {
        LauncherValues& v;
        const std::string& name;
        bool on;
        ~AutocastMark() {
          auto e = v.env_.find(name);
          if (on && e != v.env_.end() && is_tensor(e->second)) e->second["$autocast"] = true;
        }
      } autocast_mark{*this, name, autocast};
      // `List[torch.Tensor]`, `Tuple[Tensor, ...]`: containers of tensors, not tensors.
      bool container = false;
      for (const char* c : {"List", "list", "Tuple", "tuple", "Sequence", "Dict", "dict", "Iterable"})
        container = container || a.rfind(c, 0) == 0;
      if (!a.empty() && a.find("Tensor") == std::string::npos) {
        static const std::set<std::string> kUntensored = {"dict", "Dict", "list", "List", "tuple", "Tuple",
                                                          "Mapping", "Sequence", "str", "int", "float", "bool"};
        bool named = false;
        std::string word;
        for (char c : a + " ") {
          if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            word += c;
          } else {
            named = named || kUntensored.count(word);
            word.clear();
          }
        }
        if (named) annotated_untensored_.insert(name);
      }
      // `scale: float | None = None`, `Optional[float]`: the kernel computes with a float; the launcher
      // (or the kernel) fills in None only as a shorthand for a value derived later.
      bool optional_float = a.find("float") != std::string::npos && a.find("Tensor") == std::string::npos &&
                            !container;
      // Only `= None` says None: an Optional annotation without a default is no evidence of it
      // (launchers type inputs they require `Tensor | None` as well as ones they may leave out).
      bool none_allowed = d && d->is_null();
      if (none_allowed && optional_float) {
        env_[name] = 1.0;
      } else if (none_allowed &&
                 !(a.find("Tensor") != std::string::npos && rank != rank_.end() && !container && read_unguarded(body, name))) {
        // `mask: Optional[Tensor] = None`: the path without it, unless the launcher reads its layout
        // (`beta.shape[2]`), which it only does to a tensor it is given.
        env_[name] = nullptr;
      } else if (a.find("Tensor") != std::string::npos && !container) {
        // A tensor handed straight to the kernel, its shape never read: laid out like the others.
        env_[name] = parameter_tensor(name, dtype);
      } else if (a == "int") {
        env_[name] = d && is_int(*d) ? *d : json(param_dim());
      } else if (a == "float") {
        env_[name] = d && is_number(*d) ? json(as_double(*d)) : json(1.0);
      } else if (a == "bool") {
        env_[name] = d && d->is_boolean() ? *d : json(false);
      } else if (d && (!d->is_object() || is_dtype(*d))) {
        env_[name] = *d;
      } else if (handed && a.empty() && !d) {
        // Unannotated, and a tensor where the launcher is called: laid out as the launcher reads it,
        // else with the caller's rank.
        int r = rank != rank_.end() ? rank->second
                : (*handed)["shape"].is_array() ? static_cast<int>((*handed)["shape"].size())
                                                 : widest_rank_;
        env_[name] = tensor(name, r > 0 ? nominal_shape(r, param_dim()) : json(nullptr), dtype);
        bool stated_rank = rank != rank_.end() ? exact_rank_.count(name) > 0
                                               : (*handed)["shape"].is_array() && !handed->contains("$rank_guessed");
        if (r > 0 && !stated_rank) env_[name]["$rank_guessed"] = true;
      } else if (!d && a.empty() && rank == rank_.end() && stated == dtype_.end() && counted_only_.count(name)) {
        // `def fwd(x, QB): SN2 = N2 // QB`: a size the caller chooses; left unknown, every value
        // computed from it (and each kernel argument made of those) would be guessed apart from it.
        env_[name] = param_dim();
      } else if ((rank != rank_.end() || stated != dtype_.end()) && !container) {
        // (A `dict` a launcher subscripts, `config["BLOCK"]`, holds no tensor.)
        env_[name] = tensor(name, rank != rank_.end() ? nominal_shape(rank->second, param_dim()) : json(nullptr), dtype);
        if (rank != rank_.end() && !exact_rank_.count(name)) env_[name]["$rank_guessed"] = true;
      }
    }
    run(body, until, 0);
  };
  evaluate();
  if (call_depth_ != 0 || contradicted_.empty()) return;
  // The launch is reached only where a caller passed something other than a default its path
  // contradicts (see from_defaults_). The fewest such changes is the likeliest call: each of those
  // defaults left out alone, in parameter order, until the path holds; else all of them.
  std::set<std::string> all = contradicted_;
  std::vector<std::string> one_by_one;
  for (const ParameterNodes& p : parameters(function))
    if (all.count(p.name) && one_by_one.size() < kMaxDefaultsTried) one_by_one.push_back(p.name);
  one_by_one.push_back("");  // the last try: all of them
  for (const std::string& left_out : one_by_one) {
    undefaulted_ = left_out.empty() ? all : std::set<std::string>{left_out};
    contradicted_.clear();
    // What run() and the parameters set; what ranks() read of the body (rank_, dtype_, shape_,
    // counted_only_) holds for every evaluation.
    env_.clear();
    assigned_.clear();
    from_defaults_.clear();
    returned_.reset();
    stopped_ = false;
    sized_params_ = 0;
    *tally_ = tally_before;
    evaluate();
    if (contradicted_.empty()) return;
  }
}

// A test's `@pytest.mark.parametrize("M, N", [(128, 64), ...])`: each name with its value in the
// first case the test runs, where the code gives it (literals, module constants; `pytest.param(v,
// marks=...)` stands for v). Stacked decorators each add their names.
std::map<std::string, json> LauncherValues::parametrized_values(TSNode decorated) {
  std::map<std::string, json> out;
  for (TSNode d : decorators_of(decorated)) {
    if (!is_type(d, "call") || !ends_with(m_.text_of(field(d, "function")), "parametrize")) continue;
    TSNode args = field(d, "arguments");
    TSNode names_node = ts_node_named_child(args, 0), cases = ts_node_named_child(args, 1);
    if (ts_node_is_null(cases) || is_type(names_node, "keyword_argument") || is_type(cases, "keyword_argument")) continue;
    std::vector<std::string> names;
    auto spelled = eval(names_node);
    if (spelled && spelled->is_string()) {
      std::string list = spelled->get<std::string>();
      for (size_t at = 0; at <= list.size();) {
        size_t comma = std::min(list.find(',', at), list.size());
        std::string one = list.substr(at, comma - at);
        one.erase(0, one.find_first_not_of(" \t"));
        one.erase(one.find_last_not_of(" \t") + 1);
        if (!one.empty()) names.push_back(one);
        at = comma + 1;
      }
    } else if (spelled && spelled->is_array()) {
      for (const auto& n : *spelled)
        if (n.is_string()) names.push_back(n.get<std::string>());
    }
    if (names.empty()) continue;
    std::optional<json> first;
    // The first item of an iterable the code writes: a literal's first element, else its value's.
    auto first_of = [&](TSNode it) -> std::optional<json> {
      if (is_type(it, "list") || is_type(it, "tuple")) {
        TSNode c = ts_node_named_child(it, 0);
        return ts_node_is_null(c) ? std::nullopt : eval(c);
      }
      auto all = eval(it);
      if (all && all->is_array() && !all->empty()) return (*all)[0];
      return std::nullopt;
    };
    std::string fn = is_type(cases, "call") ? m_.text_of(field(cases, "function")) : "";
    if (fn == "list" || fn == "tuple") {  // `list(itertools.product(...))`
      TSNode inner = ts_node_named_child(field(cases, "arguments"), 0);
      if (is_type(inner, "call")) {
        cases = inner;
        fn = m_.text_of(field(cases, "function"));
      }
    }
    if (is_type(cases, "list_comprehension") || is_type(cases, "generator_expression")) {
      // `[(M, N) for M in SIZES for N in (16, 32)]`: the body with each loop's first item.
      std::vector<std::string> bound_here;
      bool known = true;
      for_each_named_child(cases, [&](TSNode clause) {
        if (!known || !is_type(clause, "for_in_clause")) return;
        TSNode left = field(clause, "left");
        auto item = first_of(field(clause, "right"));
        if (!is_type(left, "identifier") || !item) {
          known = false;
          return;
        }
        env_[m_.text_of(left)] = *item;
        bound_here.push_back(m_.text_of(left));
      });
      if (known) first = eval(field(cases, "body"));
      for (const auto& n : bound_here) env_.erase(n);
    } else if (fn == "product" || ends_with(fn, ".product")) {
      json item = json::array();
      for_each_named_child(field(cases, "arguments"), [&](TSNode a) {
        auto f = first_of(a);
        item.push_back(f ? *f : json());
      });
      first = item;
    } else if (is_type(cases, "list") || is_type(cases, "tuple")) {
      TSNode c = ts_node_named_child(cases, 0);
      if (is_type(c, "call") && ends_with(m_.text_of(field(c, "function")), "param")) c = ts_node_named_child(field(c, "arguments"), 0);
      if (!ts_node_is_null(c) && names.size() > 1 && is_type(c, "call")) continue;
      if (!ts_node_is_null(c)) first = eval(c);
    } else if (auto all = eval(cases); all && all->is_array() && !all->empty()) {
      first = (*all)[0];
    }
    if (!first) continue;
    if (names.size() == 1) {
      out[names[0]] = *first;
    } else if (first->is_array() && first->size() == names.size()) {
      for (size_t i = 0; i < names.size(); ++i) out[names[i]] = (*first)[i];
    }
  }
  return out;
}

// Whether `condition` being true makes the launcher raise: it is (one of the `or`ed parts of) the
// test of an `if` whose block raises (`if x.ndim != 1 or x.numel() < 2: raise ValueError(...)`).
bool LauncherValues::refused_unless_false(TSNode condition) const {
  TSNode n = condition;
  TSNode up = ts_node_parent(n);
  while (is_type(up, "parenthesized_expression") ||
         (is_type(up, "boolean_operator") && m_.text_of(ts_node_child(up, 1)) == "or")) {
    n = up;
    up = ts_node_parent(n);
  }
  if (!is_type(up, "if_statement") || !ts_node_eq(field(up, "condition"), n)) return false;
  TSNode block = field(up, "consequence");
  return ts_node_named_child_count(block) > 0 && is_type(ts_node_named_child(block, 0), "raise_statement");
}

// `x.dtype == torch.int8` (`in (torch.float16, ...)`: the first one) holding where `comparison`
// is `truth`: the element type the launcher is written for.
void LauncherValues::required_dtype(TSNode comparison, bool truth) {
  if (ts_node_named_child_count(comparison) != 2) return;
  TSNode l = ts_node_named_child(comparison, 0), r = ts_node_named_child(comparison, 1);
  std::string op = m_.text_of(comparison).substr(m_.text_of(l).size());
  bool positive = op.find("!=") == std::string::npos && op.find("not") == std::string::npos;
  if (positive != truth) return;
  if (!is_type(l, "attribute") || m_.text_of(field(l, "attribute")) != "dtype" || !is_type(field(l, "object"), "identifier"))
    return;
  std::string name = m_.text_of(field(l, "object"));
  std::vector<TSNode> types;
  if (is_type(r, "tuple") || is_type(r, "list"))
    for_each_named_child(r, [&](TSNode t) { types.push_back(t); });
  else
    types.push_back(r);
  for (TSNode t : types) {
    auto q = m_.qualified_name(t);
    std::string dt = q ? torch_dtype_name(*q) : "";
    if (dt.empty()) continue;
    dtype_.emplace(name, dt);
    allowed_dtypes_[name].insert(dt);
  }
}

// The names the launcher uses only as counts: an operand of `//`, `%`, `<<` or `>>`, or an
// argument of `triton.cdiv`, `next_power_of_2` or `range`, and never as anything else a count
// cannot be (an object with attributes, something subscripted or called). What node `v` of the
// launcher's body says of them; ranks() visits every node of the body but those below a nested
// function or lambda, once per body (kept with its tensor facts: each launch evaluates the
// launcher several times).
//
// The walk hands each node's parent and grandparent along: tree-sitter 0.20.7's ts_node_parent
// searches down from the root every call (7,000 instructions on FlagGems' launchers, 570 M in
// all). The node a walk came from is the one ts_node_parent names for any node with a width; a
// zero-width (MISSING) identifier is still asked of tree-sitter, whose search by position may end
// elsewhere.
void LauncherValues::count_uses(const CountVisit& v, TSNode body, CountUses& uses) const {
  static const PythonTypeSet identifier{"identifier"}, attribute{"attribute"}, subscript{"subscript"}, call{"call"},
      binary_operator{"binary_operator"}, argument_list{"argument_list"};
  TSNode n = v.node;
  if (!identifier.has(n)) return;
  std::string name = m_.text_of(n);
  bool walked = !ts_node_eq(n, body) && ts_node_start_byte(n) < ts_node_end_byte(n);
  TSNode up = walked ? v.parent : ts_node_parent(n);
  auto above_up = [&]() { return walked && !ts_node_eq(up, body) ? v.grandparent : ts_node_parent(up); };
  if ((attribute.has(up) && ts_node_eq(field(up, "object"), n)) ||
      (subscript.has(up) && ts_node_eq(field(up, "value"), n)) ||
      (call.has(up) && ts_node_eq(field(up, "function"), n))) {
    uses.refused.insert(name);
  } else if (binary_operator.has(up)) {
    std::string op = m_.text_of(field(up, "operator"));
    if (op == "//" || op == "%" || op == "<<" || op == ">>") uses.counted.insert(name);
    // `math.ceil(NC / group)`: a true division rounded to a count, as `triton.cdiv` is.
    if (op == "/") {
      TSNode args = above_up();
      TSNode rounded = argument_list.has(args) ? ts_node_parent(args) : TSNode{};
      std::string fn = call.has(rounded) ? m_.text_of(field(rounded, "function")) : "";
      if (ends_with(fn, "ceil") || ends_with(fn, "floor")) uses.counted.insert(name);
    }
  } else if (argument_list.has(up)) {
    TSNode called = above_up();
    if (call.has(called)) {
      std::string fn = m_.text_of(field(called, "function"));
      if (ends_with(fn, "cdiv") || ends_with(fn, "next_power_of_2") || fn == "range") uses.counted.insert(name);
    }
  }
}

// Whether the launcher reads `name`'s layout (`name.shape`, `name.stride(1)`) outside a test of
// `name` against None: `beta.shape[2]` on every path says the caller always hands a tensor, while
// `h0.stride(0) if h0 is not None else 0` reads it only where one was given.
bool LauncherValues::read_unguarded(TSNode body, const std::string& name) const {
  auto guards = [&](TSNode cond) {
    std::string c = m_.text_of(cond);
    return c == name || c.find(name + " is not None") != std::string::npos || c.find(name + " is None") != std::string::npos;
  };
  // Every node visited, with the index of the one it was reached from: the way up from a read is
  // then the walk's own path (ts_node_parent searches down from the root at each step).
  struct Visited {
    TSNode node;
    size_t from;
  };
  std::vector<Visited> seen{{body, 0}};
  std::vector<size_t> stack{0};
  while (!stack.empty()) {
    size_t at = stack.back();
    TSNode n = seen[at].node;
    stack.pop_back();
    if (is_type(n, "attribute") && is_type(child(n, "object"), "identifier") && m_.text_of(child(n, "object")) == name) {
      std::string attr = m_.text_of(child(n, "attribute"));
      if (attr == "shape" || attr == "stride" || attr == "size" || attr == "dim" || attr == "ndim" || attr == "numel") {
        bool guarded = false;
        // (An attribute is never the body, and never zero-width: its parent is the one it was reached from.)
        for (size_t u = seen[at].from; !guarded && !ts_node_eq(seen[u].node, body); u = seen[u].from) {
          TSNode up = seen[u].node;
          if (is_type(up, "if_statement") || is_type(up, "elif_clause") || is_type(up, "while_statement"))
            guarded = guards(child(up, "condition"));
          else if (is_type(up, "conditional_expression"))
            guarded = guards(named_child(up, 1));
          else if (is_type(up, "boolean_operator"))
            guarded = guards(named_child(up, 0));
        }
        if (!guarded) return true;
      }
    }
    if ((is_type(n, "function_definition") || is_type(n, "lambda")) && !ts_node_eq(n, body)) continue;
    each_named_child(n, [&](TSNode c) {
      stack.push_back(seen.size());
      seen.push_back({c, at});
    });
  }
  return false;
}

// Ranks of the launcher's tensors from how its code reads their shapes.
void LauncherValues::ranks(TSNode body) {
  std::set<std::string> exact;                       // ranks the code states (`M, N = x.shape`), not bounds
  std::vector<std::vector<std::string>> same_dtype;  // `assert q.dtype == k.dtype == v.dtype`
  std::set<std::string> shaped;  // read for a layout other than its element count
  auto at_least = [&](const std::string& name, int64_t r) {
    if (r > 0 && r <= 8) rank_[name] = std::max<int>(rank_[name], static_cast<int>(r));
    shaped.insert(name);
  };
  std::set<std::string> counted;  // `x.numel()`: read as a flat run of elements
  auto shape_owner = [&](TSNode e) -> std::string {  // `x.shape` / `x.size()` -> "x"
    if (is_type(e, "attribute") && m_.text_of(field(e, "attribute")) == "shape" && is_type(field(e, "object"), "identifier"))
      return m_.text_of(field(e, "object"));
    if (is_type(e, "call") && ts_node_named_child_count(field(e, "arguments")) == 0) {
      TSNode fn = field(e, "function");
      if (is_type(fn, "attribute") && m_.text_of(field(fn, "attribute")) == "size" && is_type(field(fn, "object"), "identifier"))
        return m_.text_of(field(fn, "object"));
    }
    return "";
  };
  // The types told apart, by grammar symbol: every node of every launcher body is asked.
  static const PythonTypeSet assignment{"assignment"}, subscript{"subscript"}, call{"call"},
      assert_statement{"assert_statement"}, comparison{"comparison_operator"},
      own_scope{"function_definition", "class_definition", "lambda"}, class_definition{"class_definition"},
      function_or_lambda{"function_definition", "lambda"};
  // One walk for the ranks and for counted_only_ (count_uses): the ranks skip
  // what lies below a nested function, class or lambda, the counts only what lies below a
  // nested function or lambda (so the walk goes on below a class, for the counts alone).
  CountUses counts;
  std::vector<CountVisit> stack{{body, TSNode{}, TSNode{}, false}};
  while (!stack.empty()) {
    CountVisit v = stack.back();
    stack.pop_back();
    TSNode n = v.node;
    TSSymbol t = ts_node_symbol(n);
    bool nested = !ts_node_eq(n, body);
    if (!(function_or_lambda.has(t) && nested)) count_uses(v, body, counts);
    if (v.in_class) {  // below a nested class: the counts' walk alone
      if (!(function_or_lambda.has(t) && nested))
        for_each_named_child(n, [&](TSNode c) { stack.push_back({c, n, v.parent, true}); });
      continue;
    }
    if (assignment.has(t)) {
      TSNode left = field(n, "left");
      TSNode right = field(n, "right");
      std::string owner = shape_owner(right);
      int count = 0;
      bool star = false;
      if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern"))
        for_each_named_child(left, [&](TSNode c) {
          ++count;
          star = star || is_type(c, "list_splat_pattern");
        });
      if (!owner.empty() && count > 0) {
        // `*batch, n = x.shape`: at least the named dimensions; the star takes one.
        rank_[owner] = std::max(rank_[owner], count);
        if (!star) exact.insert(owner);
      } else if (count > 0 && !star && (is_type(right, "expression_list") || is_type(right, "tuple"))) {
        // `B, T, H, K, V = *k.shape, v.shape[-1]`: the splat takes what the other elements leave.
        std::string splat_owner;
        int others = 0, splats = 0;
        for_each_named_child(right, [&](TSNode c) {
          if (leading_splat(c)) {
            ++splats;
            TSNode object = is_type(c, "attribute") ? field(c, "object") : TSNode{};
            if (is_type(object, "list_splat") && m_.text_of(field(c, "attribute")) == "shape" &&
                is_type(ts_node_named_child(object, 0), "identifier"))
              splat_owner = m_.text_of(ts_node_named_child(object, 0));
          } else if (!is_type(c, "comment")) {
            ++others;
          }
        });
        if (splats == 1 && !splat_owner.empty() && count > others) {
          rank_[splat_owner] = count - others;
          exact.insert(splat_owner);
        }
      }
    } else if (subscript.has(t)) {
      std::string owner = shape_owner(field(n, "value"));
      TSNode key = field(n, "subscript");
      if (auto i = owner.empty() ? std::nullopt : signed_integer(m_, key)) at_least(owner, rank_reaching(*i));
      // `g.shape[-2:]`, `x.shape[:2]`: at least as many dimensions as the bounds name.
      if (auto bounds = owner.empty() ? std::nullopt : literal_slice(m_, key)) {
        for (const auto& b : {bounds->first, bounds->second})
          if (b) at_least(owner, *b < 0 ? -*b : *b);
      }
    } else if (call.has(t)) {
      TSNode fn = field(n, "function");
      TSNode args = field(n, "arguments");
      // `assert_size_stride(arg0_1, (16, 16, 4096, 64), (...))`, as Inductor's output code opens
      // its `call`: the launcher states the tensor's whole shape, not its caller.
      if (ends_with(m_.text_of(fn), "assert_size_stride") && ts_node_named_child_count(args) >= 2 &&
          is_type(ts_node_named_child(args, 0), "identifier")) {
        TSNode dims = ts_node_named_child(args, 1);
        json shape = json::array();
        bool literal = is_type(dims, "tuple") || is_type(dims, "list");
        for_each_named_child(dims, [&](TSNode d) {
          auto v = signed_integer(m_, d);
          literal = literal && v && *v >= 0;
          if (literal) shape.push_back(*v);
        });
        std::string owner = m_.text_of(ts_node_named_child(args, 0));
        if (literal && !shape.empty() && shape.size() <= 8) {
          shape_[owner] = shape;
          rank_[owner] = static_cast<int>(shape.size());
          exact.insert(owner);
        }
      }
      if (is_type(fn, "attribute") && is_type(field(fn, "object"), "identifier") && ts_node_named_child_count(args) == 1) {
        std::string method = m_.text_of(field(fn, "attribute"));
        TSNode a = ts_node_named_child(args, 0);
        auto i = method == "size" || method == "stride" ? signed_integer(m_, a) : std::nullopt;
        if (i) at_least(m_.text_of(field(fn, "object")), rank_reaching(*i));
      }
      if (is_type(fn, "attribute") && is_type(field(fn, "object"), "identifier")) {
        std::string method = m_.text_of(field(fn, "attribute"));
        // A tensor read for its layout or data, rank unknown yet: at least 1.
        if (method == "stride" || method == "contiguous" || method == "data_ptr" || method == "is_contiguous" ||
            method == "element_size")
          at_least(m_.text_of(field(fn, "object")), 1);
        if (method == "numel") counted.insert(m_.text_of(field(fn, "object")));
      }
    } else if (assert_statement.has(t)) {
      TSNode c = ts_node_named_child(n, 0);
      // `assert q.dtype == k.dtype == v.dtype`: one element type for all of them.
      if (is_type(c, "comparison_operator") && ts_node_named_child_count(c) >= 2) {
        std::vector<std::string> same;
        bool all_dtypes = true;
        for_each_named_child(c, [&](TSNode x) {
          bool dtype_of_name = is_type(x, "attribute") && m_.text_of(field(x, "attribute")) == "dtype" &&
                               is_type(field(x, "object"), "identifier");
          all_dtypes = all_dtypes && dtype_of_name;
          if (dtype_of_name) same.push_back(m_.text_of(field(x, "object")));
        });
        bool only_equal = true;
        for (uint32_t i = 0; i < ts_node_child_count(c); ++i) {
          TSNode op = ts_node_child(c, i);
          if (!ts_node_is_named(op)) only_equal = only_equal && m_.text_of(op) == "==";
        }
        if (all_dtypes && only_equal) same_dtype.push_back(same);
      }
      // `assert k.shape == (batch, seqlen_k, nheads, d)`: k has that many dimensions.
      if (is_type(c, "comparison_operator") && ts_node_named_child_count(c) == 2) {
        std::string owner = shape_owner(ts_node_named_child(c, 0));
        TSNode r = ts_node_named_child(c, 1);
        if (!owner.empty() && (is_type(r, "tuple") || is_type(r, "list")) && m_.text_of(c).find("==") != std::string::npos) {
          int count = static_cast<int>(ts_node_named_child_count(r));
          if (count > 0 && count <= 8) {
            rank_[owner] = count;
            exact.insert(owner);
          }
        }
      }
      // `assert x.dtype == torch.int8`, `assert x.dtype in (torch.float16, torch.bfloat16)`: the
      // element type the launcher is written for (the first one named).
      if (is_type(c, "comparison_operator")) required_dtype(c, true);
    } else if (comparison.has(t) && ts_node_named_child_count(n) == 2) {
      // `if x.dtype != torch.bfloat16: raise ValueError(...)`: as the assert of its negation.
      if (refused_unless_false(n)) required_dtype(n, false);
      // `x.dim() == 3`, `x.ndim == 2`, `len(x.shape) == 4`; also `if x.ndim != 1 or ...: raise`
      TSNode l = ts_node_named_child(n, 0), r = ts_node_named_child(n, 1);
      bool eq = m_.text_of(n).find("==") != std::string::npos ||
                (m_.text_of(n).find("!=") != std::string::npos && refused_unless_false(n));
      if (eq && is_type(r, "integer")) {
        std::string owner;
        if (is_type(l, "attribute") && m_.text_of(field(l, "attribute")) == "ndim" && is_type(field(l, "object"), "identifier"))
          owner = m_.text_of(field(l, "object"));
        if (is_type(l, "call")) {
          TSNode fn = field(l, "function");
          if (is_type(fn, "attribute") && m_.text_of(field(fn, "attribute")) == "dim" && is_type(field(fn, "object"), "identifier"))
            owner = m_.text_of(field(fn, "object"));
          if (is_type(fn, "identifier") && m_.text_of(fn) == "len")
            owner = shape_owner(ts_node_named_child(field(l, "arguments"), 0));
        }
        if (!owner.empty()) {
          int64_t r64 = std::stoll(m_.text_of(r));
          if (r64 > 0 && r64 <= 8) {
            rank_[owner] = static_cast<int>(r64);
            exact.insert(owner);
          }
        }
      }
    }
    if (own_scope.has(t) && nested) {
      if (class_definition.has(t))
        for_each_named_child(n, [&](TSNode c) { stack.push_back({c, n, v.parent, true}); });
      continue;
    }
    for_each_named_child(n, [&](TSNode c) { stack.push_back({c, n, v.parent, false}); });
  }
  for (const auto& name : counts.refused) counts.counted.erase(name);
  counted_only_ = std::move(counts.counted);
  // A tensor whose code reads only some dimensions (`v.shape[-1]`, `v.shape[2]`) is most often laid
  // out like the launcher's tensors of known rank (q, k, v of one attention): a buffer of too low a
  // rank is what the kernel's strides overrun, one of too high a rank only costs memory.
  for (const auto& group : same_dtype) {
    std::string known;
    for (const auto& name : group)
      if (dtype_.count(name)) known = dtype_[name];
    if (!known.empty())
      for (const auto& name : group) dtype_.emplace(name, known);
  }
  for (const std::string& name : exact) widest_rank_ = std::max(widest_rank_, rank_[name]);
  exact_rank_ = exact;
  for (auto& [name, rank] : rank_)
    if (!exact.count(name)) rank = std::max(rank, widest_rank_);
  // `n = cu_seqlens.numel() - 1` and nothing else of its layout: offsets and counts, flat. (Not
  // a rank the others follow: the launcher's tensors of unread layout stay as they were.)
  for (const std::string& name : counted)
    if (!shaped.count(name) && !exact.count(name)) rank_[name] = 1;
}

void LauncherValues::run(TSNode block, uint32_t until, int depth, uint32_t start) {
  if (ts_node_is_null(block) || depth > 24) return;
  // The statements by index, read once (indexing them one call each is quadratic).
  std::vector<TSNode> own;
  const std::vector<TSNode>& statements = facts_ ? facts_->nodes.named_children(block) : (own = named_children(block));
  uint32_t count = static_cast<uint32_t>(statements.size());
  // The statements left in this block and the enclosing ones, for the paths a helper forks into.
  frames_.push_back({block, start, depth});
  struct Pop {
    std::vector<Frame>& f;
    ~Pop() { f.pop_back(); }
  } pop{frames_};
  for (uint32_t i = start; i < count && !stopped_; ++i) {
    frames_.back().next = i + 1;
    TSNode s = statements[i];
    if (ts_node_start_byte(s) >= until) return;
    std::string_view t = node_type(s);
    if (t == "return_statement") {
      TSNode value = named_child(s, 0);
      returned_ = ts_node_is_null(value) ? std::optional<json>(json(nullptr)) : eval(value);
      stopped_ = true;
      return;
    }
    if (t == "expression_statement") {
      TSNode a = named_child(s, 0);
      if (is_type(a, "assignment")) {
        TSNode right = child(a, "right");
        // `a = b = value`: the right side is itself an assignment.
        std::vector<TSNode> targets{child(a, "left")};
        while (is_type(right, "assignment")) {
          targets.push_back(child(right, "left"));
          right = child(right, "right");
        }
        int sizes_before = tally_->sizes_read;
        std::optional<json> v = ts_node_is_null(right) ? std::nullopt : eval(right);
        std::set<std::string> deps = ts_node_is_null(right) ? std::set<std::string>{} : defaults_read(right);
        if (tally_->sizes_read > sizes_before) deps.insert(kStandInSize);
        for (TSNode left : targets) {
          assign(left, v, right);
          std::vector<TSNode> names{left};
          while (!names.empty()) {
            TSNode n = names.back();
            names.pop_back();
            if (is_type(n, "identifier")) {
              if (deps.empty()) from_defaults_.erase(m_.text_of(n));
              else from_defaults_[m_.text_of(n)] = deps;
            } else if (!is_type(n, "attribute") && !is_type(n, "subscript")) {
              each_named_child(n, [&](TSNode c) { names.push_back(c); });
            }
          }
        }
      } else if (is_type(a, "augmented_assignment")) {
        TSNode left = child(a, "left");
        std::string op = m_.text_of(child(a, "operator"));
        if (is_type(left, "identifier") && op.size() > 1) {
          auto cur = eval(left), rhs = eval(child(a, "right"));
          std::optional<json> v;
          if (cur && rhs) v = arithmetic(*cur, op.substr(0, op.size() - 1), *rhs);
          assign(left, v, TSNode{});
        }
      } else if (is_type(a, "call") && m_.text_of(child(a, "function")) == "ctx.save_for_backward") {
        // What backward unpacks from `ctx.saved_tensors`. Only tensors (or None) can be saved, so
        // one this evaluation cannot tell is a tensor of unknown layout.
        auto ctx = env_.find("ctx");
        if (ctx != env_.end() && ctx->second.is_object() && !is_tensor(ctx->second)) {
          json saved = json::array();
          bool splat = false;
          each_named_child(child(a, "arguments"), [&](TSNode x) {
            if (is_type(x, "comment")) return;
            splat = splat || is_type(x, "list_splat") || is_type(x, "keyword_argument");
            auto v = splat ? std::nullopt : eval(x);
            saved.push_back(v ? *v : tensor(m_.text_of(x), nullptr, nullptr));
          });
          if (!splat) ctx->second["saved_tensors"] = saved;
          else ctx->second.erase("saved_tensors");
        }
      } else if (is_type(a, "call") && ends_with(m_.text_of(child(a, "function")), "assert_size_stride")) {
        // `assert_size_stride(arg0_1, (4, 8, 64), ...)` of a parameter or of a local (`arg0_1, =
        // args`): from here on a tensor of that shape (its element type stays what was known).
        TSNode owner = named_child(child(a, "arguments"), 0);
        auto stated = is_type(owner, "identifier") ? shape_.find(m_.text_of(owner)) : shape_.end();
        if (stated != shape_.end()) {
          auto cur = eval(owner);
          json dtype = cur && is_tensor(*cur) ? (*cur)["dtype"] : json(nullptr);
          env_[stated->first] = tensor(stated->first, stated->second, dtype);
        }
      }
    } else if (t == "if_statement") {
      std::vector<std::pair<TSNode, TSNode>> branches{{child(s, "condition"), child(s, "consequence")}};
      each_named_child(s, [&](TSNode c) {
        if (is_type(c, "elif_clause")) branches.push_back({child(c, "condition"), child(c, "consequence")});
        if (is_type(c, "else_clause")) branches.push_back({TSNode{}, child(c, "body")});
      });
      // (A branch's block starts at its first statement, which may be the launch itself.)
      auto holding = [](uint32_t byte) {
        return [byte](TSNode b) { return ts_node_start_byte(b) <= byte && byte < ts_node_end_byte(b); };
      };
      // Only the branch holding `byte` is on the path, and its tests say what the names they test
      // hold there: the conditions before it were false, its own true.
      auto follow = [&](uint32_t byte, bool note_defaults) {
        for (auto& [cond, body] : branches) {
          if (ts_node_is_null(body)) continue;
          bool here = holding(byte)(body);
          if (!ts_node_is_null(cond)) {
            if (note_defaults) note_contradiction(cond, here);
            narrow(cond, here);
          }
          if (here) {
            run(body, until, depth + 1);
            break;
          }
        }
      };
      if (holding(until)(s)) {
        follow(until, true);
        return;
      }
      // The branch holding `through_` is on the path too; the statements after the `if` follow.
      if (through_ != UINT32_MAX && call_depth_ == 0 && holding(through_)(s)) {
        follow(through_, false);
        continue;
      }
      if (call_depth_ > 0) {
        // A helper: only the branch its values decide, so that the return reached is the right one.
        for (auto& [cond, body] : branches) {
          std::optional<json> v = ts_node_is_null(cond) ? std::optional<json>(true) : tested(eval(cond));
          if (!v) {
            // The values do not decide which return is reached (`if torch.compiler.is_compiling():
            // return x.contiguous()`): a value all the paths from here agree on is still known.
            returned_ = agreed_return(branches, until);
            stopped_ = true;
            return;
          }
          if (check::truthy(*v)) {
            run(body, until, depth + 1);
            break;
          }
        }
        continue;
      }
      // A branch that always leaves the launcher (`if not x.is_cuda: return cpu_path(x)`, `raise`)
      // is on no path to the launch: taken or open, it is not read.
      auto leaves = [&](TSNode body) {
        uint32_t n = named_count(body);
        TSNode last = n ? named_child(body, n - 1) : TSNode{};
        return is_type(last, "return_statement") || is_type(last, "raise_statement");
      };
      // A condition the nominal values decide takes its branch. From the first undecided one on,
      // every remaining branch is read, the first last: a name several of them bind keeps the
      // first branch's value, as an undecided `a if c else b` is `a` (`if x.dtype in (fp32, bf16):
      // ACC = tl.float32 ... else: ACC = tl.int32` with a caller's tensor gives tl.float32).
      std::vector<TSNode> open;
      for (auto& [cond, body] : branches) {
        if (until != UINT32_MAX && !ts_node_is_null(body) && leaves(body)) continue;
        if (!open.empty()) {
          open.push_back(body);
          continue;
        }
        auto v = ts_node_is_null(cond) ? std::optional<json>(true) : tested(eval(cond));
        if (!v) {
          open.push_back(body);
        } else if (check::truthy(*v)) {
          run(body, until, depth + 1);
          break;
        }
      }
      for (auto it = open.rbegin(); it != open.rend(); ++it) run(*it, until, depth + 1);
    } else if (t == "assert_statement") {
      // Counted, not obeyed: the caller tells stand-in sizes the launcher rejects by these.
      auto v = tested(eval(named_child(s, 0)));
      if (v && !check::truthy(*v)) ++tally_->failed_asserts;
    } else if (t == "for_statement") {
      // `for bn, bm in CONFIGS:` over a sequence the launcher knows: the first pass binds the first
      // element, the one a launch retried with smaller blocks on OutOfResources tries first.
      TSNode left = child(s, "left");
      auto sequence = eval(child(s, "right"));
      forget(left);
      if (sequence && sequence->is_array() && !sequence->empty()) assign(left, (*sequence)[0], TSNode{});
      run(child(s, "body"), until, depth + 1);
    } else if (t == "while_statement" || t == "with_statement") {
      run(child(s, "body"), until, depth + 1);
    } else if (t == "try_statement") {
      run(child(s, "body"), until, depth + 1);
    } else if (t != "pass_statement" && t != "function_definition" && t != "class_definition" && t != "comment" &&
               t != "decorated_definition" &&
               t != "import_statement" && t != "import_from_statement" && t != "assert_statement") {
      // A statement not modelled here (`match`, ...): what it assigns is no longer known, and a
      // helper that may return inside it returns nothing known.
      std::vector<TSNode> walk{s};
      while (!walk.empty()) {
        TSNode x = walk.back();
        walk.pop_back();
        if (is_type(x, "return_statement") && call_depth_ > 0) {
          returned_.reset();
          stopped_ = true;
          return;
        }
        if (is_type(x, "assignment") || is_type(x, "augmented_assignment") || is_type(x, "named_expression")) {
          forget(is_type(x, "named_expression") ? child(x, "name") : child(x, "left"));
        }
        each_named_child(x, [&](TSNode c) { walk.push_back(c); });
      }
    }
  }
}

// A launcher parameter's tensor: of the rank its code reads, else as wide as the widest it reads.
json LauncherValues::parameter_tensor(const std::string& name, const json& dtype) {
  auto rank = rank_.find(name);
  int r = rank != rank_.end() ? rank->second : widest_rank_;
  json t = tensor(name, r > 0 ? nominal_shape(r, param_dim()) : json(nullptr), dtype);
  // A rank that is only a bound (`x.shape[-1]`), or the widest stated elsewhere, is a guess: enough
  // for sizes, not to count `*x.stride()`.
  if (r > 0 && !exact_rank_.count(name)) t["$rank_guessed"] = true;
  return t;
}

TSNode LauncherValues::owning_class(TSNode function) const {
  TSNode up = ts_node_parent(function);
  if (is_type(up, "decorated_definition")) up = ts_node_parent(up);
  if (!is_type(up, "block")) return TSNode{};
  up = ts_node_parent(up);
  return is_type(up, "class_definition") ? up : TSNode{};
}

// What the class's `__init__` assigns to `self.X`, as far as its code says with its parameters'
// defaults and annotations (`self.eps = eps` of `eps: float = 1e-6`, `self.weight =
// nn.Parameter(torch.ones(hidden))`, `self.block_size = 128`): an object of those attributes, empty
// for `__init__` itself, a helper's evaluation, or a class without one.
TSNode LauncherValues::class_method(TSNode cls, std::string_view name) const {
  TSNode found{};
  each_named_child(child(cls, "body"), [&](TSNode c) {
    TSNode def = is_type(c, "decorated_definition") ? child(c, "definition") : c;
    if (is_type(def, "function_definition") && m_.text_of(child(def, "name")) == name) found = def;
  });
  return found;
}

json LauncherValues::attributes_after(TSNode cls, TSNode method, std::string_view name, const std::string& holder,
                                      bool count_sizes) {
  if (call_depth_ > 0) return json::object();
  TSNode def = class_method(cls, name);
  if (ts_node_is_null(def) || ts_node_eq(def, method)) return json::object();
  // Every launch of the class's methods, and each size it is evaluated with, asks again: once per
  // method and size.
  auto key = std::make_tuple(def.id, dim_, skew_);
  std::pair<json, int> kept;
  if (auto found = facts_ ? facts_->method_attributes.find(key) : decltype(facts_->method_attributes)::iterator{};
      facts_ && found != facts_->method_attributes.end()) {
    kept = found->second;
  } else {
    // Its own tally: the method's failed asserts are not on the launch's path.
    auto tally = std::make_shared<Tally>();
    LauncherValues in_method(m_, def, UINT32_MAX, callees_, nullptr, 0, dim_, facts_, fork_budget_, skew_, tally, nullptr);
    auto held = in_method.env_.find(holder);
    kept = {held != in_method.env_.end() && held->second.is_object() ? held->second : json::object(), tally->sizes_read};
    if (facts_) facts_->method_attributes.emplace(key, kept);
  }
  if (count_sizes) tally_->sizes_read += kept.second;
  return kept.first;
}

void LauncherValues::narrow(TSNode condition, bool truth, int depth) {
  if (ts_node_is_null(condition) || depth > 8) return;
  std::string_view t = node_type(condition);
  if (t == "parenthesized_expression") return narrow(named_child(condition, 0), truth, depth + 1);
  if (t == "not_operator") return narrow(child(condition, "argument"), !truth, depth + 1);
  if (t == "boolean_operator") {
    // Both sides hold only where `a and b` is true, or `a or b` false.
    std::string op = m_.text_of(child(condition, "operator"));
    if ((op == "and") == truth) {
      narrow(child(condition, "left"), truth, depth + 1);
      narrow(child(condition, "right"), truth, depth + 1);
    }
    return;
  }
  auto nominal_tensor = [&](const std::string& name) {
    auto stated = dtype_.find(name);
    return parameter_tensor(name, stated != dtype_.end() ? json(stated->second) : json(nullptr));
  };
  if (t == "identifier") {
    // `if causal:` on the path: a flag the launcher was given is what the path needs.
    std::string name = m_.text_of(condition);
    if (auto held = env_.find(name); held != env_.end() && held->second.is_boolean()) held->second = truth;
    return;
  }
  if (t == "call" && m_.text_of(child(condition, "function")) == "isinstance") {
    TSNode args = child(condition, "arguments");
    TSNode subject = named_child(args, 0), types = named_child(args, 1);
    if (!is_type(subject, "identifier") || ts_node_is_null(types)) return;
    std::string name = m_.text_of(subject), tested = m_.text_of(types);
    auto held = this->name(name);
    bool tensor_type = tested.find("Tensor") != std::string::npos;
    bool number_type = !tensor_type && (tested.find("float") != std::string::npos ||
                                        tested.find("int") != std::string::npos || tested.find("Number") != std::string::npos);
    bool tensor_now = held && is_tensor(*held);
    if (tensor_now && ((tensor_type && !truth) || (number_type && truth))) env_[name] = 1.0;
    if (!tensor_now && tensor_type && truth) env_[name] = nominal_tensor(name);
    return;
  }
  if (t == "comparison_operator") {
    TSNode subject = named_child(condition, 0), other = named_child(condition, 1);
    // `a.dtype in DTYPE_I8`, `a.dtype == torch.int8` holding: a's elements are of that type (the
    // first of several).
    if (truth && named_count(condition) == 2 && is_type(subject, "attribute") &&
        m_.text_of(child(subject, "attribute")) == "dtype" && is_type(child(subject, "object"), "identifier")) {
      std::string op(ts_node_type(ts_node_child(condition, 1)));
      auto v = op == "==" || op == "in" ? eval(other, depth + 1) : std::nullopt;
      const json* dt = v && is_dtype(*v) ? &*v : v && v->is_array() && !v->empty() && is_dtype((*v)[0]) ? &(*v)[0] : nullptr;
      auto held = env_.find(m_.text_of(child(subject, "object")));
      if (dt && (*dt)["$dtype"].is_string() && held != env_.end() && is_tensor(held->second))
        held->second["dtype"] = (*dt)["$dtype"];
      return;
    }
    // `bias is None` / `bias is not None`.
    if (!is_type(subject, "identifier") || !is_type(other, "none") || named_count(condition) != 2) return;
    std::string text = m_.text_of(condition);
    bool negated = text.find(" is not ") != std::string::npos || text.find("!=") != std::string::npos;
    if (!negated && text.find(" is ") == std::string::npos && text.find("==") == std::string::npos) return;
    std::string name = m_.text_of(subject);
    auto held = this->name(name);
    bool none_here = negated != truth;
    if (none_here) env_[name] = nullptr;
    else if (held && held->is_null() && !annotated_untensored_.count(name)) env_[name] = nominal_tensor(name);
    else if (held && held->is_null()) env_.erase(name);  // something other than None, not known
  }
}

// Each name `e` reads that has defaults behind it in from_defaults_, with them.
template <typename F>
void LauncherValues::each_default_read(TSNode e, F&& f) const {
  std::vector<TSNode> walk{e};
  while (!walk.empty()) {
    TSNode n = walk.back();
    walk.pop_back();
    if (is_type(n, "identifier")) {
      std::string id = m_.text_of(n);
      if (auto d = from_defaults_.find(id); d != from_defaults_.end()) f(id, d->second);
      continue;
    }
    // `x.attr`: the object is read, the attribute's name is no variable.
    if (is_type(n, "attribute")) {
      walk.push_back(child(n, "object"));
      continue;
    }
    each_named_child(n, [&](TSNode c) { walk.push_back(c); });
  }
}

std::set<std::string> LauncherValues::defaults_read(TSNode e) const {
  std::set<std::string> out;
  if (from_defaults_.empty()) return out;
  each_default_read(e, [&](const std::string&, const std::set<std::string>& d) { out.insert(d.begin(), d.end()); });
  return out;
}

// On the launch's path `condition` is `truth`. Where the values computed from defaults say
// otherwise, those defaults do not hold there; narrow() settles a test of a parameter itself
// (`if causal:`, `bias is not None`), so only names computed from other defaults count.
void LauncherValues::note_contradiction(TSNode condition, bool truth) {
  if (from_defaults_.empty()) return;
  int sizes_before = tally_->sizes_read;
  auto v = tested(eval(condition));
  if (!v || check::truthy(*v) == truth || tally_->sizes_read > sizes_before) return;
  // `if D <= 512: ... else: launch` with stand-in sizes: the sizes are off, not the defaults.
  if (defaults_read(condition).count(kStandInSize)) return;
  each_default_read(condition, [&](const std::string& id, const std::set<std::string>& d) {
    if (d != std::set<std::string>{id}) contradicted_.insert(d.begin(), d.end());
  });
}

void LauncherValues::forget(TSNode target) {
  std::vector<TSNode> names{target};
  while (!names.empty()) {
    TSNode n = names.back();
    names.pop_back();
    if (is_type(n, "identifier")) {
      env_.erase(m_.text_of(n));
      from_defaults_.erase(m_.text_of(n));
    }
    each_named_child(n, [&](TSNode c) { names.push_back(c); });
  }
}

std::optional<json> LauncherValues::agreed_return(const std::vector<std::pair<TSNode, TSNode>>& branches,
                                                  uint32_t until) const {
  bool has_else = !branches.empty() && ts_node_is_null(branches.back().first);
  size_t paths = branches.size() + (has_else ? 0 : 1);
  if (!fork_budget_ || *fork_budget_ < static_cast<int>(paths)) return std::nullopt;
  *fork_budget_ -= static_cast<int>(paths);
  std::optional<json> agreed;
  for (size_t b = 0; b < paths; ++b) {
    LauncherValues path = *this;
    if (b < branches.size()) path.run(branches[b].second, until, frames_.back().depth + 1);
    // Then what follows the `if`, innermost block first.
    std::vector<Frame> rest = frames_;
    while (!rest.empty() && !path.stopped_) {
      Frame f = rest.back();
      rest.pop_back();
      path.frames_ = rest;
      path.run(f.block, until, f.depth, f.next);
    }
    if (!path.stopped_ || !path.returned_) return std::nullopt;
    if (agreed && *agreed != *path.returned_) return std::nullopt;
    agreed = path.returned_;
  }
  return agreed;
}

void LauncherValues::assign(TSNode left, const std::optional<json>& value, TSNode right) {
  // `self.eps = eps` in a method: an attribute of the instance; `ctx.eps = eps` in an autograd
  // Function's forward, one backward reads (see attributes_after).
  std::string holder = is_type(left, "attribute") && is_type(child(left, "object"), "identifier")
                           ? m_.text_of(child(left, "object"))
                           : "";
  if (holder == "self" || holder == "ctx") {
    auto self = env_.find(holder);
    if (self == env_.end() || !self->second.is_object() || is_tensor(self->second)) return;
    std::string attr = m_.text_of(child(left, "attribute"));
    if (value) self->second[attr] = *value;
    else self->second.erase(attr);
    return;
  }
  if (is_type(left, "identifier")) {
    std::string name = m_.text_of(left);
    if (!ts_node_is_null(right)) assigned_[name] = right;
    if (!value) {
      if (!untold_call_tensor(name, right)) env_.erase(name);
      return;
    }
    json v = *value;
    if (is_tensor(v) && v["$tensor"].get<std::string>().empty()) v["$tensor"] = name;  // a fresh buffer
    env_[name] = v;
    return;
  }
  if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern") || is_type(left, "list_pattern")) {
    std::vector<TSNode> parts;
    int star = -1;
    each_named_child(left, [&](TSNode c) {
      if (is_type(c, "list_splat_pattern")) star = static_cast<int>(parts.size());
      parts.push_back(c);
    });
    size_t n = value && value->is_array() ? value->size() : 0;
    if (star >= 0 && value && value->is_array() && n + 1 >= parts.size()) {
      // `*batch, n_cols = x.shape`: the starred name takes what the others leave, as a list.
      size_t tail = parts.size() - static_cast<size_t>(star) - 1;
      for (size_t i = 0; i < static_cast<size_t>(star); ++i) assign(parts[i], (*value)[i], TSNode{});
      json middle = json::array();
      for (size_t i = static_cast<size_t>(star); i < n - tail; ++i) middle.push_back((*value)[i]);
      assign(named_child(parts[static_cast<size_t>(star)], 0), middle, TSNode{});
      for (size_t i = 0; i < tail; ++i) assign(parts[parts.size() - tail + i], (*value)[n - tail + i], TSNode{});
      return;
    }
    bool fits = value && value->is_array() && n == parts.size();
    // `fwd, bwd = ops.k_fwd, ops.k_bwd`: each name is assigned its own expression (assigned()).
    std::vector<TSNode> sides;
    if (is_type(right, "expression_list") || is_type(right, "tuple"))
      each_named_child(right, [&](TSNode c) { sides.push_back(c); });
    if (sides.size() != parts.size()) sides.assign(parts.size(), TSNode{});
    for (size_t i = 0; i < parts.size(); ++i) {
      if (!fits && is_type(parts[i], "identifier") && untold_call_tensor(m_.text_of(parts[i]), right)) continue;
      assign(parts[i], fits ? std::optional<json>((*value)[i]) : std::nullopt, sides[i]);
    }
  }
}

bool LauncherValues::untold_call_tensor(const std::string& name, TSNode right) {
  if (!is_type(right, "call") || !rank_.count(name)) return false;
  // Not an untold update of the name's own value (`q = F.pad(q, ...)`): the launcher's reads of
  // the name (`bs, n, h, r, d = q.shape` before a view) need not describe what the call made.
  if (free_names(m_.tree(), right).names.count(name)) return false;
  // `scale = scale.contiguous()` where scale is None or a number on this path: no tensor here.
  TSNode fn = child(right, "function");
  if (is_type(fn, "attribute") && is_type(child(fn, "object"), "identifier"))
    if (auto held = this->name(m_.text_of(child(fn, "object"))); held && !is_tensor(*held)) return false;
  auto stated = dtype_.find(name);
  env_[name] = parameter_tensor(name, stated != dtype_.end() ? json(stated->second) : json(nullptr));
  return true;
}

TSNode LauncherValues::assigned(const std::string& name) const {
  auto it = assigned_.find(name);
  return it == assigned_.end() ? TSNode{} : it->second;
}

std::optional<json> LauncherValues::name(const std::string& id) const {
  auto it = env_.find(id);
  if (it != env_.end()) return it->second;
  return std::nullopt;
}

json LauncherValues::env_of(TSNode e) const {
  json out = json::object();
  std::set<std::string> params;
  std::vector<TSNode> stack{e};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is_type(n, "lambda")) {
      each_named_child(child(n, "parameters"), [&](TSNode p) { params.insert(m_.text_of(p)); });
      stack.push_back(child(n, "body"));
      continue;
    }
    if (is_type(n, "attribute")) {
      stack.push_back(child(n, "object"));
      continue;
    }
    if (is_type(n, "keyword_argument")) {
      stack.push_back(child(n, "value"));
      continue;
    }
    if (is_type(n, "identifier")) {
      std::string id = m_.text_of(n);
      if (params.count(id)) continue;
      if (auto v = eval(n)) out[id] = *v;
      continue;
    }
    each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
  return out;
}

std::optional<json> LauncherValues::eval_lambda(TSNode lambda, const json& meta, std::set<std::string>* missing) const {
  if (!is_type(lambda, "lambda")) return eval(lambda);
  TSNode params = child(lambda, "parameters");
  meta_name_ = !ts_node_is_null(params) && named_count(params) > 0 ? m_.text_of(named_child(params, 0)) : "";
  meta_ = &meta;
  missing_meta_ = missing;
  auto v = eval(child(lambda, "body"));
  meta_ = nullptr;
  missing_meta_ = nullptr;
  meta_name_.clear();
  return v;
}

std::optional<json> LauncherValues::eval(TSNode e, int depth) const {
  if (ts_node_is_null(e) || depth > kMaxDepth) return std::nullopt;
  std::string_view t = node_type(e);
  if (t == "integer" || t == "float" || t == "string" || t == "concatenated_string" || t == "true" || t == "false" ||
      t == "none")
    return check::ConstantEvaluator(m_, nullptr).eval(e);
  if (t == "parenthesized_expression") return eval(named_child(e, 0), depth + 1);
  // The value a starred element spreads; its container splices it (see leading_splat).
  if (t == "list_splat") return eval(named_child(e, 0), depth + 1);
  if (t == "identifier") {
    std::string id = m_.text_of(e);
    if (auto v = name(id)) return v;
    if (!meta_name_.empty() && id == meta_name_) return std::nullopt;
    if (m_.import_of(id)) {
      auto q = qualified(e);
      std::string dt = q ? torch_dtype_name(*q) : "";
      if (!dt.empty()) return json{{"$dtype", dt}};
      return std::nullopt;
    }
    check::ConstantEvaluator constants(m_, nullptr);
    if (auto v = constants.eval(e)) return v;
    // `I8 = [torch.int8]`: a module constant of what only the launcher's evaluation reads (dtypes).
    TSNode constant = constants.module_constant(id);
    if (is_type(constant, "list") || is_type(constant, "tuple")) return eval(constant, depth + 1);
    return std::nullopt;
  }
  if (t == "attribute") {
    auto q = qualified(e);
    if (q) {
      std::string dt = torch_dtype_name(*q);
      if (!dt.empty()) return json{{"$dtype", dt}};
      if (q->rfind("triton.language.", 0) == 0) return "tl." + q->substr(16);
    }
    std::string attr = m_.text_of(child(e, "attribute"));
    auto obj = eval(child(e, "object"), depth + 1);
    // `hdl.world_size`, `group.rank` of a process group or symmetric-memory handle the launcher
    // obtained: the check runs on one GPU, a group of one whose rank is 0.
    if (!obj && (attr == "world_size" || attr == "rank")) return json(attr == "rank" ? 0 : 1);
    if (!obj && callees_ && is_type(child(e, "object"), "identifier") && !name(m_.text_of(child(e, "object")))) {
      Callee c = callees_(m_, e);
      if (c.module && !ts_node_is_null(c.class_value)) return check::ConstantEvaluator(*c.module, nullptr).eval(c.class_value);
    }
    if (!obj) return std::nullopt;
    if (is_tensor(*obj)) {
      if (attr == "shape") return known_shape(*obj) ? std::optional<json>((*obj)["shape"]) : std::nullopt;
      if (attr == "dtype") return json{{"$dtype", (*obj)["dtype"]}};
      if (attr == "ndim") return known_shape(*obj) ? std::optional<json>(json((*obj)["shape"].size())) : std::nullopt;
      // The check launches on a GPU: the launcher's tensors are there (`if not x.is_cuda: return
      // cpu_fallback(x)` takes the GPU path).
      if (attr == "is_cuda") return json(true);
      if (attr == "is_cpu") return json(false);
      if (attr == "T" || attr == "mT" || attr == "data") {
        json out = *obj;
        if (attr != "data" && known_shape(out) && out["shape"].size() >= 2) {
          auto& s = out["shape"];
          std::swap(s[s.size() - 1], s[s.size() - 2]);
        }
        return out;
      }
      return std::nullopt;
    }
    if (obj->is_object() && obj->contains(attr)) return (*obj)[attr];
    // The named pair `torch.max(x, dim)`, `x.sort()` and `x.topk(k)` give.
    if (obj->is_array() && obj->size() == 2 && is_tensor((*obj)[0]) && (attr == "values" || attr == "indices"))
      return (*obj)[attr == "values" ? 0 : 1];
    return std::nullopt;
  }
  if (t == "subscript") {
    TSNode value = child(e, "value");
    TSNode key = child(e, "subscript");
    if (meta_ && is_type(value, "identifier") && m_.text_of(value) == meta_name_) {
      auto k = eval(key, depth + 1);
      if (!k || !k->is_string()) return std::nullopt;
      std::string name = k->get<std::string>();
      if (meta_->contains(name)) return (*meta_)[name];
      if (missing_meta_) missing_meta_->insert(name);
      return std::nullopt;
    }
    auto container = eval(value, depth + 1);
    if (!container && is_type(value, "identifier") && !name(m_.text_of(value))) {
      // `TORCH_TO_TRITON[x.dtype]`: a module dict whose keys are no JSON literals (torch dtypes).
      TSNode dict = check::ConstantEvaluator(m_, nullptr).module_constant(m_.text_of(value));
      auto k = is_type(dict, "dictionary") ? eval(key, depth + 1) : std::nullopt;
      std::optional<json> found;
      if (k)
        each_named_child(dict, [&](TSNode pair) {
          if (found || !is_type(pair, "pair")) return;
          auto kk = eval(child(pair, "key"), depth + 1);
          if (kk && *kk == *k) found = eval(child(pair, "value"), depth + 1);
        });
      return found;
    }
    if (!container) return std::nullopt;
    if (is_tensor(*container)) {  // a view of the same buffer
      json out = *container;
      out["shape"] = indexed_shape((*container)["shape"], e, depth);
      return out;
    }
    if (auto bounds = container->is_array() ? literal_slice(m_, key) : std::nullopt) {
      auto [begin, end] = sliced_range(*bounds, static_cast<int64_t>(container->size()));
      json out = json::array();
      for (int64_t i = begin; i < end; ++i) out.push_back((*container)[static_cast<size_t>(i)]);
      return out;
    }
    auto k = eval(key, depth + 1);
    if (!k) return std::nullopt;
    if (container->is_array() && is_int(*k)) {
      int64_t i = as_int(*k), size = static_cast<int64_t>(container->size());
      if (i < 0) i += size;
      if (i >= 0 && i < size) return (*container)[static_cast<size_t>(i)];
      return std::nullopt;
    }
    if (container->is_object() && k->is_string() && container->contains(k->get<std::string>()))
      return (*container)[k->get<std::string>()];
    return std::nullopt;
  }
  if (t == "call") return call(e, depth);
  if (t == "unary_operator") {
    auto v = eval(child(e, "argument"), depth + 1);
    std::string op = m_.text_of(child(e, "operator"));
    if (v && is_tensor(*v) && (op == "-" || op == "+")) return tensor_arithmetic(*v, "*", json(1));
    if (!v || !is_number(*v)) return std::nullopt;
    if (op == "-") return arithmetic(json(0), "-", *v);
    if (op == "+") return v;
    if (op == "~" && is_int(*v)) return ~as_int(*v);
    return std::nullopt;
  }
  if (t == "not_operator") {
    auto v = tested(eval(child(e, "argument"), depth + 1));
    if (!v) return std::nullopt;
    return !check::truthy(*v);
  }
  if (t == "binary_operator") {
    auto a = eval(child(e, "left"), depth + 1);
    auto b = eval(child(e, "right"), depth + 1);
    if (!a || !b) return std::nullopt;
    if (is_tensor(*a) || is_tensor(*b)) return tensor_arithmetic(*a, m_.text_of(child(e, "operator")), *b);
    return arithmetic(*a, m_.text_of(child(e, "operator")), *b);
  }
  if (t == "boolean_operator") {
    auto a = tested(eval(child(e, "left"), depth + 1));
    if (!a) return std::nullopt;
    std::string op = m_.text_of(child(e, "operator"));
    if (op == "and" && !check::truthy(*a)) return a;
    if (op == "or" && check::truthy(*a)) return a;
    return eval(child(e, "right"), depth + 1);
  }
  if (t == "comparison_operator" && named_count(e) == 2) {
    auto a = eval(named_child(e, 0), depth + 1);
    auto b = eval(named_child(e, 1), depth + 1);
    if (!a || !b) return std::nullopt;
    std::string op;
    for (uint32_t i = 0; i < ts_node_child_count(e); ++i) {
      TSNode c = ts_node_child(e, i);
      if (!ts_node_is_named(c)) op += (op.empty() ? "" : " ") + m_.text_of(c);
    }
    auto unknown_dtype = [](const json& v) { return is_dtype(v) && v["$dtype"].is_null(); };
    if (unknown_dtype(*a) || unknown_dtype(*b)) return std::nullopt;  // a dtype the code leaves open
    if ((is_tensor(*a) || is_tensor(*b)) && op != "is" && op != "is not" && op != "in" && op != "not in")
      return tensor_arithmetic(*a, op, *b);
    if (op == "is" || op == "==") return *a == *b;
    if (op == "is not" || op == "!=") return *a != *b;
    if (op == "in" && b->is_array()) {
      for (const auto& x : *b)
        if (x == *a) return true;
      return false;
    }
    if (!is_number(*a) || !is_number(*b)) return std::nullopt;
    double x = as_double(*a), y = as_double(*b);
    if (op == "<") return x < y;
    if (op == "<=") return x <= y;
    if (op == ">") return x > y;
    if (op == ">=") return x >= y;
    return std::nullopt;
  }
  if (t == "conditional_expression") {
    TSNode body = named_child(e, 0), cond = named_child(e, 1), other = named_child(e, 2);
    auto c = tested(eval(cond, depth + 1));
    if (!c) return eval(body, depth + 1);  // the first branch: what the code reads as the usual case
    return eval(check::truthy(*c) ? body : other, depth + 1);
  }
  if (t == "tuple" || t == "list" || t == "expression_list") {
    // `(NK, *v.shape)`: a starred element spreads its sequence in place.
    json out = json::array();
    bool ok = true;
    each_named_child(e, [&](TSNode c) {
      if (!ok || is_type(c, "comment")) return;
      bool splat = leading_splat(c);
      auto v = eval(c, depth + 1);
      if (!v || (splat && !v->is_array())) ok = false;
      else if (splat) for (const auto& x : *v) out.push_back(x);
      else out.push_back(*v);
    });
    if (!ok) return std::nullopt;
    return out;
  }
  return std::nullopt;
}

namespace {

// `v` as Python source: numbers, booleans, None, strings, lists of them and Gluon layouts
// (launcher values of `{"$layout": text}`); "" for anything else.
std::string python_literal(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_null()) return "None";
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) return v.dump();
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    for (char c : s)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ' ' || c == '-')) return "";
    return "'" + s + "'";
  }
  if (v.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      std::string x = python_literal(v[i]);
      if (x.empty()) return "";
      out += (i ? ", " : "") + x;
    }
    return out + "]";
  }
  if (v.is_object() && v.size() == 1 && v.contains("$layout") && v["$layout"].is_string()) return v["$layout"].get<std::string>();
  return "";
}

}  // namespace

std::optional<json> LauncherValues::call(TSNode n, int depth) const {
  TSNode fn = child(n, "function");
  std::vector<TSNode> positional;
  std::map<std::string, TSNode> keywords;
  each_named_child(child(n, "arguments"), [&](TSNode a) {
    if (is_type(a, "comment")) return;
    if (is_type(a, "keyword_argument")) keywords[m_.text_of(child(a, "name"))] = child(a, "value");
    else positional.push_back(a);
  });
  auto arg = [&](size_t i) { return i < positional.size() ? eval(positional[i], depth + 1) : std::nullopt; };
  auto keyword = [&](const std::string& k) {
    auto it = keywords.find(k);
    return it == keywords.end() ? std::nullopt : eval(it->second, depth + 1);
  };
  auto dtype_of = [&](const std::optional<json>& v) -> json {
    if (v && is_dtype(*v)) return (*v)["$dtype"];
    return nullptr;
  };

  auto q = qualified(fn);
  std::string callee = q ? *q : m_.text_of(fn);
  // Methods of values the launcher holds: tensors (x.stride(0), x.view(-1, N)).
  if (is_type(fn, "attribute") && !(q && (q->rfind("torch.", 0) == 0 || q->rfind("triton.", 0) == 0 || q->rfind("math.", 0) == 0))) {
    auto self = eval(child(fn, "object"), depth + 1);
    if (self && is_tensor(*self)) return method(*self, m_.text_of(child(fn, "attribute")), child(n, "arguments"), depth);
  }
  std::string last = last_part(callee);
  bool torch_fn = q && q->rfind("torch.", 0) == 0;
  // A Gluon layout (`gl.BlockedLayout([1], [32], [num_warps], [0])`): a constexpr a kernel takes
  // whole, kept as the Python text that builds it, of literal arguments only.
  if (q && q->rfind("triton.experimental.gluon.language.", 0) == 0 && ends_with(last, "Layout")) {
    std::string text = last + "(";
    bool ok = true, first = true;
    auto add = [&](const std::string& key, TSNode node) {
      auto v = eval(node, depth + 1);
      std::string literal = v ? python_literal(*v) : "";
      ok = ok && !literal.empty();
      text += (first ? "" : ", ") + (key.empty() ? "" : key + "=") + literal;
      first = false;
    };
    for (TSNode p : positional) add("", p);
    for (const auto& [k, node] : keywords) add(k, node);
    if (ok && positional.size() + keywords.size() <= 16) return json{{"$layout", text + ")"}};
    return std::nullopt;
  }
  // `isinstance(a, (float, int))` of a value the launcher holds: a tensor is a Tensor and no
  // number, a number no Tensor (`a: torch.Tensor | float` goes down the tensor path the nominal
  // value takes, so the flags it sets agree with the argument handed on).
  if (callee == "isinstance" && positional.size() == 2) {
    auto v = arg(0);
    if (!v || v->is_null()) return std::nullopt;
    std::vector<std::string> types;
    TSNode t = positional[1];
    if (is_type(t, "tuple") || is_type(t, "parenthesized_expression"))
      each_named_child(t, [&](TSNode c) { types.push_back(last_part(m_.text_of(c))); });
    else
      types.push_back(last_part(m_.text_of(t)));
    bool known = true, match = false;
    for (const std::string& type : types) {
      if (type == "Tensor") match = match || is_tensor(*v);
      else if (type == "float") match = match || v->is_number_float();
      else if (type == "int") match = match || v->is_number_integer() || v->is_boolean();
      else if (type == "bool") match = match || v->is_boolean();
      else if (type == "str") match = match || v->is_string();
      else known = false;
    }
    if (match) return true;
    return known ? std::optional<json>(false) : std::nullopt;
  }
  // `TensorDescriptor.from_tensor(q, [1, 1, BLOCK_M, D])`, `TensorDescriptor(q, shape, strides,
  // block_shape)`: a host-built TMA descriptor over a tensor, with the block it loads.
  if (last == "from_tensor" || last == "TensorDescriptor") {
    bool from_tensor = last == "from_tensor";
    if (from_tensor && callee != "TensorDescriptor.from_tensor" && !ends_with(callee, ".TensorDescriptor.from_tensor"))
      return std::nullopt;
    auto base = arg(0);
    size_t at = from_tensor ? 1 : 3;
    TSNode block_node = keywords.count("block_shape") ? keywords["block_shape"] : at < positional.size() ? positional[at] : TSNode{};
    std::optional<json> block = ts_node_is_null(block_node) ? std::nullopt : eval(block_node, depth + 1);
    if (!block || !block->is_array() || block->empty()) return std::nullopt;
    for (const auto& d : *block)
      if (!is_int(d) || as_int(d) < 1) return std::nullopt;
    // The tensor a descriptor is built over has the block's rank, whether or not its shape was read.
    if (!base && !positional.empty() && is_type(positional[0], "identifier"))
      base = tensor(m_.text_of(positional[0]), nominal_shape(static_cast<int>(block->size()), dim_), nullptr);
    if (!base || !is_tensor(*base)) return std::nullopt;
    // TMA loads at least 16 bytes along the innermost dimension: a narrower block (`[1, 1]`) is a
    // placeholder that an autotune pre-hook replaces with the config's block, not a fact.
    int64_t bytes = (*base)["dtype"].is_string() ? dtype_bytes((*base)["dtype"].get<std::string>()) : 2;
    if (as_int(block->back()) * std::max<int64_t>(bytes, 1) < 16) return json{{"$descriptor", *base}, {"block", nullptr}};
    json out{{"$descriptor", *base}, {"block", *block}};
    // Each dimension as written: a kernel constexpr the launch gives by the same expression sizes it.
    if (is_type(block_node, "list") || is_type(block_node, "tuple")) {
      json texts = json::array();
      each_named_child(block_node, [&](TSNode d) {
        if (!is_type(d, "comment")) texts.push_back(m_.text_of(d));
      });
      if (texts.size() == block->size()) out["block_text"] = texts;
    }
    return out;
  }
  // `torch.tensor([512, 1024], dtype=torch.int32)`: shaped as the data nests; typed as stated, else
  // as torch types the data (int64 for integers, float32 once a float is among them, bool).
  if (torch_fn && (last == "tensor" || last == "as_tensor") && !positional.empty()) {
    auto data = arg(0);
    json dt = dtype_of(keyword("dtype"));
    if (data && is_tensor(*data)) return tensor("", (*data)["shape"], dt.is_null() ? (*data)["dtype"] : dt);
    json shape = nullptr;
    // An empty list is one the launcher fills in later (`addrs.append(a.data_ptr())`): of no
    // known length or type yet.
    if (data && data->is_array() && data->empty()) data.reset();
    if (data) {
      shape = json::array();
      for (const json* level = &*data; level->is_array(); level = &(*level)[0]) {
        shape.push_back(level->size());
        if (level->empty()) break;
      }
    }
    if (dt.is_null() && !keywords.count("dtype") && data) {
      bool floats = false, bools = true, leaves = true, any = false;
      std::vector<const json*> walk{&*data};
      while (!walk.empty()) {
        const json* v = walk.back();
        walk.pop_back();
        if (v->is_array()) {
          for (const auto& x : *v) walk.push_back(&x);
        } else {
          any = true;
          leaves = leaves && (v->is_number() || v->is_boolean());
          floats = floats || v->is_number_float();
          bools = bools && v->is_boolean();
        }
      }
      if (leaves && any) dt = floats ? "fp32" : bools ? "i1" : "i64";
    }
    return tensor("", shape, dt);
  }
  // `dist.get_world_size(group)`, `dist.get_rank()`, `group.size()`: one GPU, rank 0.
  if (last == "get_world_size" || last == "get_rank") return json(last == "get_rank" ? 0 : 1);
  // Inductor's output code allocates with `empty_strided_cuda(size, stride, dtype)`.
  bool inductor_alloc = last == "empty_strided_cuda" || last == "_empty_strided_cuda";
  if (inductor_alloc && !keywords.count("dtype") && positional.size() >= 3) keywords["dtype"] = positional[2];
  if ((torch_fn || inductor_alloc) &&
      (last == "empty" || last == "zeros" || last == "ones" || last == "rand" || last == "randn" || last == "full" ||
       last == "empty_strided" || last == "randint" || inductor_alloc)) {
    std::optional<json> shape;
    if (last == "randint") shape = keyword("size") ? keyword("size") : arg(positional.size() >= 3 ? 2 : 1);
    else if (positional.size() == 1 || last == "full" || last == "empty_strided" || inductor_alloc) shape = arg(0);
    else if (!positional.empty()) {
      json dims = json::array();
      bool ok = true;
      for (size_t i = 0; i < positional.size() && ok; ++i) {
        auto d = arg(i);
        ok = d && is_int(*d);
        if (ok) dims.push_back(*d);
      }
      if (ok) shape = dims;
    } else {
      shape = keyword("size");
    }
    if (shape && is_int(*shape)) shape = json::array({*shape});
    // No dtype is torch's default; a dtype the launcher takes from its caller
    // (`dtype=topk_ids.dtype`) is unknown, for the kernel's own evidence to decide.
    json dt = dtype_of(keyword("dtype"));
    if (dt.is_null() && !keywords.count("dtype")) dt = last == "randint" ? json("i64") : json("fp32");
    bool ok = shape && shape->is_array();
    if (ok)
      for (const auto& d : *shape) ok = ok && is_int(d);
    return tensor("", ok ? *shape : json(nullptr), dt);
  }
  // `torch.reshape(x, (C, H, W))`, `torch.flatten(x)`: the method of the tensor it is handed first.
  // A tensor of no known shape is left unknown: the launcher's reads then stand it in by rank.
  static const std::set<std::string> kTensorFunctions = {"reshape", "flatten", "transpose", "swapaxes", "permute",
                                                         "squeeze", "unsqueeze", "t", "clone", "detach"};
  if (torch_fn && kTensorFunctions.count(last) && !positional.empty() && q->find('.', 6) == std::string::npos)
    if (auto x = arg(0); x && is_tensor(*x) && x->contains("shape") && !(*x)["shape"].is_null())
      return method(*x, last, child(n, "arguments"), depth, true);  // of no known shape, as unknown as before
  if (torch_fn && ends_with(last, "_like") && !positional.empty()) {
    auto like = arg(0);
    json dt = dtype_of(keyword("dtype"));
    if (like && is_tensor(*like)) return tensor("", (*like)["shape"], dt.is_null() ? (*like)["dtype"] : dt);
    return tensor("", nullptr, dt);
  }
  if (torch_fn && (last == "finfo" || last == "iinfo") && positional.size() == 1) {
    // Limits of an element type, as `torch.finfo(dtype).max` reads them.
    auto v = arg(0);
    std::string dt = v && is_dtype(*v) && (*v)["$dtype"].is_string() ? (*v)["$dtype"].get<std::string>() : "";
    if (v && is_tensor(*v) && (*v)["dtype"].is_string()) dt = (*v)["dtype"].get<std::string>();
    static const std::map<std::string, std::pair<double, double>> kLimits = {  // max, eps
        {"fp8e4nv", {448.0, 0.125}}, {"fp8e5", {57344.0, 0.25}},   {"fp16", {65504.0, 0.0009765625}},
        {"bf16", {3.3895313892515355e38, 0.0078125}},               {"fp32", {3.4028234663852886e38, 1.1920928955078125e-07}},
        {"fp64", {1.7976931348623157e308, 2.220446049250313e-16}}, {"i8", {127, 1}},
        {"u8", {255, 1}}, {"i16", {32767, 1}}, {"i32", {2147483647.0, 1}}};
    // Of a tensor whose element type the launcher leaves to its caller: the fp32 every such
    // tensor stands in as (i32 for iinfo), so the limit agrees with the buffer the check passes.
    bool unknown = !v || (is_dtype(*v) && (*v)["$dtype"].is_null()) || (is_tensor(*v) && (*v)["dtype"].is_null());
    if (dt.empty() && unknown) dt = last == "finfo" ? "fp32" : "i32";
    auto it = kLimits.find(dt);
    if (it == kLimits.end()) return std::nullopt;
    bool integer = dt[0] == 'i' || dt[0] == 'u';
    json info = json::object();
    info["max"] = integer ? json(static_cast<int64_t>(it->second.first)) : json(it->second.first);
    info["min"] = integer ? json(dt[0] == 'u' ? int64_t{0} : -static_cast<int64_t>(it->second.first) - 1) : json(-it->second.first);
    if (!integer) info["eps"] = it->second.second;
    return info;
  }
  if (torch_fn && last == "arange") {
    std::optional<json> a = arg(0), b = arg(1);
    json dt = dtype_of(keyword("dtype"));
    int64_t count = -1;
    if (a && b && is_int(*a) && is_int(*b)) count = as_int(*b) - as_int(*a);
    else if (a && !b && is_int(*a)) count = as_int(*a);
    return tensor("", count >= 0 ? json::array({count}) : json(nullptr), dt.is_null() ? json("i64") : dt);
  }
  // `torch.sort(x)`, `torch.cumsum(counts, 0)`: as the methods of the tensor.
  // `torch.amax(x, dim=1)`, `torch.abs(x)`: as the methods too.
  if (torch_fn && !positional.empty() && (indexing_function(last) || elementwise_function(last) || reduction_function(last))) {
    if (auto self = arg(0); self && is_tensor(*self)) {
      std::vector<std::optional<json>> rest;
      for (size_t i = 1; i < positional.size(); ++i) rest.push_back(arg(i));
      std::map<std::string, std::optional<json>> named;
      for (const auto& [k, v] : keywords) named[k] = eval(v, depth + 1);
      if (auto r = indexing_result(*self, last, rest, named)) return r;
      if (auto r = derived_result(*self, last, rest, named)) return r;
    }
  }
  if ((ends_with(callee, "next_power_of_2")) && positional.size() == 1) {
    auto v = arg(0);
    if (!v || !is_int(*v)) return std::nullopt;
    return check::next_power_of_2(as_int(*v));
  }
  if (ends_with(callee, "cdiv") && positional.size() == 2) {
    auto a = arg(0), b = arg(1);
    if (!a || !b || !is_int(*a) || !is_int(*b) || as_int(*b) == 0) return std::nullopt;
    return floor_div(as_int(*a) + as_int(*b) - 1, as_int(*b));
  }
  if ((callee == "min" || callee == "max") && !positional.empty()) {
    std::vector<json> values;
    if (positional.size() == 1) {
      auto all = arg(0);
      if (!all || !all->is_array()) return std::nullopt;
      for (const auto& v : *all) values.push_back(v);
    } else {
      for (size_t i = 0; i < positional.size(); ++i) {
        auto v = arg(i);
        if (!v) return std::nullopt;
        values.push_back(*v);
      }
    }
    std::optional<json> best;
    for (const auto& v : values) {
      if (!is_number(v)) return std::nullopt;
      if (!best || (callee == "min" ? as_double(v) < as_double(*best) : as_double(v) > as_double(*best))) best = v;
    }
    return best;
  }
  if (callee == "len" && positional.size() == 1) {
    auto v = arg(0);
    if (v && v->is_array()) return json(v->size());
    if (v && is_tensor(*v) && known_shape(*v) && !(*v)["shape"].empty()) return (*v)["shape"][0];
    return std::nullopt;
  }
  if ((callee == "int" || callee == "float" || callee == "abs" || callee == "round") && positional.size() == 1) {
    auto v = arg(0);
    if (!v || !is_number(*v)) return std::nullopt;
    if (callee == "int" || callee == "round") return static_cast<int64_t>(callee == "int" ? as_double(*v) : std::round(as_double(*v)));
    if (callee == "float") return as_double(*v);
    return is_int(*v) ? json(std::llabs(as_int(*v))) : json(std::fabs(as_double(*v)));
  }
  if (q && q->rfind("math.", 0) == 0 && positional.size() >= 1) {
    auto v = arg(0);
    if (!v || !is_number(*v)) return std::nullopt;
    double x = as_double(*v);
    if (last == "ceil") return static_cast<int64_t>(std::ceil(x));
    if (last == "floor") return static_cast<int64_t>(std::floor(x));
    if (last == "sqrt") return std::sqrt(x);
    if (last == "log2") return std::log2(x);
    if (last == "log") return std::log(x);
    if (last == "exp") return std::exp(x);
    return std::nullopt;
  }
  if (auto v = helper(n, depth)) return v;
  return check::ConstantEvaluator(m_, nullptr).eval(n);
}

std::optional<json> LauncherValues::helper(TSNode call, int depth) const {
  constexpr int kMaxCallDepth = 3;
  if (!callees_ || call_depth_ >= kMaxCallDepth) return std::nullopt;
  Callee callee = callees_(m_, child(call, "function"));
  if (!callee.module || ts_node_is_null(callee.definition)) return std::nullopt;
  std::map<std::string, json> bound = call_arguments(*callee.module, callee.definition, call, depth + 1);
  // The evaluation below depends on the definition, the call depth, the stand-in size (helpers run
  // unskewed, with a fork budget of their own) and the bound values alone: kept by those, with
  // the sizes it read, which count for this evaluation again. The values' text finds the entry;
  // equal values then decide (a text may stand for two strings JSON cannot hold).
  std::tuple<const void*, const void*, int, int64_t, std::string> key;
  auto* kept = facts_ ? &facts_->helper_returns : nullptr;
  if (kept) {
    std::string values;
    for (const auto& [name, v] : bound) {
      values += name;
      values += '\0';
      values += v.dump(-1, ' ', false, json::error_handler_t::replace);
      values += '\0';
    }
    key = {callee.module, callee.definition.id, call_depth_ + 1, dim_, std::move(values)};
    auto found = kept->find(key);
    if (found != kept->end() && found->second.bound == bound) {
      tally_->sizes_read += found->second.added.sizes_read;
      tally_->failed_asserts += found->second.added.failed_asserts;
      return found->second.returned;
    }
  }
  Tally before = *tally_;
  LauncherValues inner(*callee.module, callee.definition, UINT32_MAX, callees_, &bound, call_depth_ + 1, dim_, facts_,
                       std::make_shared<int>(kMaxForkedPaths), 0, tally_);
  if (kept)
    kept->try_emplace(std::move(key), HelperReturn{bound, inner.returned(),
                                                   {tally_->sizes_read - before.sizes_read,
                                                    tally_->failed_asserts - before.failed_asserts}});
  return inner.returned();
}

std::map<std::string, json> LauncherValues::call_arguments(const PythonModule& callee, TSNode definition, TSNode call,
                                                           int depth) const {
  std::vector<std::string> params;
  // A classmethod's `cls` is bound by the call itself, not by its arguments.
  bool bound_first = false;
  if (TSNode decorated = ts_node_parent(definition); is_type(decorated, "decorated_definition"))
    for (TSNode d : decorators_of(decorated)) bound_first = bound_first || callee.text_of(d) == "classmethod";
  each_named_child(child(definition, "parameters"), [&](TSNode p) {
    std::string_view t = node_type(p);
    if (t == "comment") return;  // `q: torch.Tensor,  # [B, H, T, D]`
    if (bound_first) {
      bound_first = false;
      return;
    }
    if (t == "identifier") params.push_back(callee.text_of(p));
    else if (t == "default_parameter" || t == "typed_default_parameter") params.push_back(callee.text_of(child(p, "name")));
    else if (t == "typed_parameter" && is_type(named_child(p, 0), "identifier"))
      params.push_back(callee.text_of(named_child(p, 0)));
    else params.push_back("");  // *args, **kwargs, `/`, `*`: positions past it are not bound
  });
  std::map<std::string, json> bound;
  size_t position = 0;
  bool positions = true;
  each_named_child(child(call, "arguments"), [&](TSNode a) {
    if (is_type(a, "comment")) return;
    if (is_type(a, "keyword_argument")) {
      if (auto v = eval(child(a, "value"), depth)) bound[m_.text_of(child(a, "name"))] = *v;
      return;
    }
    if (is_type(a, "list_splat") || is_type(a, "dictionary_splat")) {
      positions = false;
      return;
    }
    if (!positions || position >= params.size() || params[position].empty()) {
      positions = false;
      return;
    }
    if (auto v = eval(a, depth)) bound[params[position]] = *v;
    ++position;
  });
  return bound;
}

std::optional<json> LauncherValues::method(const json& self, const std::string& name, TSNode arguments, int depth,
                                           bool self_first) const {
  std::vector<std::optional<json>> args;
  std::map<std::string, std::optional<json>> keywords;
  bool skip = self_first;
  each_named_child(arguments, [&](TSNode a) {
    if (is_type(a, "comment")) return;
    if (skip && !is_type(a, "keyword_argument")) {
      skip = false;
      return;
    }
    if (is_type(a, "keyword_argument")) {
      keywords[m_.text_of(child(a, "name"))] = eval(child(a, "value"), depth + 1);
    } else if (leading_splat(a)) {  // `q.new_empty(NK, *v.shape)`
      auto v = eval(a, depth + 1);
      if (v && v->is_array()) for (const auto& x : *v) args.push_back(x);
      else args.push_back(std::nullopt);
    } else {
      args.push_back(eval(a, depth + 1));
    }
  });
  if (auto r = indexing_result(self, name, args, keywords)) return r;
  if (auto r = derived_result(self, name, args, keywords)) return r;
  bool shaped = known_shape(self);
  const json shape = shaped ? self["shape"] : json(nullptr);
  size_t rank = shaped ? shape.size() : 0;
  auto int_arg = [&](size_t i) -> std::optional<int64_t> {
    if (i < args.size() && args[i] && is_int(*args[i])) return as_int(*args[i]);
    return std::nullopt;
  };
  auto with = [&](const json& new_shape, const json& dtype, bool fresh) {
    json out = self;
    out["shape"] = new_shape;
    out["dtype"] = dtype;
    if (fresh) out["$tensor"] = "";
    if (fresh) out.erase("$autocast");  // a cast or a new buffer states its own type
    return out;
  };
  if (name == "stride") {
    if (!shaped) return std::nullopt;
    json strides = contiguous_strides(shape);
    if (args.empty()) return strides;
    auto i = int_arg(0);
    if (!i) return std::nullopt;
    int64_t a = normalized_axis(*i, rank);
    return a >= 0 && a < static_cast<int64_t>(rank) ? std::optional<json>(strides[a]) : std::nullopt;
  }
  if (name == "size") {
    if (!shaped) return std::nullopt;
    if (args.empty()) return shape;
    auto i = int_arg(0);
    if (!i) return std::nullopt;
    int64_t a = normalized_axis(*i, rank);
    return a >= 0 && a < static_cast<int64_t>(rank) ? std::optional<json>(shape[a]) : std::nullopt;
  }
  if (name == "numel" || name == "nelement") return shaped ? std::optional<json>(product(shape)) : std::nullopt;
  if (name == "dim" || name == "ndimension") return shaped ? std::optional<json>(json(rank)) : std::nullopt;
  if (name == "element_size")
    return self["dtype"].is_string() ? std::optional<json>(dtype_bytes(self["dtype"].get<std::string>())) : std::nullopt;
  if (name == "is_contiguous") return true;
  if (name == "contiguous" || name == "clone" || name == "detach" || name == "cuda" || name == "requires_grad_" ||
      name == "zero_" || name == "fill_" || name == "normal_" || name == "uniform_")
    return self;
  static const std::map<std::string, std::string> kCasts = {
      {"float", "fp32"}, {"half", "fp16"}, {"bfloat16", "bf16"}, {"double", "fp64"}, {"int", "i32"},
      {"long", "i64"},   {"bool", "i1"},   {"byte", "u8"},       {"char", "i8"},    {"short", "i16"}};
  auto cast = kCasts.find(name);
  if (cast != kCasts.end() && args.empty()) return with(shape, cast->second, true);
  if (name == "to" || name == "type") {
    std::optional<json> target = keywords.count("dtype") ? keywords["dtype"] : (args.empty() ? std::nullopt : args[0]);
    if (target && is_dtype(*target)) return with(shape, (*target)["$dtype"], true);
    if (target && is_tensor(*target)) return with(shape, (*target)["dtype"], true);
    return self;
  }
  if (name == "view" || name == "reshape" || name == "expand" || name == "new_empty" || name == "new_zeros" ||
      name == "new_ones" || name == "new_full" || name == "view_as" || name == "reshape_as" || name == "expand_as") {
    if (name == "view" && args.size() == 1 && args[0] && is_dtype(*args[0]))
      return with(nullptr, (*args[0])["$dtype"], false);
    json dims = json::array();
    bool ok = true;
    if ((name == "view_as" || name == "reshape_as" || name == "expand_as") && !args.empty() && args[0] && is_tensor(*args[0])) {
      json out = with((*args[0])["shape"], self["dtype"], false);
      if (args[0]->contains("$rank_guessed")) out["$rank_guessed"] = true;
      else out.erase("$rank_guessed");
      return out;
    }
    size_t count = name == "new_full" ? std::min<size_t>(args.size(), 1) : args.size();
    for (size_t i = 0; i < count && ok; ++i) {
      if (!args[i]) ok = false;
      else if (args[i]->is_array()) for (const auto& d : *args[i]) dims.push_back(d);
      else dims.push_back(*args[i]);
    }
    for (const auto& d : dims) ok = ok && is_int(d);
    if (!ok) return with(nullptr, self["dtype"], name.rfind("new_", 0) == 0);
    if (name == "view" || name == "reshape") {  // -1 takes what the others leave
      int64_t known = 1, unknown_at = -1;
      for (size_t i = 0; i < dims.size(); ++i) {
        if (as_int(dims[i]) == -1) unknown_at = static_cast<int64_t>(i);
        else known *= std::max<int64_t>(1, as_int(dims[i]));
      }
      if (unknown_at >= 0) {
        if (!shaped) return with(nullptr, self["dtype"], false);
        dims[unknown_at] = std::max<int64_t>(1, product(shape) / known);
      }
    }
    if (name == "expand" && shaped && dims.size() == rank)
      for (size_t i = 0; i < rank; ++i)
        if (as_int(dims[i]) == -1) dims[i] = shape[i];
    json dtype = self["dtype"];
    auto stated = keywords.find("dtype");  // `q.new_empty(n, dtype=torch.float32)`
    if (name.rfind("new_", 0) == 0 && stated != keywords.end() && stated->second && is_dtype(*stated->second))
      dtype = (*stated->second)["$dtype"];
    json out = with(dims, dtype, name.rfind("new_", 0) == 0);
    if (name != "expand") out.erase("$rank_guessed");  // the dimensions written out state the rank
    return out;
  }
  if (name == "flatten") {
    json out = with(shaped ? json::array({product(shape)}) : json(nullptr), self["dtype"], false);
    out.erase("$rank_guessed");
    return out;
  }
  if (name == "t") {
    json s = shape;
    if (shaped && rank == 2) std::swap(s[0], s[1]);
    return with(s, self["dtype"], false);
  }
  if (name == "transpose" || name == "swapaxes") {
    auto a = int_arg(0), b = int_arg(1);
    json s = shape;
    if (shaped && a && b) {
      int64_t i = normalized_axis(*a, rank), j = normalized_axis(*b, rank);
      if (i >= 0 && j >= 0 && i < static_cast<int64_t>(rank) && j < static_cast<int64_t>(rank)) std::swap(s[i], s[j]);
      else s = nullptr;
    }
    return with(s, self["dtype"], false);
  }
  if (name == "permute") {
    json order = json::array();
    for (size_t i = 0; i < args.size(); ++i) {
      if (args[i] && args[i]->is_array()) for (const auto& d : *args[i]) order.push_back(d);
      else if (args[i]) order.push_back(*args[i]);
    }
    if (!shaped || order.size() != rank) return with(nullptr, self["dtype"], false);
    json s = json::array();
    for (const auto& o : order) {
      if (!is_int(o)) return with(nullptr, self["dtype"], false);
      int64_t i = normalized_axis(as_int(o), rank);
      if (i < 0 || i >= static_cast<int64_t>(rank)) return with(nullptr, self["dtype"], false);
      s.push_back(shape[i]);
    }
    return with(s, self["dtype"], false);
  }
  if (name == "unsqueeze" || name == "squeeze") {
    auto d = int_arg(0);
    if (!shaped) return with(nullptr, self["dtype"], false);
    json s = shape;
    if (name == "unsqueeze" && d) {
      int64_t at = *d < 0 ? *d + static_cast<int64_t>(rank) + 1 : *d;
      if (at < 0 || at > static_cast<int64_t>(rank)) return with(nullptr, self["dtype"], false);
      s.insert(s.begin() + at, 1);
    } else if (name == "squeeze") {
      json kept = json::array();
      for (const auto& x : s)
        if (as_int(x) != 1) kept.push_back(x);
      s = kept;
    }
    return with(s, self["dtype"], false);
  }
  return std::nullopt;
}

}  // namespace mine
