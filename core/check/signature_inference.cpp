// Signature rules for kernels that do not state their own (everything but Inductor):
//   constexpr parameters (annotated `tl.constexpr`, or set by an autotune config or heuristic):
//     1. the kernel's first @triton.autotune config,
//     2. the parameter's default,
//     3. @triton.heuristics, evaluated with the values above and 1024 for integer arguments,
//     4. fallbacks by use and name: used as a dtype (`x.to(P)`, `dtype=P`) -> "tl.float32";
//        *BLOCK*/*TILE*/*SIZE*/*DIM* and names in a tl.arange end (`tl.arange(0, HD // 2)`) -> 128
//        (64 when the name ends in K, a reduction step); GROUP* -> 8; NUM_WARPS -> 4;
//        *STAGES -> 2; HAS_/IS_/USE_/EVEN_/ENABLE_... -> False; *DTYPE* -> "tl.float32";
//        tl.static_range bounds -> 4; names tested as conditions -> False; BT/BV/BTL-style
//        block names -> 64; a single capital letter (M, N, K) -> 1024; anything else -> 1.
//   pointers: parameters used as a load/store/atomic address base, a make_block_ptr base, read
//     through `.dtype`, handed to a helper that uses them so, or named *_ptr / *_ptrs. Element
//     type from a cast of the stored value, from use as an index (i32), from an integer cast of
//     the loaded value, from integer-only use of the loaded value (loop bounds, //, shifts,
//     bitwise ops, tl.cdiv: i32), from a float or bool `other=`, from the name (idx, indices, offsets,
//     ids, lens -> i32), else fp32.
//   the rest: `int`/`float`/`bool` annotations, the default's type, operands of float-only
//     math (tl.exp, tl.log, tl.sqrt, ...) -> fp32, float names (eps, scale, alpha, beta,
//     momentum, ...) -> fp32, else i32.
#include "core/check/signature_inference.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <optional>

#include "core/check/constant_eval.h"
#include "core/check/launch_facts.h"
#include "core/check/pointer_usage.h"
#include "core/error.h"
#include "core/python/module_model.h"

