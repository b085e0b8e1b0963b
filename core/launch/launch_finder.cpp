#include "core/launch/launch_finder.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "core/check/constant_eval.h"
#include "core/launch/launch_marks.h"
#include "core/launch/launcher_values.h"
#include "core/python/function_parameters.h"
#include "core/python/word_offsets.h"

namespace mine {
namespace {

using json = nlohmann::json;

// Keywords Triton's launcher takes for itself, not for the kernel.
const std::set<std::string> kLaunchOptions = {"num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion",
                                              "waves_per_eu", "matrix_instr_nonkdim", "kpack", "launch_cooperative_grid"};
const std::set<std::string> kRunKeywords = {"grid", "warmup", "stream", "device"};
// Stand-in sizes tried after LauncherValues::kNominalDim for a launcher that rejects it; 256
// covers the largest blocks launchers divide sizes by (`L // 256`) without tensors of gigabytes.
constexpr int64_t kLargerDims[] = {64, 128, 256};

struct Target {
  std::string path, name, owner;
  bool external = false;  // imported from outside the repository: not one of its kernels
};

// The first of `local`'s import bindings that names a module of the repository (`try: from .ops
// import k / except ImportError: from ops import k` resolves whichever layout the tree has), with
// where it lives; the first binding and no location when none does, or when the first binds a
// module (`import x`), which is what the name is wherever it imports.
std::pair<const ImportBinding*, ModuleLocation> located_import(const PythonModule& m, const ModuleIndex* index,
                                                               const std::string& local) {
  auto alternatives = m.import_alternatives(local);
  if (alternatives.empty()) return {nullptr, {}};
  if (index && !alternatives.front()->imported.empty())
    for (const ImportBinding* b : alternatives) {
      ModuleLocation loc = b->imported.empty() ? index->absolute(b->module, m.path())
                                               : index->imported(b->module, b->level, m.path());
      if (loc.found()) return {b, loc};
    }
  return {alternatives.front(), {}};
}

// Where `ops` of `ops.kernel` lives when it names a module of the repository.
ModuleLocation module_of(const PythonModule& m, const ModuleIndex* index, const std::string& local) {
  if (!index) return {};
  for (const ImportBinding* b : m.import_alternatives(local)) {
    if (b->imported.empty()) {
      ModuleLocation loc = index->absolute(b->module, m.path());
      if (loc.found()) return loc;
      continue;
    }
    ModuleLocation package = index->imported(b->module, b->level, m.path());
    if (!package.dir.empty()) {
      ModuleLocation sub = index->submodule(package.dir, b->imported);
      if (sub.found()) return sub;
    }
  }
  return {};
}

bool defined_here(const PythonModule& m, const std::string& name) { return !m.bindings_of(name).empty() && !m.import_of(name); }

Target resolve(const PythonModule& m, const ModuleIndex* index, TSNode callee) {
  Target t;
  if (is_type(callee, "identifier")) {
    t.name = m.text_of(callee);
    if (defined_here(m, t.name)) {
      t.path = m.path();
      return t;
    }
    auto [b, loc] = located_import(m, index, t.name);
    if (!b) return t;  // nested definition, star import: matched by name
    if (b->imported.empty()) {
      t.external = true;  // `import x` binds a module, which is never launched
      return t;
    }
    if (!index) return t;
    if (!loc.found()) {
      t.external = true;
      return t;
    }
    t.name = b->imported;
    t.path = loc.file;
    return t;
  }
  if (is_type(callee, "attribute")) {
    t.name = m.text_of(field(callee, "attribute"));
    TSNode object = field(callee, "object");
    TSNode owner = is_type(object, "attribute") ? field(object, "attribute") : object;
    if (is_type(owner, "identifier") && m.text_of(owner) != "self" && m.text_of(owner) != "cls") t.owner = m.text_of(owner);
    if (is_type(object, "identifier")) {
      std::string base = m.text_of(object);
      if (m.import_of(base)) {
        ModuleLocation loc = module_of(m, index, base);
        if (!loc.file.empty()) t.path = loc.file;
        else if (!loc.found() && index) {
          t.external = true;
          for (const ImportBinding* b : m.import_alternatives(base))
            if (index->imported(b->module, b->level, m.path()).found()) t.external = false;
        }
      }
    }
  }
  return t;
}

std::string role_of(const std::optional<json>& v, LaunchArgument& a) {
  if (!v) return "unknown";
  if (LauncherValues::is_tensor(*v)) {
    a.dtype = (*v)["dtype"].is_string() ? (*v)["dtype"].get<std::string>() : "";
    a.shape = (*v)["shape"];
    a.tensor = (*v)["$tensor"].get<std::string>();
    a.autocast = v->contains("$autocast");
    return "tensor";
  }
  if (v->is_object() && v->contains("$descriptor")) {
    const json& base = (*v)["$descriptor"];
    a.dtype = base["dtype"].is_string() ? base["dtype"].get<std::string>() : "";
    a.shape = (*v)["block"];
    a.tensor = base["$tensor"].get<std::string>();
    if (v->contains("block_text")) a.value = (*v)["block_text"];
    return "descriptor";
  }
  if (v->is_object() && v->contains("$layout")) {  // a Gluon layout, as the Python text that builds it
    a.value = "$gluon:" + (*v)["$layout"].get<std::string>();
    return "layout";
  }
  if (LauncherValues::is_dtype(*v)) {
    a.dtype = (*v)["$dtype"].is_string() ? (*v)["$dtype"].get<std::string>() : "";
    if (!a.dtype.empty()) a.value = triton_dtype_value(a.dtype);
    return "dtype";
  }
  if (v->is_string() && v->get<std::string>().rfind("tl.", 0) == 0) {
    a.value = *v;
    return "dtype";
  }
  if (v->is_boolean()) return a.value = *v, "bool";
  if (v->is_number_integer()) return a.value = *v, "int";
  if (v->is_number()) return a.value = *v, "float";
  if (v->is_string()) return a.value = *v, "str";
  if (v->is_null()) return "none";
  // `x_stride=x.stride()`, `shape=x.shape`: a tuple of integers the kernel indexes.
  if (v->is_array() && !v->empty() && v->size() <= 8 &&
      std::all_of(v->begin(), v->end(), [](const json& x) { return x.is_number_integer(); }))
    return a.value = *v, "tuple";
  return "unknown";
}

// Whether `m` defines a class `name` at module level.
bool module_class_defines(const PythonModule& m, const std::string& name) {
  for (const ModuleStatement* s : m.bindings_of(name))
    if (s->kind == StatementKind::Class) return true;
  return false;
}

// `@staticmethod` / `@classmethod` `name` of class `cls` of `m`: callable on the class itself,
// without an instance whose state the launcher cannot know.
const FunctionSite* class_level_method(const PythonModule& m, const std::string& cls, const std::string& name) {
  const std::string qualname = cls + "." + name;
  const FunctionSite* found = nullptr;
  for (const FunctionSite& f : m.functions()) {
    if (f.qualname != qualname) continue;
    bool class_level = false;
    for (TSNode d : f.decorators) {
      std::string_view t = m.tree().text_of(d);
      class_level = class_level || t == "staticmethod" || t == "classmethod";
    }
    found = class_level ? &f : nullptr;  // the last definition is the one the class holds
  }
  return found;
}

// The expression a module-level class's body last assigns to `name` (`block_size = 64`), else null.
TSNode class_attribute(const PythonModule& m, const std::string& cls, const std::string& name) {
  TSNode found{};
  for (const ModuleStatement* s : m.bindings_of(cls)) {
    if (s->kind != StatementKind::Class) continue;
    TSNode definition = is_type(s->node, "decorated_definition") ? field(s->node, "definition") : s->node;
    for_each_named_child(field(definition, "body"), [&](TSNode statement) {
      TSNode a = is_type(statement, "expression_statement") ? ts_node_named_child(statement, 0) : TSNode{};
      if (is_type(a, "assignment") && is_type(field(a, "left"), "identifier") && m.text_of(field(a, "left")) == name &&
          !ts_node_is_null(field(a, "right")))
        found = field(a, "right");
    });
  }
  return found;
}

// Helpers a launcher calls, in its own file or in a repository file it imports them from.
LauncherValues::CalleeLookup callee_lookup(const ModuleIndex* index, const ModuleLoader& module_at) {
  return [index, module_at](const PythonModule& from, TSNode fn) -> LauncherValues::Callee {
    std::string name;
    const PythonModule* where = nullptr;
    if (is_type(fn, "identifier")) {
      name = from.text_of(fn);
      if (const FunctionSite* f = module_function(from, name)) return {&from, f->definition};
      if (!index || !module_at) return {};
      auto [b, loc] = located_import(from, index, name);
      if (!b || b->imported.empty() || loc.file.empty()) return {};
      where = module_at(loc.file);
      name = b->imported;
    } else if (is_type(fn, "attribute") && is_type(field(fn, "object"), "identifier")) {
      std::string object = from.text_of(field(fn, "object")), attribute = from.text_of(field(fn, "attribute"));
      ModuleLocation loc = module_at ? module_of(from, index, object) : ModuleLocation{};
      if (!loc.file.empty()) {
        where = module_at(loc.file);
        name = attribute;
      } else {
        // `Helper.split(d)`: a static or class method of a class this file defines or imports.
        std::string cls = object;
        where = &from;
        if (!module_class_defines(from, object)) {
          if (!index || !module_at) return {};
          auto [b, at] = located_import(from, index, object);
          if (!b || b->imported.empty() || at.file.empty()) return {};
          where = module_at(at.file);
          cls = b->imported;
        }
        if (!where) return {};
        if (const FunctionSite* f = class_level_method(*where, cls, attribute)) return {where, f->definition};
        return {where, TSNode{}, class_attribute(*where, cls, attribute)};
      }
    }
    if (!where) return {};
    const FunctionSite* f = module_function(*where, name);
    return f ? LauncherValues::Callee{where, f->definition} : LauncherValues::Callee{};
  };
}

class Finder {
 public:
  Finder(const PythonModule& m, const ModuleIndex* index, const ModuleLoader& module_at)
      : m_(m), index_(index), callees_(callee_lookup(index, module_at)), marks_(m.tree().text()) {
    for (const auto& f : m.functions()) qualname_[ts_node_start_byte(f.definition)] = f.qualname;
  }

