// The signature resolver: for each parameter, the first fact source that says something about
// it decides, and the corpus records which (InferredParam::origin):
//   1. launch facts: the repository's own launch of the kernel (launch_facts.h);
//   2. the kernel's annotations and defaults (read here);
//   3. its @triton.autotune configs and @triton.heuristics (decorator_facts.h);
//   4. its body: pointer use (pointer_usage.h), integer and float use, and fallbacks by use and
//      name (body_usage.h).
// Within the kernel's own code, constexprs come from the first autotune config, then the
// default, then heuristics evaluated with those values (and 1024 for unknown integers), then the
// fallbacks; pointers from a load/store/atomic/make_block_ptr base, `.dtype` reads, helpers they
// are handed to, or *_ptr names, with element types from casts, index use and integer use of the
// loaded values, else fp32; other scalars from `int`/`float`/`bool` annotations, the default's
// type, float-only math and float names, else i32. Inductor kernels take everything from their
// triton_meta instead.
#include "core/check/signature_inference.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <optional>
#include <regex>

#include "core/check/body_usage.h"
#include "core/check/branch_reach.h"
#include "core/check/constant_eval.h"
#include "core/check/decorator_facts.h"
#include "core/check/descriptor_hooks.h"
#include "core/check/descriptor_usage.h"
#include "core/check/element_type_agreement.h"
#include "core/check/launch_facts.h"
#include "core/check/name_text.h"
#include "core/check/pointer_usage.h"
#include "core/check/static_assert_repair.h"
#include "core/error.h"
#include "core/python/function_parameters.h"
#include "core/python/module_model.h"