namespace mine::check {
namespace {

constexpr int64_t kNominalInt = 1024;  // stands in for integer arguments when evaluating heuristics
constexpr size_t kMaxAutotuneConfigs = 64;  // a generated grid can be huge; --autotune times each one

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
bool starts_with(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

int64_t next_power_of_2(int64_t n) {
  int64_t p = 1;
  while (p < n && p < (int64_t{1} << 40)) p <<= 1;
  return p;
}
int64_t cdiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : a; }

// ---------------------------------------------------------------- Inductor

std::string numel_name(const std::string& hint_key) { return hint_key + "numel"; }  // 'x' -> xnumel, 'r0_' -> r0_numel

// `xnumel = 1024` in the kernel body: Inductor writes static sizes there.
void body_numels(const std::string& standalone, const std::string& entry, nlohmann::ordered_json& numels) {
  std::unique_ptr<PythonModule> m;
  try {
    m = PythonModule::build("kernel.py", standalone);
  } catch (const Error&) {
    return;
  }
  for (const auto& f : m->functions()) {
    if (f.name != entry) continue;
    for_each_named_child(field(f.definition, "body"), [&](TSNode s) {
      TSNode a = ts_node_named_child(s, 0);
      if (!is_type(s, "expression_statement") || !is_type(a, "assignment")) return;
      std::string name = m->text_of(field(a, "left"));
      TSNode right = field(a, "right");
      if (ends_with(name, "numel") && is_type(right, "integer")) {
        try {
          numels[name] = std::stoll(m->text_of(right));
        } catch (const std::exception&) {
        }
      }
    });
  }
}

void hint_numels(const nlohmann::json& hints, const std::string& category, const std::vector<std::string>& params,
                 nlohmann::ordered_json& numels) {
  auto set = [&](const std::string& name, const nlohmann::json& v) {
    if (v.is_number_integer() && !numels.contains(name)) numels[name] = v.get<int64_t>();
  };
  if (hints.is_object()) {
    for (const auto& [k, v] : hints.items()) set(numel_name(k), v);
  } else if (hints.is_array()) {
    // Older Inductor listed hints by position: pointwise [y, x] or [x]; reductions [x, r].
    bool reduction = contains(category, "reduction");
    std::string r = std::find(params.begin(), params.end(), "r0_numel") != params.end() ? "r0_numel" : "rnumel";
    if (hints.size() == 1) set("xnumel", hints[0]);
    else if (hints.size() == 2 && reduction) set("xnumel", hints[0]), set(r, hints[1]);
    else if (hints.size() == 2) set("ynumel", hints[0]), set("xnumel", hints[1]);
  }
}

int64_t numel_for_block(const nlohmann::ordered_json& numels, const std::string& block) {
  // XBLOCK <- xnumel, R0_BLOCK <- r0_numel, RBLOCK <- rnumel
  std::string prefix = block.substr(0, block.size() - 5);
  for (char& c : prefix) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const std::string& name : {prefix + "numel", prefix + "_numel"})
    if (numels.contains(name)) return numels[name].get<int64_t>();
  return 0;
}

InferredSignature inductor_signature(const KernelSource& k) {
  InferredSignature out;
  const nlohmann::json& meta = k.meta;
  nlohmann::json signature = meta.value("signature", nlohmann::json::object());
  nlohmann::json constants = meta.value("constants", nlohmann::json::object());
  std::string category = meta.contains("category") && meta["category"].is_string() ? meta["category"].get<std::string>() : "";
  std::vector<std::string> names;
  if (meta.contains("parameters") && meta["parameters"].is_array())
    for (const auto& p : meta["parameters"]) {
      if (p.is_string()) names.push_back(p.get<std::string>());
      else if (p.is_object() && p.contains("name")) names.push_back(p["name"].get<std::string>());
    }
  if (names.empty() && signature.is_object())
    for (const auto& [key, _] : signature.items()) names.push_back(key);
  if (!signature.is_object() || signature.empty()) out.notes.push_back("no triton_meta signature in the kernel's meta");
  // Old triton_meta keyed signature and constants by parameter index.
  auto by_name = [&](const nlohmann::json& raw) {
    nlohmann::json out = nlohmann::json::object();
    if (!raw.is_object()) return out;
    for (const auto& [key, v] : raw.items()) {
      bool index = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos && key.size() < 6;
      size_t i = index ? std::stoul(key) : 0;
      out[index && i < names.size() ? names[i] : key] = v;
    }
    return out;
  };
  signature = by_name(signature);
  constants = by_name(constants);

  body_numels(k.standalone, k.name, out.numels);
  hint_numels(meta.value("size_hints", nlohmann::json()), category, names, out.numels);

  bool persistent = category == "persistent_reduction";
  bool reduction = contains(category, "reduction");
  bool two_d = false;
  for (const auto& n : names) two_d = two_d || n == "YBLOCK";
  for (const auto& name : names) {
    if (starts_with(name, "*")) continue;  // *args: Inductor never writes them
    InferredParam p;
    p.name = name;
    std::string type = signature.is_object() && signature.contains(name) && signature[name].is_string()
                           ? signature[name].get<std::string>()
                           : "constexpr";
    p.type = type;
    if (type != "constexpr") {
      p.origin = Origin::Meta;
      p.why = "triton_meta signature";
    } else if (constants.contains(name)) {
      p.value = constants[name];
      p.origin = Origin::Meta;
      p.why = "triton_meta constants";
    } else if (ends_with(name, "BLOCK")) {
      // Block sizes come from Inductor's runtime autotuning; pick what its heuristics would.
      int64_t numel = numel_for_block(out.numels, name);
      bool r_block = starts_with(name, "R");
      int64_t v;
      if (r_block) v = persistent ? next_power_of_2(std::max<int64_t>(numel, 1)) : std::min<int64_t>(next_power_of_2(std::max<int64_t>(numel, 1)), 1024);
      else if (reduction) v = 1;
      else if (two_d) v = std::min<int64_t>(next_power_of_2(std::max<int64_t>(numel, 1)), 32);
      else v = std::min<int64_t>(next_power_of_2(std::max<int64_t>(numel, 1)), 1024);
      if (numel == 0 && !(reduction && !r_block)) v = r_block ? 64 : 128;
      p.value = v;
      p.origin = Origin::Fallback;
      p.why = numel ? "from size hints" : "no size known";
    } else {
      p.value = 1;
      p.origin = Origin::Fallback;
      p.why = "constexpr missing from triton_meta constants";
    }
    p.guessed = is_guess(p.origin);
    out.params.push_back(std::move(p));
  }
  if (out.numels.contains("xnumel") && category != "template" && category != "foreach") {
    auto value_of = [&](const std::string& n) -> int64_t {
      for (const auto& p : out.params)
        if (p.name == n && p.value.is_number_integer()) return p.value.get<int64_t>();
      return 1;
    };
    int64_t g0 = cdiv(out.numels["xnumel"].get<int64_t>(), value_of("XBLOCK"));
    int64_t g1 = out.numels.contains("ynumel") ? cdiv(out.numels["ynumel"].get<int64_t>(), value_of("YBLOCK")) : 1;
    int64_t g2 = out.numels.contains("znumel") ? cdiv(out.numels["znumel"].get<int64_t>(), value_of("ZBLOCK")) : 1;
    out.grid = {std::max<int64_t>(g0, 1), std::max<int64_t>(g1, 1), std::max<int64_t>(g2, 1)};
  }
  return out;
}

// ---------------------------------------------------------------- other Triton kernels

struct ParamNodes {
  std::string name;
  TSNode annotation{};
  TSNode default_value{};
};

std::vector<ParamNodes> parameter_nodes(const PythonModule& m, TSNode definition) {
  std::vector<ParamNodes> out;
  for_each_named_child(field(definition, "parameters"), [&](TSNode p) {
    std::string_view t = node_type(p);
    ParamNodes n;
    if (t == "identifier") {
      n.name = m.text_of(p);
    } else if (t == "default_parameter" || t == "typed_default_parameter") {
      n.name = m.text_of(field(p, "name"));
      n.default_value = field(p, "value");
      if (t == "typed_default_parameter") n.annotation = field(p, "type");
    } else if (t == "typed_parameter" && is_type(ts_node_named_child(p, 0), "identifier")) {
      n.name = m.text_of(ts_node_named_child(p, 0));
      n.annotation = field(p, "type");
    } else {
      return;  // *args, **kwargs, `/`, `*`
    }
    out.push_back(n);
  });
  return out;
}

const FunctionSite* module_function(const PythonModule& m, const std::string& name) {
  const FunctionSite* found = nullptr;
  for (const auto& f : m.functions())
    if (f.statement && f.name == name && !f.in_class) found = &f;
  return found;
}

// `return <expr>` of a module function with one return, for configs built by a helper.
TSNode single_return(const PythonModule& m, const std::string& function) {
  const FunctionSite* f = module_function(m, function);
  if (!f) return TSNode{};
  TSNode found{};
  int count = 0;
  std::vector<TSNode> stack{field(f->definition, "body")};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is_type(n, "function_definition") || is_type(n, "class_definition")) continue;
    if (is_type(n, "return_statement")) {
      ++count;
      found = ts_node_named_child(n, 0);
    }
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
  return count == 1 ? found : TSNode{};
}