  void walk(TSNode n, TSNode function, std::vector<LaunchSite>& out, int depth) {
    if (depth > 200) return;
    if (!marks_.spans(ts_node_start_byte(n), ts_node_end_byte(n))) return;  // no launch inside
    if (is_type(n, "function_definition")) function = n;
    ancestors_.push_back(n);
    if (is_type(n, "call")) consider(n, function, out);
    for_each_named_child(n, [&](TSNode c) { walk(c, function, out, depth + 1); });
    ancestors_.pop_back();
  }

 private:
  void consider(TSNode call, TSNode function, std::vector<LaunchSite>& out) {
    TSNode fn = field(call, "function");
    TSNode callee{}, grid{};
    LaunchSite site;
    if (is_type(fn, "subscript")) {
      callee = field(fn, "value");
      grid = field(fn, "subscript");
      site.kind = "subscript";
    } else if (is_type(fn, "attribute") && m_.text_of(field(fn, "attribute")) == "run") {
      callee = field(fn, "object");
      site.kind = "run";
    } else {
      return;
    }
    if (!is_type(callee, "identifier") && !is_type(callee, "attribute") && !is_type(callee, "call")) return;
    path_flags_ = path_flags(call, function);
    caller_ = &caller_values(function);
    for (const auto& [name, v] : caller_->modes) path_flags_.emplace(name, v);  // a flag the path tests wins
    // A launch in a script's or a notebook's own code reads the module's statements before it.
    TSNode evaluated = ts_node_is_null(function) ? m_.tree().root() : function;
    auto evaluate = [&](int64_t dim) {
      return std::make_unique<LauncherValues>(m_, evaluated, ts_node_start_byte(call), callees_, &path_flags_, 0, dim,
                                              &tensor_facts_, nullptr, 0, nullptr, &caller_->tensors);
    };
    std::unique_ptr<LauncherValues> values = evaluate(LauncherValues::kNominalDim);
    skew_at_ = {evaluated, ts_node_start_byte(call)};
    // The alternate evaluation runs with kAlternateDim whatever stand-in size the launch is
    // described with: one serves the nominal size and every larger one tried below.
    alternate_.reset();
    // `if dtype == torch.bfloat16: kernel = _k_bf16 / elif ...: kernel = _k_fp16`: each binding
    // of the launched local on the way to the launch is a kernel it launches, not only the one
    // the evaluation's path ends with.
    std::vector<TSNode> other_bindings;
    if (is_type(callee, "identifier") && !ts_node_is_null(function))
      if (TSNode last = values->assigned(m_.text_of(callee)); !ts_node_is_null(last))
        for (TSNode b : bindings_before(function, m_.text_of(callee), ts_node_start_byte(call)))
          if (!ts_node_eq(b, last)) other_bindings.push_back(b);
    // `kernel = _fwd_kernel` (or `table[name]["update"]`) in the launcher: follow the local name.
    // A conditional launches either kernel (expand), even where the stand-in values decide its
    // test: a default (`gemma=False`) picks one path of several the repository takes.
    for (int hops = 0; hops < 3 && is_type(callee, "identifier"); ++hops) {
      TSNode to = values->assigned(m_.text_of(callee));
      if (!is_type(to, "identifier") && !is_type(to, "attribute") && !is_type(to, "subscript") && !is_type(to, "call") &&
          !is_type(to, "conditional_expression"))
        break;
      callee = to;
    }
    // `def run(kernel, x): kernel[grid](x)`: the caller chooses the kernel; the parameter's name
    // is no kernel's, and matching it by name would bind every kernel called `kernel`. The
    // kernels this file's calls of the launcher hand that parameter are what it launches.
    // So does a wrapper's (`triton_viz.trace(puzzle)[grid](...)`, see expand).
    std::vector<TSNode> handed;
    TSNode wrapped = callee;
    for (int hops = 0; hops < 3 && is_type(wrapped, "call"); ++hops) wrapped = ts_node_named_child(field(wrapped, "arguments"), 0);
    if (is_type(wrapped, "identifier") && !ts_node_is_null(function) && ts_node_is_null(values->assigned(m_.text_of(wrapped)))) {
      const std::vector<ParameterNodes>& params = tensor_facts_.nodes.parameters(m_, function);
      for (size_t i = 0; i < params.size(); ++i)
        if (params[i].name == m_.text_of(wrapped)) {
          handed = kernels_handed(function, params[i].name, static_cast<int>(i));
          if (handed.empty()) return;
        }
    }
    std::vector<std::pair<TSNode, Target>> targets;
    // `placed_only`: leave out names the file cannot place (see placed()).
    auto find_targets = [&](TSNode expression, bool placed_only) {
      std::vector<TSNode> candidates;
      expand(expression, candidates, 0);
      for (TSNode candidate : candidates) {
        if (placed_only && !placed(candidate)) continue;
        Target target = resolve(m_, index_, candidate);
        bool seen = std::any_of(targets.begin(), targets.end(), [&](const auto& t) {
          return t.second.name == target.name && t.second.path == target.path && t.second.owner == target.owner;
        });
        if (!seen && !target.external && !target.name.empty()) targets.emplace_back(candidate, std::move(target));
      }
    };
    // `kernel.fn[grid](...)`: the autotuned (or heuristics-wrapped) kernel's own JITFunction, its
    // configs bypassed; the kernel all the same (unless `fn` itself names one: `self.fn = k`).
    for (TSNode h : handed) find_targets(h, true);
    if (handed.empty() && is_type(callee, "attribute") && m_.text_of(field(callee, "attribute")) == "fn")
      find_targets(field(callee, "object"), false);
    if (handed.empty() && targets.empty()) find_targets(callee, false);
    for (TSNode b : other_bindings) find_targets(b, true);
    if (targets.empty()) return;
    // The launches as one stand-in size gives them, and the signs that the launcher rejects that
    // size: the asserts it fails, and which arguments and grid dimensions came out 0.
    struct Rejections {
      int failed_asserts = 0;
      std::set<std::string> zeros;
      // Fewer of both, none new: a larger size that clears `n // BLOCK` but makes `N = K // 64`
      // 0 where it was not is no better.
      bool better_than(const Rejections& o) const {
        bool subset = std::includes(o.zeros.begin(), o.zeros.end(), zeros.begin(), zeros.end());
        return subset && failed_asserts <= o.failed_asserts && (zeros.size() < o.zeros.size() || failed_asserts < o.failed_asserts);
      }
      bool none() const { return failed_asserts == 0 && zeros.empty(); }
    };
    auto describe_all = [&](const LauncherValues& v, int64_t dim, std::vector<LaunchSite>& sites) {
      dim_ = dim;
      skewed_ = {};  // skewed evaluations scale `dim`
      Rejections r;
      r.failed_asserts = v.failed_asserts();
      for (const auto& [candidate, target] : targets) {
        // `if a.dtype in I8: kernel = imatmul_kernel else: kernel = matmul_kernel`: each kernel is
        // launched on the path through its own binding, whose tests say what the tensors hold.
        std::unique_ptr<LauncherValues> own;
        if (targets.size() > 1 && in_branch_apart(candidate, call, function))
          own = std::make_unique<LauncherValues>(m_, evaluated, ts_node_start_byte(call), callees_, &path_flags_, 0, dim,
                                                 &tensor_facts_, nullptr, 0, nullptr, &caller_->tensors,
                                                 ts_node_start_byte(candidate));
        const LauncherValues& tv = own ? *own : v;
        values_ = &tv;
        LaunchSite one = site;
        one.callee = m_.text_of(candidate);
        one.target_path = target.path;
        one.target_name = target.name;
        one.target_owner = target.owner;
        describe(call, function, grid, tv, one);
        zero_values(one, r.zeros);
        kernel_zero_divisions(candidate, one, r.zeros);
        sites.push_back(std::move(one));
        values_ = &v;  // not the evaluation of this target alone, which ends here
      }
      return r;
    };
    std::vector<LaunchSite> best;
    Rejections best_rejections = describe_all(*values, LauncherValues::kNominalDim, best);
    // A launcher that asserts `L % 256 == 0`, or computes `num_blocks = n // BLOCK` (0 with the
    // stand-in size) for the kernel or its grid, launches with sizes above the stand-in: the
    // smallest larger size that the launcher rejects less often gives the launch.
    for (int64_t dim : kLargerDims) {
      if (best_rejections.none()) break;
      std::unique_ptr<LauncherValues> larger = evaluate(dim);
      std::vector<LaunchSite> sites;
      Rejections r = describe_all(*larger, dim, sites);
      if (r.better_than(best_rejections)) {
        best = std::move(sites);
        best_rejections = std::move(r);
      }
    }
    values_ = nullptr;
    for (auto& one : best) out.push_back(std::move(one));
  }