namespace mine::check {
namespace {

constexpr size_t kMaxAutotuneConfigs = 64;  // a generated grid can be huge; --autotune times each one
constexpr int64_t kDotMinimum = 16;  // each dimension of a tl.dot: M, N and K

int64_t cdiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : a; }

// `x: tl.pointer_type(tl.int64)` and `n: tl.int64`: Triton types such a parameter by its
// annotation, whatever a launch or the body suggests.
std::string annotated_type(const PythonModule& m, TSNode annotation) {
  if (is_type(annotation, "type")) annotation = ts_node_named_child(annotation, 0);
  if (ts_node_is_null(annotation)) return "";
  if (is_type(annotation, "call")) {
    auto q = m.qualified_name(field(annotation, "function"));
    TSNode args = field(annotation, "arguments");
    TSNode element = ts_node_named_child_count(args) ? ts_node_named_child(args, 0) : TSNode{};
    auto e = ts_node_is_null(element) ? std::nullopt : m.qualified_name(element);
    if (q && ends_with(*q, "language.pointer_type") && e && !triton_dtype(*e).empty()) return "*" + triton_dtype(*e);
    return "";
  }
  // `philox_seed_ptr: '*u64'`, `n: 'i32'`: Triton reads a string annotation as the parameter's
  // type in its own signature spelling (aotriton writes every kernel so).
  if (is_type(annotation, "string")) {
    static const std::regex spelled(R"(^(\*?)(i1|i8|i16|i32|i64|u1|u8|u16|u32|u64|fp8e4nv|fp8e5|fp8e4b15|fp8e4b8|)"
                                    R"(fp8e5b16|fp16|bf16|fp32|fp64)(:16)?$)");
    std::string text = m.text_of(annotation);
    std::smatch found;
    if (text.size() >= 2) text = text.substr(1, text.size() - 2);
    return std::regex_match(text, found, spelled) ? found[1].str() + found[2].str() : "";
  }
  auto q = m.qualified_name(annotation);
  return q ? triton_dtype(*q) : "";
}

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

bool apply_launch_fact(const LaunchFact& f, bool is_constexpr, const PointerFacts& body, InferredParam& p,
                       InferredSignature& out) {
  p.origin = Origin::Launch;
  p.why = "launch: " + (f.text.size() > 60 ? f.text.substr(0, 57) + "..." : f.text);
  if (f.role == "tensor") {
    if (is_constexpr) return false;
    auto dt = body.dtypes.find(p.name);
    // Autocast's cast (`@custom_fwd(cast_inputs=torch.float16)`) reaches floating tensors only: an
    // index or packed-weight tensor the kernel uses as integers keeps its integer type.
    bool autocast_overruled = f.autocast && dt != body.dtypes.end() && integer_element_type(dt->second);
    std::string dtype = !f.dtype.empty() && !autocast_overruled ? f.dtype
                        : dt != body.dtypes.end()                ? dt->second
                        : (index_name(p.name) && !body.dotted.count(p.name) ? "i32" : "fp32");
    p.type = "*" + dtype;
    if (autocast_overruled) p.why += "; autocast casts floating tensors only: element type from its use";
    else if (f.dtype.empty()) p.why += dt != body.dtypes.end() ? "; element type from its use" : "; element type unknown";
    nlohmann::ordered_json t = nlohmann::ordered_json::object();
    t["shape"] = f.shape;
    t["dtype"] = dtype;
    out.tensors[p.name] = t;
    return true;
  }
  if (f.role == "descriptor") {  // a host-built TMA descriptor: its tensor's type, the launch's block
    if (is_constexpr || !f.shape.is_array()) return false;
    auto dt = body.dtypes.find(p.name);
    std::string dtype = !f.dtype.empty() ? f.dtype : dt != body.dtypes.end() ? dt->second : "fp16";
    std::vector<int64_t> block;
    for (const auto& d : f.shape) block.push_back(d.get<int64_t>());
    p.type = tensordesc_type(dtype, block);
    if (f.dtype.empty()) p.why += "; element type " + std::string(dt != body.dtypes.end() ? "from its use" : "unknown");
    return true;
  }
  // A None handed to a parameter the body uses as a pointer: the launcher's optional input left
  // out. The kernel's body decides instead (a buffer), since not every kernel guards such a use;
  // one that does (`if cu_seqlens is None:`) runs with the None the launch writes.
  if (f.role == "none" && !is_constexpr && body.pointers.count(p.name) && !body.none_guarded.count(p.name))
    return false;
  if (is_constexpr && f.role == "tuple") return false;  // a constexpr tuple: the body's use decides
  if (is_constexpr || f.role == "str" || f.role == "none" || f.role == "dtype" || f.role == "layout") {
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
  } else if (f.role == "tuple") {
    p.type = "(";
    for (size_t i = 0; i < f.value.size(); ++i) {
      int64_t v = f.value[i].get<int64_t>();
      p.type += std::string(i ? "," : "") + ((v > INT32_MAX || v < INT32_MIN) ? "i64" : "i32");
    }
    p.type += ")";
  } else {
    return false;
  }
  out.args[p.name] = f.value;
  return true;
}

// The helpers of one kernel's module read for it (see `fallback` in triton_signature): each once,
// at most three calls deep.
struct HelperReads {
  int depth = 0;
  std::map<std::string, InferredSignature> signatures;
};

InferredSignature triton_signature(const KernelSource& k, HelperReads& helpers) {
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

  std::vector<ParameterNodes> params = parameter_nodes(*m, site->definition);
  // `def k(X, N, **meta)` reading `meta['BLOCK']`: each key is a constexpr parameter of its own.
  std::set<std::string> splat_keys;
  {
    KeywordSplat splat = keyword_splat(*m, site->definition);
    for (const auto& key : splat.keys) {
      bool taken = false;
      for (const auto& pn : params) taken = taken || pn.name == key;
      if (taken) continue;
      params.push_back(ParameterNodes{key});
      splat_keys.insert(key);
    }
    if (!splat.keys.empty()) out.keyword_splat = splat.name;
  }
  DecoratorReader reader(*m);
  AutotuneConfig autotune;
  std::vector<AutotuneConfig> autotune_configs;
  std::vector<TSNode> heuristic_dicts;
  bool autotuned = false;
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
    autotuned = autotuned || ends_with(callee, "autotune");
    if (ends_with(callee, "autotune") && !autotune.found) {
      std::vector<AutotuneConfig> all;
      reader.configs(ts_node_is_null(configs) ? first_positional : configs, {}, all, kMaxAutotuneConfigs);
      if (all.empty()) out.notes.push_back("autotune configs not readable without running code");
      else autotune = all.front();
      autotune_configs = all;
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
  PointerUsage usage(*m);
  const PointerFacts& facts = usage.facts(*site);
  std::set<std::string> bounds = arange_bounds(*m, field(site->definition, "body"));
  bounds.insert(facts.arange_bounds.begin(), facts.arange_bounds.end());
  std::set<std::string> float_operands = float_math_operands(*m, field(site->definition, "body"));
  std::set<std::string> loop_bounds = loop_bound_operands(*m, field(site->definition, "body"));
  std::set<std::string> dtype_uses = dtype_operands(*m, field(site->definition, "body"));
  std::map<std::string, int> bitcasts = bitcast_widths(*m, field(site->definition, "body"));
  std::set<std::string> unrolled = static_range_operands(*m, field(site->definition, "body"));
  // Counts multiplied into one loop's trip count are small counts too, as a static_range's are.
  for (const auto& name : multiplied_trip_counts(*m, field(site->definition, "body"))) unrolled.insert(name);
  std::set<std::string> shifts = shift_widths(*m, field(site->definition, "body"));
  std::set<std::string> conditions = condition_operands(*m, field(site->definition, "body"));
  std::map<std::string, std::string> string_options = string_option_operands(*m, field(site->definition, "body"));
  std::map<std::string, nlohmann::json> selectors = selector_values(*m, field(site->definition, "body"));
  std::map<std::string, std::vector<nlohmann::json>> enumerated = compared_literals(*m, field(site->definition, "body"));
  // A name handed as the `mask=` (or also the `other=`) of a load or store, which take None.
  auto load_store_option = [&](const std::string& name, bool mask_only = false) {
    bool found = false;
    for_each_node(field(site->definition, "body"), [&](TSNode n) {
      if (found || !is_type(n, "keyword_argument")) return;
      std::string key = m->text_of(field(n, "name"));
      found = (key == "mask" || (key == "other" && !mask_only)) && m->text_of(field(n, "value")) == name;
    });
    return found;
  };
  bool calls_dot = !facts.dot_operands.empty();
  for_each_call(field(site->definition, "body"), [&](TSNode n) {
    auto q = m->qualified_name(field(n, "function"));
    calls_dot = calls_dot || (q && ends_with(*q, "language.dot"));
  });
  // A block (a tl.arange bound) of a kernel that calls tl.dot, at a value under the 16 each
  // dimension of a dot needs.
  auto under_dot_minimum = [&](const std::string& name, const nlohmann::json& v) {
    return calls_dot && bounds.count(name) && v.is_number_integer() && v.get<int64_t>() < kDotMinimum;
  };
  std::map<std::string, int> tuples, called, called_unpacked;
  std::map<std::string, std::string> loop_tuples;
  std::set<std::string> defining;
  {
    std::set<std::string> names;
    for (const auto& pn : params) names.insert(pn.name);
    tuples = tuple_parameters(*m, field(site->definition, "body"), names);
    loop_tuples = tuple_loop_bounds(*m, field(site->definition, "body"), names);
    called = called_operands(*m, field(site->definition, "body"), names);
    called_unpacked = called_results(*m, field(site->definition, "body"), names);
    defining = defining_branch_flags(*m, field(site->definition, "body"), names);
  }
  auto use_of = [&](const std::string& name) {
    ConstexprUse u;
    auto option = string_options.find(name);
    if (option != string_options.end()) u.string_option = option->second;
    u.arange_bound = bounds.count(name) > 0;
    auto selector = selectors.find(name);
    if (selector != selectors.end()) u.selector = selector->second;
    // Compared with two or more literals among other uses (`if BATCHSIZE == 1: acc0 = ...` up to
    // `== 4`, then `if BATCHSIZE >= 2:`): a guess none of them equals takes no branch and leaves
    // what they bind undefined; the first is a case the kernel has.
    if (auto e = enumerated.find(name); !u.selector && e != enumerated.end() && e->second.size() >= 2)
      u.selector = e->second.front();
    if (auto c = called.find(name); c != called.end()) u.called = c->second;
    if (auto r = called_unpacked.find(name); r != called_unpacked.end()) u.called_results = r->second;
    u.dtype = dtype_uses.count(name) > 0;
    u.integer_dtype = facts.integer_dtype_params.count(name) > 0;
    if (auto b = bitcasts.find(name); b != bitcasts.end()) u.bitcast_bits = b->second;
    u.unrolled = unrolled.count(name) > 0;
    u.shift_width = shifts.count(name) > 0;
    u.float_math = float_operands.count(name) > 0 && !loop_bounds.count(name) && !facts.integer_params.count(name);
    u.condition = conditions.count(name) > 0;
    auto flag = facts.pointer_branch_flags.find(name);
    if (flag != facts.pointer_branch_flags.end()) u.pointer_branch = flag->second;
    u.defining_branch = defining.count(name) > 0;
    return u;
  };

  // `(e,e,...)` of `count` elements: of pointers where the body addresses through the elements
  // (typed as the launch's tensor where one was given, else as the body's use), else of integers.
  auto uniform_tuple = [&](const std::string& name, int64_t count, const nlohmann::ordered_json* given) {
    auto dt = facts.dtypes.find(name);
    std::string element = facts.pointers.count(name) == 0 ? "i32"
                          : given                         ? "*" + (*given)["dtype"].get<std::string>()
                          : "*" + (dt != facts.dtypes.end() ? dt->second : std::string("fp32"));
    std::string type = "(";
    for (int64_t i = 0; i < count; ++i) type += (i ? "," : "") + element;
    return type + ")";
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
      if ((key == "num_warps" || key == "num_stages" || key == "num_ctas" || key == "maxnreg") && v.is_number_integer())
        out.options[key] = v;
  }
  // A launch of positional arguments only that leaves a parameter without default unbound, where
  // no splat or decorator can supply it, is short: the arguments it does hand may sit a place too
  // early. (One that binds by keyword names what it binds; a parameter it leaves out is supplied
  // elsewhere, by a config the scan did not read, unless it is a pointer the body addresses: no
  // config hands a tensor. A launch written for an older signature of its kernel, `pos` where the
  // kernel now takes `pos_z, pos_y, pos_x`, leaves such pointers unbound.)
  bool launch_short = false;
  if (chosen && k.launches[*chosen].complete) {
    std::set<std::string> bound;
    bool by_keyword = false;
    for (const auto& a : k.launches[*chosen].args) {
      bound.insert(a.param);
      by_keyword = by_keyword || !a.keyword.empty();
    }
    for (const auto& pn : params) {
      bool supplied = !ts_node_is_null(pn.default_value) || bound.count(pn.name) || autotune.keys.count(pn.name) ||
                      heuristic_keys.count(pn.name) || splat_keys.count(pn.name);
      bool tensor = facts.addressed.count(pn.name) && !contains(ts_node_is_null(pn.annotation) ? "" : m->text_of(pn.annotation), "constexpr");
      launch_short = launch_short || (!supplied && (!by_keyword || tensor));
    }
  }
  for (const auto& pn : params) {
    InferredParam p;
    p.name = pn.name;
    std::string annotation = ts_node_is_null(pn.annotation) ? "" : m->text_of(pn.annotation);
    // A heuristic may hand a runtime argument too (`'seg': lambda args: args['seg'](args['B1'])`,
    // a tensor): one the body loads through is a pointer, not a constexpr.
    bool heuristic_constexpr = heuristic_keys.count(pn.name) && !facts.pointers.count(pn.name);
    bool is_constexpr = contains(annotation, "constexpr") || autotune.keys.count(pn.name) || heuristic_constexpr ||
                        splat_keys.count(pn.name);
    // Triton itself types a parameter annotated `tl.pointer_type(tl.int64)` or `tl.int64`: no
    // launch or guess can differ.
    if (std::string stated = annotated_type(*m, pn.annotation); !is_constexpr && !stated.empty()) {
      p.type = stated;
      p.origin = Origin::Annotation, p.why = "annotation " + annotation;
      if (p.type == "i32" || p.type == "i64") ints.insert(p.name);
      auto given = launched.find(pn.name);  // the launch's value of an annotated scalar still holds
      if (p.type[0] != '*' && given != launched.end() && given->second.value.is_number()) {
        out.args[p.name] = given->second.value;
        known[p.name] = given->second.value;
      }
      by_name[p.name] = p;
      continue;
    }
    auto fact = launched.find(pn.name);
    // A loop Triton unrolls as often as a nominal size says would take minutes to compile; the
    // repository's real counts are small (the body fallback's 4 stands for them).
    if (fact != launched.end() && fact->second.nominal && is_constexpr && unrolled.count(pn.name)) fact = launched.end();
    // A bit count (`(1 << bits) - 1`) handed a stand-in size of 32 shifts an int32 out of range.
    if (fact != launched.end() && fact->second.nominal && is_constexpr && shifts.count(pn.name)) fact = launched.end();
    // A ratio of sizes (`group = K // scale.shape[1]`, `G = HQ // H`) is 1 with any stand-in sizes
    // that are all alike; the kernel's own sources and fallbacks know better than that 1, unless
    // the launch shapes a tensor with it (`torch.empty(B, K)`), which the kernel then indexes.
    if (fact != launched.end() && fact->second.ratio && !fact->second.sizes && is_constexpr) fact = launched.end();
    // A mode selector (`if p_loss == 1: ... elif p_loss == 2:`) handed a stand-in size would take
    // no branch at all; its first literal is a mode the kernel has.
    if (fact != launched.end() && fact->second.nominal && is_constexpr && selectors.count(pn.name)) fact = launched.end();
    // So does one the kernel compares with two or more literals among other uses (`if
    // elements_per_sample == 1: b_dtype = "e4m3"` ... `== 2:`, and `offs % elements_per_sample`):
    // a stand-in size none of them equals leaves what those branches bind undefined; the first.
    if (auto e = enumerated.find(pn.name); fact != launched.end() && fact->second.nominal && is_constexpr &&
                                           e != enumerated.end() && e->second.size() >= 2 &&
                                           std::find(e->second.begin(), e->second.end(), fact->second.value) == e->second.end()) {
      selectors[pn.name] = e->second.front();
      fact = launched.end();
    }
    // None computed for a parameter the kernel computes or compares with (`W = w.shape[1] if w is
    // not None else None`, `stride_bias = None if bias is None else bias.stride(0)`, evaluated
    // with the optional tensor left out): no run of the kernel takes it, and the fallbacks decide
    // it as they decide the tensor left out. A None the launch writes out stays: the kernel may
    // guard its uses.
    if (fact != launched.end() && fact->second.value.is_null() && fact->second.role == "none" &&
        fact->second.text != "None" && facts.numeric_params.count(pn.name))
      fact = launched.end();
    // A short launch (EquiTriton's backward hands six arguments for eight) can bind each a place
    // too early: a number it binds to a parameter the body loads or stores through is no fact,
    // and the body's use decides. (A full launch's 0 for a pointer its kernel leaves unused,
    // `residual if HAS_RESIDUAL else 0`, stays.)
    if (fact != launched.end() && launch_short && facts.pointers.count(pn.name) &&
        (fact->second.role == "int" || fact->second.role == "float" || fact->second.role == "bool"))
      fact = launched.end();
    // Nor is a float the launcher's annotation makes of what the body loads through (`w_scale:
    // float`, handed a 0-d tensor by every caller): Triton loads through no float.
    if (fact != launched.end() && fact->second.role == "float" && facts.addressed.count(pn.name)) fact = launched.end();
    if (fact != launched.end() && apply_launch_fact(fact->second, is_constexpr, facts, p, out)) {
      // A block that follows from the stand-in sizes (`BLOCK_D = triton.cdiv(d, 4)`: 8 of 32) can
      // come out below the 16 each dimension of a tl.dot needs; the repository's real sizes are
      // larger than the stand-in, and so is its block.
      if (p.type == "constexpr" && fact->second.nominal && under_dot_minimum(p.name, p.value) &&
          p.value.get<int64_t>() > 0) {
        p.value = kDotMinimum;
        p.why += "; raised to 16, the least a tl.dot takes (the stand-in sizes gave less)";
      }
      if (p.type == "constexpr" && fact->second.nominal && p.value.is_number_integer()) out.nominal.push_back(p.name);
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
    } else if (auto tuple = tuples.find(pn.name); tuple != tuples.end()) {
      // `stride_q[0]`: a tuple (`q.stride()` handed whole); of pointers where its elements are
      // the base of an address, else of integers.
      p.type = uniform_tuple(pn.name, tuple->second, nullptr);
      p.origin = Origin::Code;
      p.why = "indexed with integer literals: a tuple of " + std::to_string(tuple->second);
    } else if (std::optional<nlohmann::json> d = ts_node_is_null(pn.default_value) ? std::nullopt : defaults.eval(pn.default_value);
               d && d->is_null() && facts.none_guarded.count(pn.name)) {
      // `bias=None` with `if bias is not None: tl.load(bias + offs)`: the path without it.
      p.type = "constexpr", p.value = nullptr, p.origin = Origin::Default, p.why = "None default the body tests for";
      known[p.name] = p.value;
    } else if (facts.pointers.count(pn.name) || (pointer_name(pn.name) && !facts.values.count(pn.name))) {
      bool used = facts.pointers.count(pn.name) > 0;
      auto dt = facts.dtypes.find(pn.name);
      bool index = index_name(pn.name) && !facts.dotted.count(pn.name);  // a tl.dot operand is no index
      std::string dtype = dt != facts.dtypes.end() ? dt->second : (index ? "i32" : "fp32");
      p.type = "*" + dtype;
      p.origin = used ? Origin::Code : Origin::Name;
      auto ev = facts.evidence.find(pn.name);
      p.why = ev != facts.evidence.end() ? ev->second : "pointer name";
      if (dt == facts.dtypes.end()) p.why += index ? "; index name" : "; element type unknown";
    } else {
      std::optional<nlohmann::json> d = ts_node_is_null(pn.default_value) ? std::nullopt : defaults.eval(pn.default_value);
      if (annotation == "int" || annotation == "float" || annotation == "bool") {
        p.type = annotation == "int" ? "i32" : annotation == "float" ? "fp32" : "i1";
        p.origin = Origin::Annotation, p.why = "annotation";
      } else if (d && (d->is_number() || d->is_boolean())) {
        p.type = d->is_boolean() ? "i1" : d->is_number_integer() ? "i32" : "fp32";
        p.origin = Origin::Default, p.why = "default's type";
      } else if (d && d->is_null() && (facts.none_guarded.count(pn.name) || load_store_option(pn.name))) {
        // `mask=None` handed on as `tl.load(p, mask=mask)`, or tested against None: the default
        // is a value the kernel is written for, and Triton takes None as a constant.
        p.type = "constexpr", p.value = nullptr, p.origin = Origin::Default, p.why = "None default the body accepts";
        known[p.name] = p.value;
      } else if (!d && load_store_option(pn.name, true)) {
        // `def masked_store(ptr, offsets, val, mask): tl.store(ptr + offsets, val, mask=mask)`: a
        // helper checked on its own; Triton wants a boolean mask.
        p.type = "i1", p.origin = Origin::Code, p.why = "a load's or store's mask";
      } else if (loop_bounds.count(pn.name)) {
        p.type = "i32", p.origin = Origin::Code, p.why = "loop bound";
      } else if (facts.integer_params.count(pn.name)) {
        // An offset (`rows * H + cols` into a pointer) must be an integer; dividing by one
        // (`sum / H`) still works, so this use decides over float math.
        p.type = "i32", p.origin = Origin::Code, p.why = "used as an integer (an offset, index or bound)";
      } else if (float_operands.count(pn.name)) {
        p.type = "fp32", p.origin = Origin::Code, p.why = "operand of float math";
      } else if (facts.float_seeds.count(pn.name)) {
        p.type = "fp32", p.origin = Origin::Code, p.why = "seeds a float the loop carries";
      } else if (conditions.count(pn.name)) {
        // `if not is_causal:` of a runtime scalar used in no arithmetic: a bool (an i32 there
        // fails to compile under `not`).
        p.type = "i1", p.origin = Origin::Code, p.why = "tested for truth";
      } else if (float_name(pn.name)) {
        p.type = "fp32", p.origin = Origin::Name, p.why = "float name";
      } else {
        p.type = "i32", p.origin = Origin::Fallback, p.why = "scalar";
      }
      if (p.type == "i32") ints.insert(p.name);
    }
    by_name[p.name] = p;
  }
  // The kernel's `tl.static_assert(BLOCK_N <= HEAD_DIM)` against the sizes the launch gives: the
  // first autotune config that satisfies them, when the first one does not.
  if (autotune_configs.size() > 1) {
    std::vector<TSNode> asserts = static_assert_conditions(*m, field(site->definition, "body"));
    auto holds = [&](const Env& env) {
      for (TSNode a : asserts) {
        auto v = eval_with(*m, env, a);
        if (v && !truthy(*v)) return false;  // undecided asserts are the compile's to judge
      }
      return true;
    };
    if (!asserts.empty() && !holds(known)) {
      for (size_t i = 1; i < autotune_configs.size(); ++i) {
        Env env = known;
        for (const auto& [name, p] : by_name)
          if (p.origin == Origin::Autotune && autotune_configs[i].values.count(name)) env[name] = autotune_configs[i].values.at(name);
        if (!holds(env)) continue;
        for (auto& [name, p] : by_name)
          if (p.origin == Origin::Autotune && autotune_configs[i].values.count(name)) {
            p.value = env[name];
            p.why = "autotune config " + std::to_string(i + 1) + ", the first the kernel's tl.static_assert accepts";
            known[name] = p.value;
          }
        for (const auto& [key, v] : autotune_configs[i].options.items())
          if (!chosen || !k.launches[*chosen].options.contains(key)) out.options[key] = v;
        break;
      }
    }
  }
  // A constexpr the kernel only hands on (`load_tokens(Q, ..., HID)`, `helper(..., ROPE_METHOD)`)
  // is what the helper's own reading decides for the parameter it lands in, where the kernel's
  // body says nothing of it.
  auto fallback = [&](const std::string& name) -> std::pair<nlohmann::json, std::string> {
    // `if ACTIVATION_FN is not None: x = ACTIVATION_FN(x, *args)`: the kernel is written to run
    // without the function, and a stand-in cannot know what the unpacked arguments hold.
    if (use_of(name).called && facts.none_guarded.count(name)) {
      bool unpacked = false;
      for_each_call(field(site->definition, "body"), [&](TSNode call) {
        TSNode fn = field(call, "function");
        if (!is_type(fn, "identifier") || m->text_of(fn) != name) return;
        for_each_named_child(field(call, "arguments"), [&](TSNode a) {
          unpacked = unpacked || is_type(a, "list_splat") || is_type(a, "dictionary_splat");
        });
      });
      if (unpacked) return {nullptr, "a function the body tests against None and calls with unpacked arguments"};
    }
    auto guess = constexpr_fallback(name, use_of(name));
    if (guess.second != kNoValueFound || helpers.depth >= 3) return guess;
    std::optional<std::pair<nlohmann::json, std::string>> found;
    for_each_call(field(site->definition, "body"), [&](TSNode call) {
      TSNode fn = field(call, "function");
      if (found || !is_type(fn, "identifier") || m->text_of(fn) == k.name) return;
      std::string callee = m->text_of(fn);
      const FunctionSite* helper = module_function(*m, callee);
      if (!helper) return;
      std::string target;
      for_each_call_argument(*m, call, helper->definition, [&](const std::string& t, TSNode v) {
        if (is_type(v, "identifier") && m->text_of(v) == name) target = t;
      });
      if (target.empty()) return;
      auto it = helpers.signatures.find(callee);
      if (it == helpers.signatures.end()) {
        ++helpers.depth;
        InferredSignature read = triton_signature(KernelSource{k.plugin, callee, k.standalone, {}, m, {}}, helpers);
        --helpers.depth;
        it = helpers.signatures.emplace(callee, std::move(read)).first;
      }
      for (const auto& p : it->second.params)
        if (p.name == target && p.type == "constexpr" && p.why.find(kNoValueFound) == std::string::npos)
          found = std::make_pair(p.value, "handed to " + callee + "(" + target + "): " + p.why);
    });
    return found ? *found : guess;
  };
  // Fallbacks for constexprs nothing set, except those a heuristic will compute.
  for (auto& [name, p] : by_name) {
    if (p.type != "constexpr" || known.count(name) || heuristic_keys.count(name)) continue;
    auto [v, why] = fallback(name);
    // A static_range count that is also a block of a tl.dot (`d_offs = tl.arange(0, HEAD_DIM)`,
    // `tl.dot(q, tl.trans(k))`): the small count would give a dot under its least size.
    if (unrolled.count(name) && under_dot_minimum(name, v)) {
      v = kDotMinimum;
      why += "; 16, the least a tl.dot takes, as a block it also bounds";
    }
    p.value = v, p.origin = Origin::Fallback, p.why = why;
    known[name] = v;
  }
  // Three or more sizes guessed at 1024 (H, K, V of a multi-head kernel) index as their product,
  // far past any buffer the harness allocates: they get 128, still a multiple of the blocks guessed.
  {
    std::vector<InferredParam*> letters;
    for (auto& [name, p] : by_name)
      if (p.origin == Origin::Fallback && p.why == "dimension letter") letters.push_back(&p);
    if (letters.size() >= 3)
      for (InferredParam* p : letters) {
        p->value = 128;
        p->why = "dimension letter, one of " + std::to_string(letters.size()) + " (kept small: they multiply)";
        known[p->name] = 128;
      }
  }
  // The heuristics see the pointers the launch hands a tensor as tensors (`args['g'] is not
  // None`), and a None written out at the launch as None. A None the launcher's own default
  // gives stays unknown, as the launch fact itself does above: callers may always pass one.
  Env heuristic_env = known;
  for (const auto& [name, p] : by_name) {
    auto f = launched.find(name);
    if (p.type.empty() || p.type[0] != '*' || heuristic_env.count(name) || f == launched.end()) continue;
    if (f->second.role == "tensor") heuristic_env[name] = nlohmann::json{{"$tensor", name}, {"dtype", p.type.substr(1)}};
    if (f->second.role == "none" && f->second.text == "None") heuristic_env[name] = nullptr;
  }
  for (TSNode d : heuristic_dicts) {
    std::set<std::string> keys, nominal;
    auto values = reader.heuristics(d, heuristic_env, ints, keys, nominal);
    for (const auto& [name, v] : values) {
      auto it = by_name.find(name);
      if (it == by_name.end() || known.count(name) || it->second.type != "constexpr") continue;
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
      heuristic_env[name] = it->second.value;
    }
  }
  for (auto& [name, p] : by_name) {
    if (p.type != "constexpr" || known.count(name)) continue;
    auto [v, why] = fallback(name);
    p.value = v, p.origin = Origin::Fallback, p.why = "heuristic not evaluable; " + why;
    known[name] = v;
  }
  // A constexpr the launch computes from another it hands, neither evaluable there
  // (`HALF=BLOCK // 2` of a `BLOCK` from the caller's config): computed from the other's value as
  // the launch computes it, so the two agree as they do in the repository.
  if (chosen) {
    std::map<std::string, std::string> param_of;  // an argument written as a name -> its parameter
    for (const auto& a : k.launches[*chosen].args)
      if (!a.param.empty() && is_identifier_text(a.text)) param_of[a.text] = a.param;
    for (const auto& a : k.launches[*chosen].args) {
      auto it = by_name.find(a.param);
      if (a.role != "unknown" || a.param.empty() || param_of.count(a.text) || it == by_name.end() ||
          it->second.type != "constexpr" || it->second.origin != Origin::Fallback)
        continue;
      std::unique_ptr<PythonModule> expression;
      try {
        expression = PythonModule::build("<launch argument>", a.text);
      } catch (const Error&) {
        continue;
      }
      TSNode root = expression->tree().root();
      TSNode statement = ts_node_named_child_count(root) == 1 ? ts_node_named_child(root, 0) : TSNode{};
      if (!is_type(statement, "expression_statement") || ts_node_named_child_count(statement) != 1) continue;
      std::set<std::string> used;
      ConstantEvaluator eval(*expression, [&](const std::string& name) -> std::optional<nlohmann::json> {
        auto param = param_of.find(name);
        if (param == param_of.end() || param->second == a.param) return std::nullopt;
        auto value = known.find(param->second);
        if (value == known.end()) return std::nullopt;
        used.insert(param->second);
        return value->second;
      });
      auto v = eval.eval(ts_node_named_child(statement, 0));
      if (!v || !v->is_number_integer() || v->get<int64_t>() < 1 || used.empty()) continue;
      it->second.value = *v;
      it->second.why = "computed as the launch computes it (" + a.text + ") from the value of " + *used.begin();
      known[a.param] = *v;
    }
  }
  // Guesses that break the kernel's own tl.static_assert move to values it accepts; what the
  // launch, an annotation or a heuristic of launch values decided stays, except a launch value
  // that only follows from the stand-in sizes (`n = x.shape[-1]` with `tl.static_assert(n == 4)`).
  {
    std::set<std::string> movable;
    for (const auto& [name, p] : by_name) {
      auto f = launched.find(name);
      bool nominal = p.origin == Origin::Launch && f != launched.end() && f->second.nominal;
      if (p.type == "constexpr" &&
          (p.origin == Origin::Fallback || p.origin == Origin::Autotune || p.origin == Origin::Default || nominal))
        movable.insert(name);
    }
    for (const auto& r : repair_static_asserts(*m, field(site->definition, "body"), known, movable)) {
      InferredParam& p = by_name[r.name];
      p.value = r.value;
      p.why += "; moved to " + r.value.dump() + " for " + r.assertion;
    }
  }
  // `for i in tl.static_range(world_size): x = tl.load(buf_tuple[i] + offs)`: a tuple as long as
  // the loop's bound came to, of pointers where its elements are the base of an address. What
  // typed it before (a pointer, from the loads) gave way: Triton indexes no pointer that way.
  for (const auto& [name, bound] : loop_tuples) {
    InferredParam& p = by_name[name];
    auto n = known.find(bound);
    if (p.type.empty() || p.type == "constexpr" || p.type[0] == '(' || n == known.end() || !n->second.is_number_integer() ||
        n->second.get<int64_t>() < 1 || n->second.get<int64_t>() > 16)
      continue;
    auto given = out.tensors.find(name);
    p.type = uniform_tuple(name, n->second.get<int64_t>(), given != out.tensors.end() ? &given.value() : nullptr);
    p.origin = Origin::Code;
    p.why = "indexed with a tl.static_range(" + bound + ") variable: a tuple of " + n->second.dump();
    out.tensors.erase(name);
    out.args.erase(name);
  }
  // A descriptor's block dimension written as an expression the launch also hands a constexpr
  // (`[1, BLOCK_M, head_dim]` with `HEAD_DIM=head_dim`) follows that constexpr where it moved.
  for (auto& [name, p] : by_name) {
    auto f = launched.find(name);
    if (p.origin != Origin::Launch || f == launched.end() || f->second.role != "descriptor" ||
        !f->second.value.is_array() || f->second.value.size() != f->second.shape.size())
      continue;
    std::string block;
    for (size_t i = 0; i < f->second.shape.size(); ++i) {
      nlohmann::json d = f->second.shape[i];
      for (const auto& [other, g] : launched)
        if (g.role == "int" && g.text == f->second.value[i].get<std::string>() && known.count(other) &&
            known[other].is_number_integer() && by_name.count(other) && by_name[other].type == "constexpr")
          d = known[other];
      block += (block.empty() ? "" : ", ") + d.dump();
    }
    p.type = p.type.substr(0, p.type.find('[') + 1) + block + "]>";
  }
  // A descriptor whose block the autotuner's pre-hook sets: the launcher's block, if any, is a
  // placeholder the hook replaces before every launch.
  std::set<std::string> hooked;
  if (autotuned)
    for (const auto& [name, dims] : hook_descriptor_blocks(*m, known)) {
      auto it = by_name.find(name);
      if (it == by_name.end() || it->second.type == "constexpr") continue;
      InferredParam& p = it->second;
      auto f = launched.find(name);
      auto dt = facts.dtypes.find(name);
      std::string dtype = f != launched.end() && !f->second.dtype.empty() ? f->second.dtype : tensordesc_dtype(p.type);
      if (dtype.empty()) dtype = dt != facts.dtypes.end() ? dt->second : "fp16";
      p.type = tensordesc_type(dtype, dims);
      p.origin = Origin::Code;
      p.why = "a TMA descriptor whose block the autotune pre-hook sets";
      hooked.insert(name);
      out.tensors.erase(name);
      out.args.erase(name);
    }
  // Parameters the kernel loads and stores through as TMA descriptors take a descriptor type,
  // whatever name or launch role made them pointers or integers above.
  {
    std::vector<std::string> names;
    std::set<std::string> constexpr_names;
    for (const auto& [name, p] : by_name) {
      if (p.type == "constexpr") constexpr_names.insert(name);
      else names.push_back(name);
    }
    TSNode body = field(site->definition, "body");
    auto as_descriptor = [&](const std::string& name, const std::string& type, const char* why) {
      InferredParam& p = by_name[name];
      p.type = type;
      p.origin = Origin::Code;
      p.why = why;
      out.tensors.erase(name);
      out.args.erase(name);
    };
    for (const auto& [name, uses] : descriptor_uses(*m, body, names, constexpr_names)) {
      InferredParam& p = by_name[name];
      // A descriptor the launcher built keeps the block it was built with: the body's offsets
      // do not tell a block split in two (`c_desc.store([m, n + BLOCK_N // 2], c1)`).
      // Its element type, where neither the launch nor a pointer use said it, is the one the
      // descriptor's own uses imply.
      if ((p.origin == Origin::Launch || hooked.count(name)) && p.type.rfind("tensordesc<", 0) == 0) {
        auto f = launched.find(name);
        bool open = (f == launched.end() || f->second.dtype.empty()) && !facts.dtypes.count(name);
        std::string dtype = open ? descriptor_dtype(*m, body, uses, known) : "";
        if (!dtype.empty() && dtype != tensordesc_dtype(p.type)) {
          p.type = "tensordesc<" + dtype + p.type.substr(p.type.find('['));
          p.why += "; element type from its use";
        }
        continue;
      }
      std::string type = descriptor_type(*m, body, uses, known);
      if (!type.empty()) as_descriptor(name, type, "loaded and stored through as a TMA descriptor");
    }
    std::set<std::string> untyped;
    for (const auto& name : names)
      if (by_name[name].type.rfind("tensordesc<", 0) != 0) untyped.insert(name);
    for (const auto& [name, type] : handed_descriptor_types(*m, body, untyped, known))
      as_descriptor(name, type, "handed to a helper that loads or stores through it as a TMA descriptor");
  }
  std::vector<std::string> order;
  for (const auto& pn : params) order.push_back(pn.name);
  std::set<std::string> launch_unresolved;
  if (chosen)
    for (const auto& a : k.launches[*chosen].args)
      if (a.role == "unknown" && !a.param.empty()) launch_unresolved.insert(a.param);
  // `tl.make_tensor_descriptor(p, shape, (stride_n, stride_k), block)`: Triton compiles it only
  // with a last stride it knows is 1, which a launch of `x.stride(-1)` hands it, specialized to
  // the constant 1. A stride nobody stated is that constant.
  for (const std::string& name : unit_strides(*m, field(site->definition, "body"))) {
    auto it = by_name.find(name);
    if (it == by_name.end() || !is_guess(it->second.origin) || it->second.type.empty() ||
        (it->second.type[0] != 'i' && it->second.type[0] != 'u'))
      continue;
    it->second.type = "constexpr";
    it->second.value = 1;
    it->second.origin = Origin::Code;
    it->second.why = "the last stride of a tensor descriptor the kernel makes: the constant 1 Triton requires";
    out.args.erase(name);
  }
  agree_element_types({by_name, facts, launched, chosen.has_value(), order, launch_unresolved}, out);
  // Tables of addresses are buffers the check fills with the address of a scratch buffer: a
  // pointer even where the launch hands an integer (an address its caller took from a tensor).
  for (const auto& pn : params) {
    if (!facts.pointer_tables.count(pn.name)) continue;
    InferredParam& p = by_name[pn.name];
    if (p.type.empty() || p.type[0] != '*') {
      p.type = "*i64";
      p.why += (p.why.empty() ? "" : "; ") + std::string("holds addresses: its loaded values are cast to pointers");
      out.args.erase(pn.name);
    }
    out.pointer_tables.push_back(pn.name);
  }
  for (const auto& pn : params) {
    InferredParam& p = by_name[pn.name];
    if (p.type.empty() || p.type == "constexpr") continue;
    // The kernel's own assert decides over a pointer its cast made of the parameter.
    if (auto stated = facts.asserted_scalars.find(pn.name); stated != facts.asserted_scalars.end()) {
      p.type = stated->second;
      p.origin = Origin::Code;
      p.why = "tl.static_assert states " + stated->second;
    }
    if (p.type[0] == '*') continue;
    // An integer the kernel casts to a pointer (`a_ptr.to(tl.pointer_type(tl.float32))` of a
    // launcher's `a_ptr: int`, a `x.data_ptr()`): a 64-bit address, of a buffer the check
    // allocates and hands by address, as the repository hands a tensor's.
    auto cast = facts.cast_addresses.find(pn.name);
    if (cast == facts.cast_addresses.end() || (p.type[0] != 'i' && p.type[0] != 'u')) continue;
    p.type = "i64";
    p.why += (p.why.empty() ? "" : "; ") + std::string("an address: the body casts it to a pointer to ") + cast->second;
    out.args.erase(pn.name);
    out.addresses[pn.name] = cast->second;
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
  HelperReads helpers;
  return triton_signature(kernel, helpers);
}

}  // namespace mine::check