using Env = std::map<std::string, nlohmann::json>;

struct AutotuneConfig {
  std::map<std::string, nlohmann::json> values;
  std::set<std::string> keys;  // every key named, even those whose value could not be evaluated (all configs, for the first)
  nlohmann::ordered_json options = nlohmann::ordered_json::object();
  bool found = false;
};

class DecoratorReader {
 public:
  explicit DecoratorReader(const PythonModule& m) : m_(m) {}

  // The configs of an autotune `configs=` expression, in order, up to `limit`: a list, a
  // comprehension (every combination its loops and conditions give), a module constant, a
  // helper's return value, or a concatenation of those.
  void configs(TSNode n, const Env& env, std::vector<AutotuneConfig>& out, size_t limit, int depth = 0) const {
    if (ts_node_is_null(n) || depth > 16 || out.size() >= limit) return;
    std::string_view t = node_type(n);
    if (t == "list" || t == "tuple" || t == "parenthesized_expression") {
      for_each_named_child(n, [&](TSNode c) {
        if (!is_type(c, "comment")) configs(c, env, out, limit, depth + 1);
      });
    } else if (t == "binary_operator" && m_.text_of(field(n, "operator")) == "+") {
      configs(field(n, "left"), env, out, limit, depth + 1);
      configs(field(n, "right"), env, out, limit, depth + 1);
    } else if (t == "identifier") {
      configs(ConstantEvaluator(m_, nullptr).module_constant(m_.text_of(n)), env, out, limit, depth + 1);
    } else if (t == "list_comprehension" || t == "generator_expression") {
      std::vector<TSNode> clauses;
      for_each_named_child(n, [&](TSNode c) {
        if (is_type(c, "for_in_clause") || is_type(c, "if_clause")) clauses.push_back(c);
      });
      comprehension(field(n, "body"), clauses, 0, env, out, limit, depth + 1);
    } else if (t == "call") {
      TSNode fn = field(n, "function");
      auto q = m_.qualified_name(fn);
      std::string callee = q ? *q : m_.text_of(fn);
      if (ends_with(callee, "Config")) out.push_back(config(n, env));
      else if (is_type(fn, "identifier")) configs(single_return(m_, callee), env, out, limit, depth + 1);
    }
  }

 private:
  void comprehension(TSNode body, const std::vector<TSNode>& clauses, size_t i, Env env, std::vector<AutotuneConfig>& out,
                     size_t limit, int depth) const {
    if (out.size() >= limit) return;
    if (i == clauses.size()) {
      configs(body, env, out, limit, depth);
      return;
    }
    if (is_type(clauses[i], "if_clause")) {
      auto keep = evaluator(env).eval(ts_node_named_child(clauses[i], 0), 0);
      if (!keep || truthy(*keep)) comprehension(body, clauses, i + 1, env, out, limit, depth);
      return;
    }
    auto items = evaluator(env).eval(field(clauses[i], "right"), 0);
    if (!items || !items->is_array()) return;
    TSNode left = field(clauses[i], "left");
    for (const auto& item : *items) {
      if (is_type(left, "identifier")) {
        env[m_.text_of(left)] = item;
      } else if ((is_type(left, "pattern_list") || is_type(left, "tuple_pattern")) && item.is_array()) {
        size_t k = 0;
        for_each_named_child(left, [&](TSNode v) {
          if (is_type(v, "identifier") && k < item.size()) env[m_.text_of(v)] = item[k];
          ++k;
        });
      } else {
        return;
      }
      comprehension(body, clauses, i + 1, env, out, limit, depth);
      if (out.size() >= limit) return;
    }
  }