  // Whether `node` lies in a branch of an `if` of the launcher that does not hold the launch.
  bool in_branch_apart(TSNode node, TSNode call, TSNode function) const {
    if (ts_node_is_null(function)) return false;
    for (TSNode n = ts_node_parent(node); !ts_node_is_null(n) && !ts_node_eq(n, function); n = ts_node_parent(n)) {
      if (!is_type(n, "if_statement")) continue;
      bool holds_call = ts_node_start_byte(n) <= ts_node_start_byte(call) && ts_node_end_byte(call) <= ts_node_end_byte(n);
      if (!holds_call) return true;
    }
    return false;
  }

  // The kernel's own `N // 128` (or `num_cols // GROUP_SIZE`) of a parameter the launch gives a
  // value below the divisor: with these sizes the kernel reshapes to nothing or loops zero times,
  // where the repository launches it with sizes of at least the divisor.
  void kernel_zero_divisions(TSNode candidate, const LaunchSite& site, std::set<std::string>& out) {
    const std::vector<FloorDivision>& divisions = floor_divisions(candidate);
    if (divisions.empty()) return;
    auto value_of = [&](const std::string& param, int position) -> std::optional<int64_t> {
      for (const auto& a : site.args)
        if ((a.keyword == param || (a.keyword.empty() && a.position == position)) && a.value.is_number_integer())
          return a.value.get<int64_t>();
      return std::nullopt;
    };
    for (const auto& d : divisions) {
      auto n = value_of(d.param, d.param_position);
      auto by = d.literal ? std::optional<int64_t>(d.literal) : value_of(d.divisor_param, d.divisor_position);
      if (n && by && *n > 0 && *by > *n) out.insert("kernel:" + d.param + "//" + std::to_string(*by));
    }
  }

  // `P // C` in the kernel launched as `candidate`, P a parameter and C an integer literal or
  // another parameter; read once per kernel definition.
  struct FloorDivision {
    std::string param;
    int param_position = -1;
    int64_t literal = 0;
    std::string divisor_param;
    int divisor_position = -1;
  };
  const std::vector<FloorDivision>& floor_divisions(TSNode candidate) {
    static const std::vector<FloorDivision> kNone;
    LauncherValues::Callee k = callees_(m_, candidate);
    if (!k.module || ts_node_is_null(k.definition)) return kNone;
    auto key = std::make_pair(static_cast<const void*>(k.module), k.definition.id);
    auto found = floor_divisions_.find(key);
    if (found != floor_divisions_.end()) return found->second;
    std::vector<FloorDivision>& out = floor_divisions_[key];
    std::map<std::string, int> position;
    for (const ParameterNodes& p : tensor_facts_.nodes.parameters(*k.module, k.definition))
      position.emplace(p.name, static_cast<int>(position.size()));
    // Where the definition's text holds "//": a node spanning none holds no floor division, and
    // its subtree is skipped (a kernel body has thousands of nodes and few divisions; the walk
    // over all of them, once per file launching the kernel, cost 2% of a scan).
    const WordOffsets slashes(k.module->tree().text(), "//", ts_node_start_byte(k.definition),
                              ts_node_end_byte(k.definition));
    std::vector<TSNode> stack{field(k.definition, "body")};
    while (!stack.empty() && out.size() < 64) {
      TSNode x = stack.back();
      stack.pop_back();
      if (!slashes.spanned_by(x)) continue;
      if (is_type(x, "binary_operator") && k.module->text_of(field(x, "operator")) == "//") {
        TSNode l = field(x, "left"), r = field(x, "right");
        auto p = is_type(l, "identifier") ? position.find(k.module->text_of(l)) : position.end();
        if (p != position.end()) {
          FloorDivision d;
          d.param = p->first, d.param_position = p->second;
          if (is_type(r, "integer")) {
            auto v = check::ConstantEvaluator(*k.module, nullptr).eval(r);
            d.literal = v && v->is_number_integer() ? v->get<int64_t>() : 0;
          } else if (auto q = is_type(r, "identifier") ? position.find(k.module->text_of(r)) : position.end(); q != position.end()) {
            d.divisor_param = q->first, d.divisor_position = q->second;
          }
          if (d.literal > 1 || !d.divisor_param.empty()) out.push_back(std::move(d));
        }
      }
      for_each_named_child(x, [&](TSNode c) { stack.push_back(c); });
    }
    return out;
  }

  // The arguments (by position or keyword) and grid dimensions that are 0 with these stand-in
  // sizes (a literal 0 is so with every size).
  static void zero_values(const LaunchSite& site, std::set<std::string>& out) {
    for (const auto& a : site.args)
      if (a.role == "int" && a.value.is_number_integer() && a.value.get<int64_t>() == 0)
        out.insert(a.keyword.empty() ? std::to_string(a.position) : a.keyword);
    if (site.grid.is_array())
      for (size_t i = 0; i < site.grid.size(); ++i)
        if (site.grid[i].is_number_integer() && site.grid[i].get<int64_t>() == 0) out.insert("grid" + std::to_string(i));
  }

  // What a launched expression can be: the name itself; the kernel inside a wrapper
  // (`torch.library.wrap_triton(k)`, `triton_viz.trace(k)`); every kernel of a module-level
  // dispatch table (`OPTIMIZERS[name]["update"]`), each a launch of its own.
  void expand(TSNode e, std::vector<TSNode>& out, int depth) const {
    if (depth > 8 || out.size() > 64) return;
    if (is_type(e, "identifier") || is_type(e, "attribute")) {
      out.push_back(e);
    } else if (is_type(e, "conditional_expression")) {
      expand(ts_node_named_child(e, 0), out, depth + 1);
      expand(ts_node_named_child(e, 2), out, depth + 1);
    } else if (is_type(e, "call")) {
      // A call whose result is launched with a grid wraps the kernel it is handed first:
      // `wrap_triton(k)`, `capture_triton(k)`, a tracer's `triton_viz.trace(k)`. What its first
      // argument cannot resolve to a kernel launches nothing.
      TSNode first = ts_node_named_child(field(e, "arguments"), 0);
      if (!ts_node_is_null(first) && !is_type(first, "keyword_argument")) expand(first, out, depth + 1);
    } else if (is_type(e, "subscript")) {
      // The keys, outermost table first: a constant key (`["update"]`) picks its entry, any
      // other (`[optimizer_name]`) keeps them all.
      std::vector<TSNode> keys;
      TSNode base = e;
      while (is_type(base, "subscript")) {
        keys.insert(keys.begin(), field(base, "subscript"));
        base = field(base, "value");
      }
      if (!is_type(base, "identifier")) return;
      check::ConstantEvaluator constants(m_, nullptr);
      TSNode table = constants.module_constant(m_.text_of(base));
      std::vector<std::optional<nlohmann::json>> key_values;
      for (TSNode k : keys) key_values.push_back(constants.eval(k));
      values_of(table, key_values, 0, out, depth + 1);
    }
  }