 public:
  // {name: value} of a heuristics dict; values whose inputs are unknown are left out.
  // `nominal` collects the names whose value depended on a stand-in for a runtime argument.
  std::map<std::string, nlohmann::json> heuristics(TSNode dict, const Env& known, const std::set<std::string>& ints,
                                                   std::set<std::string>& keys, std::set<std::string>& nominal) const {
    std::map<std::string, nlohmann::json> out;
    if (is_type(dict, "identifier")) dict = ConstantEvaluator(m_, nullptr).module_constant(m_.text_of(dict));
    if (!is_type(dict, "dictionary")) return out;
    for_each_named_child(dict, [&](TSNode pair) {
      if (!is_type(pair, "pair")) return;
      auto key = evaluator({}).eval(field(pair, "key"), 0);
      if (!key || !key->is_string()) return;
      std::string name = key->get<std::string>();
      keys.insert(name);
      TSNode value = field(pair, "value");
      std::string arg = "args";
      TSNode body{};
      if (is_type(value, "lambda")) {
        TSNode params = field(value, "parameters");
        if (!ts_node_is_null(params) && ts_node_named_child_count(params) > 0)
          arg = m_.text_of(ts_node_named_child(params, 0));
        body = field(value, "body");
      } else if (is_type(value, "identifier")) {
        const FunctionSite* f = module_function(m_, m_.text_of(value));
        if (!f) return;
        auto params = parameter_names(m_, f->definition);
        if (!params.empty()) arg = params[0];
        body = single_return(m_, f->name);
      }
      bool used_nominal = false;
      ConstantEvaluator ev(m_, [&](const std::string& n) -> std::optional<nlohmann::json> {
        std::string prefix = arg + "[";
        if (!starts_with(n, prefix) || !ends_with(n, "]")) return std::nullopt;
        std::string k = n.substr(prefix.size(), n.size() - prefix.size() - 1);
        auto it = known.find(k);
        if (it != known.end()) return it->second;
        if (ints.count(k)) {
          used_nominal = true;
          return kNominalInt;
        }
        return std::nullopt;
      });
      auto v = ev.eval(body, 0);
      if (!v) return;
      out[name] = *v;
      if (used_nominal) nominal.insert(name);
    });
    return out;
  }

 private:
  ConstantEvaluator evaluator(const Env& env) const {
    return ConstantEvaluator(m_, [env](const std::string& n) -> std::optional<nlohmann::json> {
      auto it = env.find(n);
      if (it == env.end()) return std::nullopt;
      return it->second;
    });
  }

  AutotuneConfig config(TSNode call, const Env& env) const {
    AutotuneConfig out;
    out.found = true;
    ConstantEvaluator ev = evaluator(env);
    TSNode dict{};
    size_t position = 0;
    for_each_named_child(field(call, "arguments"), [&](TSNode a) {
      if (is_type(a, "comment")) return;
      if (is_type(a, "keyword_argument")) {
        std::string k = m_.text_of(field(a, "name"));
        TSNode v = field(a, "value");
        if (k == "kwargs") dict = v;
        if (k == "num_warps" || k == "num_stages" || k == "num_ctas" || k == "maxnreg")
          if (auto x = ev.eval(v, 0)) out.options[k] = *x;
        return;
      }
      if (position++ == 0) dict = a;
    });
    if (is_type(dict, "identifier")) dict = ev.module_constant(m_.text_of(dict));
    if (is_type(dict, "dictionary")) {
      for_each_named_child(dict, [&](TSNode pair) {
        if (!is_type(pair, "pair")) return;
        auto key = ev.eval(field(pair, "key"), 0);
        if (!key || !key->is_string()) return;
        out.keys.insert(key->get<std::string>());
        if (auto v = ev.eval(field(pair, "value"), 0)) out.values[key->get<std::string>()] = *v;
      });
    } else if (is_type(dict, "call") && ends_with(m_.text_of(field(dict, "function")), "dict")) {
      for_each_named_child(field(dict, "arguments"), [&](TSNode a) {  // dict(BLOCK=128)
        if (!is_type(a, "keyword_argument")) return;
        std::string k = m_.text_of(field(a, "name"));
        out.keys.insert(k);
        if (auto v = ev.eval(field(a, "value"), 0)) out.values[k] = *v;
      });
    }
    return out;
  }

  const PythonModule& m_;
};

bool bool_flag_name(const std::string& up) {
  for (const char* p : {"HAS_", "IS_", "USE_", "EVEN_", "ENABLE_", "DO_", "APPLY_", "RETURN_", "SAVE_", "WITH_",
                        "NEED_", "SHOULD_", "ALLOW_", "CAUSAL", "TRAINING"})
    if (starts_with(up, p) || (std::string(p).back() != '_' && contains(up, p))) return true;
  return false;
}

// How a constexpr is used in the kernel's body, for the fallbacks below.
struct ConstexprUse {
  bool arange_bound = false;  // in a tl.arange end
  bool dtype = false;         // where Triton wants a dtype
  bool unrolled = false;      // in a tl.static_range: the loop is unrolled at compile time
  bool condition = false;     // tested as a condition (`if INVERT:`, `1 if flag else 0`)
  std::optional<bool> pointer_branch;  // the value that takes the branch using a parameter as a pointer
};