  void values_of(TSNode table, const std::vector<std::optional<nlohmann::json>>& keys, size_t level, std::vector<TSNode>& out,
                 int depth) const {
    if (depth > 8 || out.size() > 64) return;
    if (is_type(table, "dictionary")) {
      const std::optional<nlohmann::json>* key = level < keys.size() ? &keys[level] : nullptr;
      check::ConstantEvaluator constants(m_, nullptr);
      for_each_named_child(table, [&](TSNode pair) {
        if (!is_type(pair, "pair")) return;
        if (key && *key) {
          auto k = constants.eval(field(pair, "key"));
          if (!k || *k != **key) return;
        }
        values_of(field(pair, "value"), keys, level + 1, out, depth + 1);
      });
    } else if (is_type(table, "list") || is_type(table, "tuple")) {
      for_each_named_child(table, [&](TSNode v) { values_of(v, keys, level + 1, out, depth + 1); });
    } else if (is_type(table, "identifier") || is_type(table, "attribute")) {
      out.push_back(table);
    }
  }

  void describe(TSNode call, TSNode function, TSNode grid, const LauncherValues& values, LaunchSite& site) {
    site.path = m_.path();
    site.line = first_line(call);
    site.expects_error = ts::inside_error_expectation(call, function, [&](TSNode x) { return m_.text_of(x); });
    if (!ts_node_is_null(function)) {
      auto q = qualname_.find(ts_node_start_byte(function));
      if (q != qualname_.end()) site.launcher = q->second;
    }
    argument_nodes_.clear();
    moved_ratios_.clear();
    arguments(call, values, site);
    mark_sizing_ratios(site);
    if (site.kind == "run") {
      TSNode g = keyword_value(call, "grid", [&](TSNode x) { return m_.text_of(x); });
      grid = g;
    }
    if (!ts_node_is_null(grid)) evaluate_grid(grid, values, site);
  }

  // What `value` evaluates to with the alternate size (LauncherValues::kAlternateDim), given what
  // it evaluated to with the nominal one: that very value while no nominal value has read a size
  // (LauncherValues::read_sizes: the alternate evaluation would run alike), else the alternate
  // evaluation's, built on first need.
  std::optional<json> alternate_value(TSNode value, const std::optional<json>& nominal) {
    if (!values_->read_sizes()) return nominal;
    if (!alternate_)
      alternate_ = std::make_unique<LauncherValues>(m_, skew_at_.first, skew_at_.second, callees_, &path_flags_, 0,
                                                    LauncherValues::kAlternateDim, &tensor_facts_, nullptr, 0, nullptr,
                                                    &caller_->tensors);
    return alternate_->eval(value);
  }

  // The same with skewed sizes (LauncherValues::kSkewUp / kSkewDown).
  std::optional<json> skewed_value(int skew, TSNode value, const std::optional<json>& nominal) {
    if (!values_->read_sizes()) return nominal;
    return skewed(skew).eval(value);
  }

  // The launcher evaluated with skewed sizes, built for a launch only when one of its arguments
  // needs it.
  const LauncherValues& skewed(int skew) {
    auto& slot = skewed_[skew > 0 ? 0 : 1];
    if (!slot)
      slot = std::make_unique<LauncherValues>(m_, skew_at_.first, skew_at_.second, callees_, &path_flags_, 0,
                                              dim_, &tensor_facts_, nullptr, skew, nullptr,
                                              &caller_->tensors);
    return *slot;
  }

  // A ratio whose skewed value shapes a tensor of the same launch (`K = math.ceil(NC / group)`,
  // `torch.empty(B, K, F)`): the tensor is allocated with the launch's value, so the kernel must
  // run with it too, whatever a guess would say.
  void mark_sizing_ratios(LaunchSite& site) {
    for (const MovedRatio& r : moved_ratios_) {
      for (size_t j = 0; j < site.args.size() && j < argument_nodes_.size() && !site.args[r.index].sizes; ++j) {
        const LaunchArgument& t = site.args[j];
        if (t.role != "tensor" || !t.shape.is_array() || ts_node_is_null(argument_nodes_[j])) continue;
        auto skewed = skewed_value(r.skew, argument_nodes_[j], std::nullopt);
        if (!skewed || !LauncherValues::is_tensor(*skewed) || !(*skewed)["shape"].is_array()) continue;
        const json& moved = (*skewed)["shape"];
        if (moved.size() != t.shape.size()) continue;
        for (size_t i = 0; i < moved.size(); ++i)
          if (t.shape[i] == r.value && moved[i] == r.moved) site.args[r.index].sizes = true;
      }
    }
  }

  // +1 for `float("inf")` (also `float('infinity')`), -1 for `-float("inf")` or `float("-inf")`,
  // else 0.
  int infinity_sign(TSNode e) const {
    int sign = 1;
    while (is_type(e, "unary_operator") || is_type(e, "parenthesized_expression")) {
      if (is_type(e, "unary_operator") && m_.text_of(field(e, "operator")) == "-") sign = -sign;
      e = ts_node_named_child(e, ts_node_named_child_count(e) - 1);
    }
    if (!is_type(e, "call") || m_.text_of(field(e, "function")) != "float") return 0;
    TSNode arg = ts_node_named_child(field(e, "arguments"), 0);
    if (ts_node_is_null(arg) || !is_type(arg, "string")) return 0;
    std::string text = m_.text_of(arg);
    std::string lower;
    for (char c : text)
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '-') lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "-inf" || lower == "-infinity") return -sign;
    return lower == "inf" || lower == "infinity" ? sign : 0;
  }

  // A true division, arithmetic with a float literal, or `float(...)`.
  bool float_expression(TSNode e, int depth = 0) const {
    if (depth > 8 || ts_node_is_null(e)) return false;
    if (is_type(e, "float")) return true;
    if (is_type(e, "parenthesized_expression") || is_type(e, "unary_operator"))
      return float_expression(ts_node_named_child(e, ts_node_named_child_count(e) - 1), depth + 1);
    if (is_type(e, "call")) {
      TSNode fn = field(e, "function");
      return is_type(fn, "identifier") && m_.text_of(fn) == "float";
    }
    if (!is_type(e, "binary_operator")) return false;
    std::string op = m_.text_of(field(e, "operator"));
    if (op == "/") return true;
    if (op != "+" && op != "-" && op != "*") return false;
    return float_expression(field(e, "left"), depth + 1) || float_expression(field(e, "right"), depth + 1);
  }

  void add_argument(TSNode value, const std::string& keyword, int position, const LauncherValues& values,
                    LaunchSite& site) {
    argument_nodes_.push_back(value);
    LaunchArgument a;
    a.keyword = keyword;
    a.position = position;
    a.text = m_.text_of(value);
    auto v = values.eval(value);
    a.role = role_of(v, a);
    // `1.0 / (n_samples - 1)`, `float(scale)` of a size the launcher leaves open: a Python float
    // whatever it divides, of a value the stand-ins cannot give (a tensor operand would make a
    // tensor, which the kernel's body then loads through: its use decides there).
    if (!v && float_expression(value)) {
      a.role = "float";
      // `float("inf")`, `-float("inf")`: JSON holds no infinity; float32's largest finite value
      // stands in (a bound that 1.0 would turn into an early exit or an endless search).
      int infinity = infinity_sign(value);
      a.value = infinity ? infinity * static_cast<double>(std::numeric_limits<float>::max()) : 1.0;
      a.nominal = true;
    }
    if (v && v->is_number()) {
      auto w = alternate_value(value, v);
      a.nominal = !w || *w != *v;
      // Not a literal, yet unmoved by scaling every size: a ratio of sizes moves when they differ.
      // Only small values are taken for one: equal stand-in sizes divide to 1 (0 or 2 after
      // rounding); a step function of a size (`8 if d <= 32 else 4`) also moves, and its value
      // still agrees with the shapes the launch gives.
      bool small = v->is_number_integer() && v->get<int64_t>() >= 0 && v->get<int64_t>() <= 2;
      if (!a.nominal && small && !is_type(value, "integer") && !is_type(value, "float")) {
        for (int skew : {LauncherValues::kSkewUp, LauncherValues::kSkewDown}) {
          auto x = skewed_value(skew, value, v);
          if (x && *x != *v) {
            a.nominal = a.ratio = true;
            moved_ratios_.push_back({site.args.size(), skew, *v, *x});
            break;  // the other skew need not be evaluated
          }
        }
      }
    }
    site.args.push_back(std::move(a));
  }

  // `*x.stride()`, `*x.shape`: as many arguments as x has dimensions, counted only where the
  // launcher's code states x's rank (`x = x.view(-1, N)`, `B, H, N = x.shape`), not guessed it.
  bool counted(TSNode list, const LauncherValues& values) const {
    if (ts_node_is_null(list)) return false;
    TSNode of = list;
    if (is_type(list, "call")) of = field(list, "function");
    if (!is_type(of, "attribute")) return true;
    std::string attr = m_.text_of(field(of, "attribute"));
    if (attr != "stride" && attr != "shape" && attr != "size") return true;
    auto t = values.eval(field(of, "object"));
    return !(t && LauncherValues::is_tensor(*t) && t->contains("$rank_guessed"));
  }

  void arguments(TSNode call, const LauncherValues& values, LaunchSite& site) {
    int position = 0;
    bool positions_known = true;
    size_t after_splat = std::string::npos;  // first argument after the last spread of unknown length
    bool keywords_known = true;              // every `**kw` was expanded
    auto unknown_length = [&] {
      site.complete = false;
      positions_known = false;
      after_splat = site.args.size();
    };
    auto keyword_arg = [&](const std::string& key, TSNode value) {
      if (kLaunchOptions.count(key)) {
        // An option that follows from nominal sizes (a launcher's int parameter) says nothing.
        auto v = values.eval(value);
        auto w = alternate_value(value, v);
        // Only a plain value is an option: `num_warps=config["num_warps"]` of a config the
        // launcher cannot evaluate stands in as a tensor, which no compile takes.
        if (v && w && *v == *w && (v->is_number() || v->is_boolean() || v->is_string())) site.options[key] = *v;
        return;
      }
      if (site.kind == "run" && kRunKeywords.count(key)) return;
      add_argument(value, key, -1, values, site);
    };
    for_each_named_child(field(call, "arguments"), [&](TSNode a) {
      if (is_type(a, "comment")) return;
      if (is_type(a, "keyword_argument")) {
        keyword_arg(m_.text_of(field(a, "name")), field(a, "value"));
      } else if (is_type(a, "list_splat")) {
        TSNode inner = ts_node_named_child(a, 0);
        TSNode list = is_type(inner, "identifier") ? values.assigned(m_.text_of(inner)) : inner;
        // `*(strides if has_bias else (0, 0, 0))`: the branch the launcher's values decide.
        for (int hop = 0; hop < 4 && (is_type(list, "conditional_expression") || is_type(list, "parenthesized_expression")); ++hop) {
          if (is_type(list, "parenthesized_expression")) {
            list = ts_node_named_child(list, 0);
            continue;
          }
          auto c = values.eval(ts_node_named_child(list, 1));
          if (!c) break;
          list = ts_node_named_child(list, check::truthy(*c) ? 0 : 2);
        }
        // Each element of a splatted value is an argument.
        auto spread = [&](const json& v, const std::string& text) {
          for (size_t i = 0; i < v.size(); ++i) {
            LaunchArgument a;
            a.position = positions_known ? position++ : -1;
            a.text = "(" + text + ")[" + std::to_string(i) + "]";
            a.role = role_of(v[i], a);
            a.nominal = v[i].is_number();
            argument_nodes_.push_back(TSNode{});  // no expression of its own to evaluate again
            site.args.push_back(std::move(a));
          }
        };
        auto handed = is_type(inner, "identifier") && ts_node_is_null(list)
                          ? caller_->sequences.find(m_.text_of(inner))
                          : caller_->sequences.end();
        if (is_type(list, "tuple") || is_type(list, "list")) {
          for_each_named_child(list, [&](TSNode e) {
            if (is_type(e, "comment")) return;
            if (!is_type(e, "list_splat")) {
              add_argument(e, "", positions_known ? position++ : -1, values, site);
              return;
            }
            // `[x, *out.stride(), n]`
            auto v = values.eval(ts_node_named_child(e, 0));
            if (!v || !v->is_array()) {
              unknown_length();
              return;
            }
            spread(*v, m_.text_of(e));
          });
        } else if (handed != caller_->sequences.end()) {
          // `def _launch(grid, args): k[grid](*args, ...)`: the tuple the launcher's caller hands it.
          spread(handed->second, m_.text_of(inner));
        } else if (auto v = counted(list, values) ? values.eval(list) : std::nullopt; v && v->is_array()) {
          spread(*v, m_.text_of(inner));
        } else {
          unknown_length();
        }
      } else if (is_type(a, "dictionary_splat")) {
        TSNode inner = ts_node_named_child(a, 0);
        TSNode dict = is_type(inner, "identifier") ? values.assigned(m_.text_of(inner)) : inner;
        if (is_type(dict, "dictionary")) {
          for_each_named_child(dict, [&](TSNode pair) {
            TSNode key = field(pair, "key");
            if (!is_type(pair, "pair") || !is_type(key, "string")) return;
            auto k = values.eval(key);
            if (k && k->is_string()) keyword_arg(k->get<std::string>(), field(pair, "value"));
          });
        } else if (is_type(dict, "call") && m_.text_of(field(dict, "function")) == "dict") {
          for_each_named_child(field(dict, "arguments"), [&](TSNode kw) {
            if (is_type(kw, "keyword_argument")) keyword_arg(m_.text_of(field(kw, "name")), field(kw, "value"));
          });
        } else {
          site.complete = false;
          keywords_known = false;
        }
      } else {
        add_argument(a, "", positions_known ? position++ : -1, values, site);
      }
    });
    // `k[grid](a, *x.stride(), n, BLOCK)`: the positionals after the last spread end the
    // positional list, so linking can count them back from the kernel's last positional parameter.
    // A `**kw` not expanded may name parameters, which leaves that end unknown.
    if (after_splat == std::string::npos || !keywords_known) return;
    int from_end = 0;
    for (size_t i = site.args.size(); i-- > after_splat;)
      if (site.args[i].keyword.empty()) site.args[i].from_end = ++from_end;
  }