std::pair<nlohmann::json, std::string> constexpr_fallback(const std::string& name, const ConstexprUse& use = {}) {
  std::string up = upper(name);
  bool arange_bound = use.arange_bound;
  if (use.dtype) return {"tl.float32", "used as a dtype"};
  if (use.pointer_branch) return {*use.pointer_branch, "takes the branch that uses a parameter as a pointer"};
  if (bool_flag_name(up)) return {false, "flag name"};
  // `for i in tl.static_range(W)` copies the body W times: a guess of 1024 for a letter makes
  // one compile take minutes (conv widths, hyper-connection counts), and real counts are small.
  if (use.unrolled) return {4, "tl.static_range bound"};
  if (use.condition && !arange_bound) return {false, "tested as a condition"};
  // `dtype_min_value`: a value of the dtype (a load's `other=`), not the dtype itself.
  if (ends_with(up, "VALUE") || ends_with(up, "_VAL")) return {0, "value name"};
  if (contains(up, "DTYPE")) return {"tl.float32", "dtype name"};
  if (contains(up, "NUM_WARPS")) return {4, "num_warps name"};
  if (contains(up, "STAGES")) return {2, "stages name"};
  if (starts_with(up, "GROUP") || contains(up, "GROUP_SIZE") || contains(up, "GROUP_M")) return {8, "group size name"};
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
  return {1, "no value found"};
}

// Calls `visit` on every call expression below `body`.
template <typename Visit>
void for_each_call(TSNode body, Visit visit) {
  std::vector<TSNode> stack{body};
  while (!stack.empty()) {
    TSNode n = stack.back();
    stack.pop_back();
    if (is_type(n, "call")) visit(n);
    for_each_named_child(n, [&](TSNode c) { stack.push_back(c); });
  }
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

// Names used as the end of a tl.arange: those must be powers of two. `tl.arange(0, pad_hd // 2)`:
// every name in the end expression sizes the range, and a guess of 1 would make it empty.
std::set<std::string> arange_bounds(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    auto q = m.qualified_name(field(n, "function"));
    TSNode args = field(n, "arguments");
    if (q && ends_with(*q, "language.arange") && ts_node_named_child_count(args) >= 2)
      identifiers_in(m, ts_node_named_child(args, 1), {"call", "attribute"}, out);
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
  return out;
}

// Identifiers used as loop bounds (`range(0, n_cols, BLOCK)`, `tl.range`, `tl.static_range`):
// Triton requires them to be integers, which outweighs any use in float math elsewhere
// (`tl.sqrt(total / n_cols + eps)`).
std::set<std::string> loop_bound_operands(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    TSNode fn = field(n, "function");
    auto q = m.qualified_name(fn);
    bool loop = (is_type(fn, "identifier") && m.text_of(fn) == "range") ||
                (q && (ends_with(*q, "language.range") || ends_with(*q, "language.static_range")));
    if (loop) identifiers_in(m, field(n, "arguments"), {"call", "keyword_argument"}, out);
  });
  return out;
}

// Identifiers in the arguments of tl.static_range, whose loops Triton unrolls.
std::set<std::string> static_range_operands(const PythonModule& m, TSNode body) {
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    auto q = m.qualified_name(field(n, "function"));
    if (!q || !ends_with(*q, "language.static_range")) return;
    // start and end set the trip count; a large step only makes it smaller.
    size_t index = 0;
    for_each_named_child(field(n, "arguments"), [&](TSNode a) {
      if (is_type(a, "keyword_argument") || is_type(a, "comment")) return;
      if (index++ < 2) identifiers_in(m, a, {"call"}, out);
    });
  });
  return out;
}