  void evaluate_grid(TSNode grid, const LauncherValues& values, LaunchSite& site) {
    if (is_type(grid, "identifier")) {
      TSNode to = values.assigned(m_.text_of(grid));
      if (!ts_node_is_null(to)) grid = to;
    }
    site.grid_text = m_.text_of(grid);
    json meta = json::object();  // constexprs given at the launch, for `lambda META: ...`
    for (const auto& a : site.args)
      if (!a.keyword.empty() && !a.value.is_null()) meta[a.keyword] = a.value;
    std::set<std::string> missing;
    auto v = values.eval_lambda(grid, meta, &missing);
    json g = nullptr;
    if (v && v->is_number_integer()) g = json::array({*v});
    else if (v && v->is_array() && !v->empty() && v->size() <= 3) g = *v;
    // Integers only (a tensor's `(out_len,)`, with out_len a sum of lengths, is no grid known here).
    if (g.is_array() && !std::all_of(g.begin(), g.end(), [](const json& x) { return x.is_number_integer(); })) g = nullptr;
    if (g.is_array()) {
      while (g.size() < 3) g.push_back(1);
      site.grid = g;
    } else {
      site.grid_env = values.env_of(grid);
    }
  }

  // The launcher's flag parameters as the branches around the launch take them: `if use_int4 or
  // use_int8: gptq_kernel[grid](...)` launches only with one of them on, whatever their defaults.
  std::map<std::string, json> path_flags(TSNode call, TSNode function) {
    std::map<std::string, json> out;
    if (ts_node_is_null(function)) return out;
    std::set<std::string> params;
    for (const ParameterNodes& p : tensor_facts_.nodes.parameters(m_, function)) {
      std::string d = ts_node_is_null(p.default_value) ? "" : m_.text_of(p.default_value);
      std::string a = ts_node_is_null(p.annotation) ? "" : m_.text_of(p.annotation);
      if (d == "True" || d == "False" || a == "bool") params.insert(p.name);
    }
    // `(a or b) and x is not None`: both sides of a true `and`, of a false `or`; the first side
    // of a true `or`. Other tests (comparisons, calls) say nothing of the flags.
    std::function<void(TSNode, bool, int)> take = [&](TSNode cond, bool value, int depth) {
      if (depth > 8) return;
      while (is_type(cond, "parenthesized_expression")) cond = ts_node_named_child(cond, 0);
      if (is_type(cond, "not_operator")) {
        take(field(cond, "argument"), !value, depth + 1);
        return;
      }
      if (is_type(cond, "identifier") && params.count(m_.text_of(cond))) {
        out.emplace(m_.text_of(cond), value);
        return;
      }
      if (!is_type(cond, "boolean_operator")) return;
      std::string op = m_.text_of(field(cond, "operator"));
      if ((op == "and") == value) {
        take(field(cond, "left"), value, depth + 1);
        take(field(cond, "right"), value, depth + 1);
      } else if (op == "or" && value) {
        take(field(cond, "left"), true, depth + 1);
      }
    };
    // Up from the call through the walk's ancestors: the nodes ts_node_parent would name, without
    // its search down from the root at each step (57 M instructions on FlagGems).
    TSNode body = field(function, "body");
    size_t at = ancestors_.size() - 1;  // the call's
    for (TSNode n = call; !ts_node_is_null(n) && !ts_node_eq(n, body); n = ancestors_[--at]) {
      if (at == 0) break;  // the root: no parent
      TSNode up = ancestors_[at - 1];
      if ((is_type(up, "if_statement") || is_type(up, "elif_clause")) && ts_node_eq(field(up, "consequence"), n)) {
        take(field(up, "condition"), true, 0);
      } else if (is_type(n, "else_clause") && is_type(up, "if_statement")) {
        take(field(up, "condition"), false, 0);
      }
    }
    return out;
  }

  // What the launcher's first caller in this file hands it (`wrapper(a, b, c, True)` in a test):
  // its modes (bools, strings, None) and its tensors, whose element types the launcher's take.
  // Sizes stay nominal: a test's sizes are one case of many. Methods and nested launchers, which
  // are called through objects and closures, have none.
  struct CallerValues {
    std::map<std::string, json> modes, tensors;
    std::map<std::string, json> sequences;  // tuples of tensors and numbers, for `*args`
  };
  const CallerValues& caller_values(TSNode function) {
    static const CallerValues kNone;
    if (ts_node_is_null(function)) return kNone;  // a launch at module level
    auto [slot, fresh] = callers_.try_emplace(ts_node_start_byte(function));
    if (!fresh) return slot->second;
    // The first call decides.
    for (TSNode call : calls_of(function, 1)) {
      LauncherValues values(m_, enclosing_function(call), ts_node_start_byte(call), callees_, nullptr, 0,
                            LauncherValues::kNominalDim, &tensor_facts_);
      for (const auto& [param, v] : values.call_arguments(m_, function, call)) {
        if (LauncherValues::is_tensor(v) && v["dtype"].is_string()) slot->second.tensors[param] = v;
        else if (v.is_boolean() || v.is_string() || v.is_null()) slot->second.modes[param] = v;
        else if (v.is_array() && !v.empty() &&
                 std::all_of(v.begin(), v.end(), [](const json& x) { return LauncherValues::is_tensor(x) || x.is_number(); }))
          slot->second.sequences[param] = v;
      }
    }
    return slot->second;
  }

  // The calls of a module-level `function` in this file, in order, at most `limit`; none for
  // methods and nested functions, which are called through objects and closures.
  std::vector<TSNode> calls_of(TSNode function, size_t limit = SIZE_MAX) const {
    std::vector<TSNode> out;
    TSNode definition = function;
    if (is_type(ts_node_parent(function), "decorated_definition")) definition = ts_node_parent(function);
    if (!is_type(ts_node_parent(definition), "module")) return out;
    std::string name = m_.text_of(field(function, "name"));
    const std::string& text = m_.tree().text();
    for (size_t at = text.find(name); at != std::string::npos && out.size() < limit; at = text.find(name, at + name.size())) {
      uint32_t begin = static_cast<uint32_t>(at), end = static_cast<uint32_t>(at + name.size());
      if (begin >= ts_node_start_byte(definition) && end <= ts_node_end_byte(definition))
        continue;  // the launcher's own definition or a recursive call
      TSNode id = ts_node_descendant_for_byte_range(m_.tree().root(), begin, end);
      // The name itself, not a longer one holding it (`fused_add` for `add`) nor a string.
      if (!is_type(id, "identifier") || ts_node_start_byte(id) != begin || ts_node_end_byte(id) != end) continue;
      TSNode call = ts_node_parent(id);
      if (is_type(call, "call") && ts_node_eq(field(call, "function"), id)) out.push_back(call);
    }
    return out;
  }

  // The right sides of `name = ...` in `function`'s own body (not in nested definitions) before
  // byte `until`, in order.
  std::vector<TSNode> bindings_before(TSNode function, const std::string& name, uint32_t until) const {
    std::vector<TSNode> out;
    std::vector<TSNode> stack{field(function, "body")};
    while (!stack.empty() && out.size() < 16) {
      TSNode n = stack.back();
      stack.pop_back();
      if (ts_node_start_byte(n) >= until) continue;
      if (is_type(n, "function_definition") || is_type(n, "class_definition") || is_type(n, "lambda")) continue;
      if (is_type(n, "assignment") && is_type(field(n, "left"), "identifier") && m_.text_of(field(n, "left")) == name) {
        if (!ts_node_is_null(field(n, "right"))) out.push_back(field(n, "right"));
        continue;
      }
      uint32_t count = ts_node_named_child_count(n);
      for (uint32_t i = count; i-- > 0;) stack.push_back(ts_node_named_child(n, i));
    }
    return out;
  }

  // The function a call is made in; the module's root for its own code (a `__main__` block),
  // which is evaluated over the module.
  TSNode enclosing_function(TSNode call) const {
    for (TSNode n = ts_node_parent(call); !ts_node_is_null(n); n = ts_node_parent(n))
      if (is_type(n, "function_definition")) return n;
    return m_.tree().root();
  }

  // What this file's calls of `function` hand its parameter `param` (at `position`), a caller's
  // local name followed to what it holds (`k = _fwd if causal else _bwd; run(k, x)`). The
  // finder keeps only what it can place (placed()).
  std::vector<TSNode> kernels_handed(TSNode function, const std::string& param, int position) {
    std::vector<TSNode> out;
    for (TSNode call : calls_of(function)) {
      TSNode arg{};
      int index = 0;
      bool positional = true;
      for_each_named_child(field(call, "arguments"), [&](TSNode a) {
        if (is_type(a, "keyword_argument")) {
          if (m_.text_of(field(a, "name")) == param) arg = field(a, "value");
        } else if (is_type(a, "list_splat") || is_type(a, "dictionary_splat")) {
          positional = false;
        } else if (!is_type(a, "comment")) {
          if (positional && index == position) arg = a;
          ++index;
        }
      });
      if (is_type(arg, "identifier") && !placed(arg)) {
        TSNode caller = enclosing_function(call);
        if (ts_node_eq(caller, m_.tree().root())) continue;
        LauncherValues values(m_, caller, ts_node_start_byte(call), callees_, nullptr, 0, LauncherValues::kNominalDim,
                              &tensor_facts_);
        arg = values.assigned(m_.text_of(arg));
      }
      if (!ts_node_is_null(arg)) out.push_back(arg);
    }
    return out;
  }

  // Whether the file places the launched expression: an attribute, or a name it defines or
  // imports. Any other name (`kernel = impl`, a caller's local) would be matched by name with
  // every kernel of the repository so called.
  bool placed(TSNode e) const {
    if (!is_type(e, "identifier")) return true;
    std::string name = m_.text_of(e);
    return m_.import_of(name) || defined_here(m_, name);
  }

  // This launch's argument nodes, in the order of its arguments, and its ratios with the skew
  // that moved them (mark_sizing_ratios).
  struct MovedRatio {
    size_t index;
    int skew;
    json value, moved;
  };
  std::vector<TSNode> argument_nodes_;
  std::vector<MovedRatio> moved_ratios_;
  std::vector<TSNode> ancestors_;  // the walk's path from the root to the node it is at, that node included
  std::map<std::string, json> path_flags_;        // this launch's (see path_flags)
  std::map<uint32_t, CallerValues> callers_;      // by launcher (start byte)
  const CallerValues* caller_ = nullptr;          // this launch's launcher's
  const LauncherValues* values_ = nullptr;        // this launch's evaluation
  int64_t dim_ = LauncherValues::kNominalDim;     // with this stand-in size
  std::unique_ptr<LauncherValues> alternate_;     // and the alternate one, once needed
  std::array<std::unique_ptr<LauncherValues>, 2> skewed_;
  std::pair<TSNode, uint32_t> skew_at_{};  // the launcher and the launch's byte, for skewed()
  const PythonModule& m_;
  const ModuleIndex* index_;
  LauncherValues::CalleeLookup callees_;
  LaunchMarks marks_;
  LauncherValues::TensorFactsCache tensor_facts_;  // per body evaluated: this module's launchers, the helpers they call
  std::map<std::pair<const void*, const void*>, std::vector<FloorDivision>> floor_divisions_;  // by kernel definition
  std::map<uint32_t, std::string> qualname_;
};

}  // namespace

bool may_hold_launches(const std::string& text) {
  return text.find("](") != std::string::npos || text.find(".run(") != std::string::npos;
}

std::string triton_dtype_value(const std::string& t) {
  static const std::map<std::string, std::string> kNames = {
      {"fp16", "float16"}, {"bf16", "bfloat16"}, {"fp32", "float32"}, {"fp64", "float64"}, {"i8", "int8"},
      {"u8", "uint8"},     {"i16", "int16"},     {"i32", "int32"},     {"i64", "int64"},   {"i1", "int1"},
      {"fp8e4nv", "float8e4nv"}, {"fp8e5", "float8e5"}, {"u16", "uint16"}, {"u32", "uint32"}, {"u64", "uint64"}};
  auto it = kNames.find(t);
  return it == kNames.end() ? "" : "tl." + it->second;
}

std::vector<LaunchSite> find_launches(const PythonModule& m, const ModuleIndex* index, const ModuleLoader& module_at) {
  std::vector<LaunchSite> out;
  Finder(m, index, module_at).walk(m.tree().root(), TSNode{}, out, 0);
  return out;
}

}  // namespace mine