// Names tested for truth on their own: `if INVERT:`, `if not flag:`, `1 if invert else 0`,
// `a and FLAG`. A number there would be a guess; a bool says what the code does with it.
std::set<std::string> condition_operands(const PythonModule& m, TSNode body, int depth = 0) {
  std::set<std::string> out;
  // A flag handed on to a helper that tests it (`impl(..., invert)`) is tested all the same.
  std::vector<TSNode> calls;
  auto take = [&](TSNode c) {
    while (is_type(c, "not_operator") || is_type(c, "parenthesized_expression"))
      c = is_type(c, "not_operator") ? field(c, "argument") : ts_node_named_child(c, 0);
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

// Identifiers inside the arguments of float-only math (tl.exp(-x), tl.sqrt(var + eps)): a
// scalar there must be a float, since Triton refuses integer operands for these.
std::set<std::string> float_math_operands(const PythonModule& m, TSNode body) {
  static const std::set<std::string> kFloatOnly = {"exp", "exp2", "log", "log2", "log1p", "sqrt", "rsqrt", "sqrt_rn",
                                                   "sin", "cos", "tanh", "sigmoid", "erf", "fdiv", "div_rn"};
  std::set<std::string> out;
  for_each_call(body, [&](TSNode n) {
    auto q = m.qualified_name(field(n, "function"));
    std::string op = q ? q->substr(q->rfind('.') + 1) : "";
    if (q && q->rfind("triton.language", 0) == 0 && kFloatOnly.count(op))
      identifiers_in(m, field(n, "arguments"), {"call", "keyword_argument"}, out);
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
bool apply_launch_fact(const LaunchFact& f, bool is_constexpr, const PointerFacts& body, InferredParam& p,
                       InferredSignature& out) {
  p.origin = Origin::Launch;
  p.why = "launch: " + (f.text.size() > 60 ? f.text.substr(0, 57) + "..." : f.text);
  if (f.role == "tensor") {
    if (is_constexpr) return false;
    auto dt = body.dtypes.find(p.name);
    std::string dtype = !f.dtype.empty() ? f.dtype : dt != body.dtypes.end() ? dt->second : (index_name(p.name) ? "i32" : "fp32");
    p.type = "*" + dtype;
    if (f.dtype.empty()) p.why += dt != body.dtypes.end() ? "; element type from its use" : "; element type unknown";
    nlohmann::ordered_json t = nlohmann::ordered_json::object();
    t["shape"] = f.shape;
    t["dtype"] = dtype;
    out.tensors[p.name] = t;
    return true;
  }
  // A None handed to a parameter the body uses as a pointer: the launcher's optional input left
  // out. The kernel's body decides instead (a buffer), since not every kernel guards such a use.
  if (f.role == "none" && !is_constexpr && body.pointers.count(p.name)) return false;
  if (is_constexpr || f.role == "str" || f.role == "none" || f.role == "dtype") {
    if (f.role == "dtype" && f.value.is_null()) return false;
    p.type = "constexpr";
    p.value = f.role == "none" ? nlohmann::json(nullptr) : f.value;
    return true;
  }
  if (f.role == "int") {
    int64_t v = f.value.get<int64_t>();
    p.type = (v > INT32_MAX || v < INT32_MIN) ? "i64" : "i32";
  } else if (f.role == "float") {
    p.type = "fp32";
  } else if (f.role == "bool") {
    p.type = "i1";
  } else {
    return false;
  }
  out.args[p.name] = f.value;
  return true;
}

InferredSignature triton_signature(const KernelSource& k) {
  InferredSignature out;
  std::unique_ptr<PythonModule> owned;
  const PythonModule* m = k.module;
  if (!m) {
    try {
      owned = PythonModule::build("k.py", k.standalone);
      m = owned.get();
    } catch (const Error& e) {
      out.notes.push_back(std::string("standalone not readable: ") + e.what());
    }
  }
  const FunctionSite* site = m ? module_function(*m, k.name) : nullptr;
  if (m && !site) {
    // `relu_kernel = triton.jit(_relu_body)`: the body is the function named in the call.
    for (const auto& s : m->statements()) {
      if (s.kind != StatementKind::Assignment || !s.binds.count(k.name)) continue;
      TSNode right = field(ts_node_named_child(s.node, 0), "right");
      TSNode first = is_type(right, "call") ? ts_node_named_child(field(right, "arguments"), 0) : TSNode{};
      if (is_type(first, "identifier")) site = module_function(*m, m->text_of(first));
    }
  }
  if (!site) {
    out.notes.push_back("kernel function " + k.name + " not found in its standalone; parameters from meta");
    if (k.meta.contains("parameters") && k.meta["parameters"].is_array())
      for (const auto& p : k.meta["parameters"]) {
        InferredParam ip;
        ip.name = p.is_object() ? p.value("name", "") : p.is_string() ? p.get<std::string>() : "";
        if (ip.name.empty() || starts_with(ip.name, "*")) continue;
        std::string annotation = p.is_object() ? p.value("annotation", "") : "";
        if (contains(annotation, "constexpr")) {
          auto [v, why] = constexpr_fallback(ip.name);
          ip.type = "constexpr", ip.value = v, ip.why = why;
        } else if (pointer_name(ip.name)) {
          ip.type = "*fp32", ip.origin = Origin::Name, ip.why = "pointer name";
        } else {
          ip.type = "i32", ip.why = "no use found";
        }
        ip.guessed = true;
        out.params.push_back(ip);
      }
    return out;
  }

  std::vector<ParamNodes> params = parameter_nodes(*m, site->definition);
  DecoratorReader reader(*m);
  AutotuneConfig autotune;
  std::vector<TSNode> heuristic_dicts;
  for (TSNode d : site->decorators) {
    if (!is_type(d, "call")) continue;
    auto q = m->qualified_name(d);
    std::string callee = q ? *q : m->text_of(field(d, "function"));
    TSNode args = field(d, "arguments");
    TSNode first_positional{}, configs{}, values{};
    for_each_named_child(args, [&](TSNode a) {
      if (is_type(a, "keyword_argument")) {
        std::string key = m->text_of(field(a, "name"));
        if (key == "configs") configs = field(a, "value");
        if (key == "values") values = field(a, "value");
      } else if (!is_type(a, "comment") && ts_node_is_null(first_positional)) {
        first_positional = a;
      }
    });
    if (ends_with(callee, "autotune") && !autotune.found) {
      std::vector<AutotuneConfig> all;
      reader.configs(ts_node_is_null(configs) ? first_positional : configs, {}, all, kMaxAutotuneConfigs);
      if (all.empty()) out.notes.push_back("autotune configs not readable without running code");
      else autotune = all.front();
      for (const auto& c : all) {
        autotune.keys.insert(c.keys.begin(), c.keys.end());
        nlohmann::ordered_json entry = c.options;
        nlohmann::ordered_json values = nlohmann::ordered_json::object();
        for (const auto& [k, v] : c.values) values[k] = v;
        entry["constexprs"] = values;
        out.autotune.push_back(entry);
      }
    }
    if (ends_with(callee, "heuristics")) heuristic_dicts.push_back(ts_node_is_null(values) ? first_positional : values);
  }
  out.options = autotune.options;  // a launch's own num_warps / num_stages go over these below

  std::set<std::string> heuristic_keys;
  {
    std::set<std::string> unused;
    for (TSNode d : heuristic_dicts) reader.heuristics(d, {}, {}, heuristic_keys, unused);
  }
  std::set<std::string> bounds = arange_bounds(*m, field(site->definition, "body"));
  PointerUsage usage(*m);
  const PointerFacts& facts = usage.facts(*site);
  std::set<std::string> float_operands = float_math_operands(*m, field(site->definition, "body"));
  std::set<std::string> loop_bounds = loop_bound_operands(*m, field(site->definition, "body"));
  std::set<std::string> dtype_uses = dtype_operands(*m, field(site->definition, "body"));
  std::set<std::string> unrolled = static_range_operands(*m, field(site->definition, "body"));
  std::set<std::string> conditions = condition_operands(*m, field(site->definition, "body"));
  auto use_of = [&](const std::string& name) {
    ConstexprUse u;
    u.arange_bound = bounds.count(name) > 0;
    u.dtype = dtype_uses.count(name) > 0;
    u.unrolled = unrolled.count(name) > 0;
    u.condition = conditions.count(name) > 0;
    auto flag = facts.pointer_branch_flags.find(name);
    if (flag != facts.pointer_branch_flags.end()) u.pointer_branch = flag->second;
    return u;
  };

  std::map<std::string, InferredParam> by_name;
  Env known;
  std::set<std::string> ints;
  ConstantEvaluator defaults(*m, nullptr);
  // Fact source 1: the repository's own launch of the kernel.
  std::map<std::string, LaunchFact> launched;
  std::optional<size_t> chosen = preferred_launch(k.launches);
  out.launch_count = k.launches.size();
  if (chosen) {
    const LaunchSite& site = k.launches[*chosen];
    launched = launch_facts(site);
    out.launch_id = site.id;
    out.launch = {{"id", site.id}, {"path", site.path}, {"line", site.line}, {"launcher", site.launcher}};
    for (const auto& [key, v] : site.options.items())
      if (key == "num_warps" || key == "num_stages" || key == "num_ctas" || key == "maxnreg") out.options[key] = v;
  }
  for (const auto& pn : params) {
    InferredParam p;
    p.name = pn.name;
    std::string annotation = ts_node_is_null(pn.annotation) ? "" : m->text_of(pn.annotation);
    bool is_constexpr = contains(annotation, "constexpr") || autotune.keys.count(pn.name) || heuristic_keys.count(pn.name);
    auto fact = launched.find(pn.name);
    // A loop Triton unrolls as often as a nominal size says would take minutes to compile; the
    // repository's real counts are small (the body fallback's 4 stands for them).
    if (fact != launched.end() && fact->second.nominal && is_constexpr && unrolled.count(pn.name)) fact = launched.end();
    if (fact != launched.end() && apply_launch_fact(fact->second, is_constexpr, facts, p, out)) {
      // Known to the heuristics and settled for the fallbacks, a constexpr None included.
      if (p.type == "constexpr") known[p.name] = p.value;
      else if (out.args.contains(p.name)) known[p.name] = out.args[p.name];
      if (p.type == "i32" || p.type == "i64") ints.insert(p.name);
      by_name[p.name] = p;
      continue;
    }
    if (is_constexpr) {
      p.type = "constexpr";
      std::optional<nlohmann::json> d = ts_node_is_null(pn.default_value) ? std::nullopt : defaults.eval(pn.default_value);
      if (autotune.values.count(pn.name)) {
        p.value = autotune.values[pn.name], p.origin = Origin::Autotune, p.why = "first autotune config";
        known[p.name] = p.value;
      } else if (d && !heuristic_keys.count(pn.name) && !(d->is_null() && bounds.count(pn.name))) {
        // A None default is kept (optional features) unless the value bounds a tl.arange.
        p.value = *d, p.origin = Origin::Default, p.why = "default";
        known[p.name] = p.value;
      }
    } else if (facts.pointers.count(pn.name) || pointer_name(pn.name)) {
      bool used = facts.pointers.count(pn.name) > 0;
      auto dt = facts.dtypes.find(pn.name);
      std::string dtype = dt != facts.dtypes.end() ? dt->second : (index_name(pn.name) ? "i32" : "fp32");
      p.type = "*" + dtype;
      p.origin = used ? Origin::Code : Origin::Name;
      auto ev = facts.evidence.find(pn.name);
      p.why = ev != facts.evidence.end() ? ev->second : "pointer name";
      if (dt == facts.dtypes.end()) p.why += index_name(pn.name) ? "; index name" : "; element type unknown";
    } else {
      std::optional<nlohmann::json> d = ts_node_is_null(pn.default_value) ? std::nullopt : defaults.eval(pn.default_value);
      if (annotation == "int" || annotation == "float" || annotation == "bool") {
        p.type = annotation == "int" ? "i32" : annotation == "float" ? "fp32" : "i1";
        p.origin = Origin::Annotation, p.why = "annotation";
      } else if (d && (d->is_number() || d->is_boolean())) {
        p.type = d->is_boolean() ? "i1" : d->is_number_integer() ? "i32" : "fp32";
        p.origin = Origin::Default, p.why = "default's type";
      } else if (loop_bounds.count(pn.name)) {
        p.type = "i32", p.origin = Origin::Code, p.why = "loop bound";
      } else if (float_operands.count(pn.name)) {
        p.type = "fp32", p.origin = Origin::Code, p.why = "operand of float math";
      } else if (float_name(pn.name)) {
        p.type = "fp32", p.origin = Origin::Name, p.why = "float name";
      } else {
        p.type = "i32", p.origin = Origin::Fallback, p.why = "scalar";
      }
      if (p.type == "i32") ints.insert(p.name);
    }
    by_name[p.name] = p;
  }
  // Fallbacks for constexprs nothing set, except those a heuristic will compute.
  for (auto& [name, p] : by_name) {
    if (p.type != "constexpr" || known.count(name) || heuristic_keys.count(name)) continue;
    auto [v, why] = constexpr_fallback(name, use_of(name));
    p.value = v, p.origin = Origin::Fallback, p.why = why;
    known[name] = v;
  }
  for (TSNode d : heuristic_dicts) {
    std::set<std::string> keys, nominal;
    auto values = reader.heuristics(d, known, ints, keys, nominal);
    for (const auto& [name, v] : values) {
      auto it = by_name.find(name);
      if (it == by_name.end() || known.count(name)) continue;
      it->second.value = v;
      it->second.origin = nominal.count(name) ? Origin::Fallback : Origin::Heuristics;
      it->second.why = nominal.count(name) ? "heuristic with 1024 for integer arguments" : "heuristic";
      // With stand-in sizes a heuristic can land between powers of two (`1024 // 12` = 85);
      // the real sizes would not, since the value ends a tl.arange.
      if (nominal.count(name) && bounds.count(name) && v.is_number_integer() && v.get<int64_t>() > 0 &&
          next_power_of_2(v.get<int64_t>()) != v.get<int64_t>()) {
        it->second.value = next_power_of_2(v.get<int64_t>());
        it->second.why += ", rounded up to a power of two (a tl.arange end)";
      }
      known[name] = it->second.value;
    }
  }
  for (auto& [name, p] : by_name) {
    if (p.type != "constexpr" || known.count(name)) continue;
    auto [v, why] = constexpr_fallback(name, use_of(name));
    p.value = v, p.origin = Origin::Fallback, p.why = "heuristic not evaluable; " + why;
  }
  // Tensors whose element type the launcher leaves open (`q` handed in by the caller) take the one
  // half-precision type it fixes for the others (`torch.empty(..., dtype=torch.float16)`), if there
  // is exactly one: kernels mix their operands in tl.dot and arithmetic, which wants one type.
  if (chosen) {
    std::set<std::string> floats;
    for (const auto& [name, f] : launched)
      if (f.role == "tensor" && (f.dtype == "fp16" || f.dtype == "bf16")) floats.insert(f.dtype);  // fp32: statistics buffers
    if (floats.size() == 1)
      for (auto& [name, p] : by_name) {
        auto f = launched.find(name);
        if (p.origin != Origin::Launch || f == launched.end() || f->second.role != "tensor" || !f->second.dtype.empty()) continue;
        if (p.type != "*fp32" || facts.dtypes.count(name)) continue;  // the body's own reading of it wins
        p.type = "*" + *floats.begin();
        p.why += "; the launcher's floating type";
        if (out.tensors.contains(name)) out.tensors[name]["dtype"] = *floats.begin();
      }
  }
  for (const auto& pn : params) {
    InferredParam p = by_name[pn.name];
    p.guessed = is_guess(p.origin);
    out.params.push_back(std::move(p));
  }
  if (chosen) {
    if (auto grid = launch_grid(k.launches[*chosen], out.constexprs())) out.grid = *grid;
    else out.notes.push_back("launch grid not evaluable without running code: " + k.launches[*chosen].grid_text);
  }
  return out;
}

}  // namespace

const char* origin_name(Origin o) {
  switch (o) {
    case Origin::Launch: return "launch";
    case Origin::Meta: return "meta";
    case Origin::Annotation: return "annotation";
    case Origin::Default: return "default";
    case Origin::Autotune: return "autotune";
    case Origin::Heuristics: return "heuristics";
    case Origin::Code: return "code";
    case Origin::Name: return "name";
    case Origin::Fallback: return "fallback";
  }
  return "fallback";
}

bool is_guess(Origin o) { return o == Origin::Code || o == Origin::Name || o == Origin::Fallback; }

nlohmann::ordered_json InferredSignature::signature() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& p : params) out[p.name] = p.type;
  return out;
}

nlohmann::ordered_json InferredSignature::constexprs() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& p : params)
    if (p.type == "constexpr") out[p.name] = p.value;
  return out;
}

nlohmann::json InferredSignature::guessed() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : params)
    if (p.guessed) out.push_back(p.name);
  return out;
}

nlohmann::ordered_json InferredSignature::origins() const {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& p : params) out[p.name] = {{"origin", origin_name(p.origin)}, {"why", p.why}};
  return out;
}

InferredSignature infer_signature(const KernelSource& kernel) {
  if (kernel.plugin == "inductor") return inductor_signature(kernel);
  return triton_signature(kernel);
}

}  // namespace mine::check
