#pragma once
#include <functional>
#include <map>
#include <memory>
#include <vector>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "core/launch/node_memo.h"
#include "core/python/function_parameters.h"
#include "core/python/module_model.h"

namespace mine {

// Evaluates expressions of a kernel's launcher (the Python function around `k[grid](...)`) with
// nominal inputs, without running anything: tensors the launcher receives get a shape of the rank
// its code implies (`M, N = x.shape`, `x.stride(1)`) with every dimension kNominalDim, and what it
// computes from them (`x.stride(0)`, `triton.cdiv(M, BLOCK)`, `torch.empty((M, N), dtype=...)`,
// `triton.next_power_of_2(N)`) follows, so sizes, strides and buffers agree with each other.
//
// Values are JSON: numbers, bools, strings, null (None), arrays (tuples, shapes), and objects for
// tensors {"$tensor": base, "shape": [..] | null, "dtype": "fp16" | null} and torch dtypes
// {"$dtype": "fp16" | null}. nullopt means the code does not say.
class LauncherValues {
 public:
  // What a launcher's body says of its tensors: ranks its code implies, element types its asserts
  // state. The same for every launch in one function and for both evaluations of a launch
  // (nominal and alternate sizes), so callers may keep it per function body (by node id).
  struct TensorFacts {
    std::map<std::string, int> rank;
    std::map<std::string, std::string> dtype;
    int widest_rank = 0;
    std::set<std::string> counted_only;  // names the launcher uses only as counts (count_uses)
    std::set<std::string> exact_rank;    // names whose rank the code states, not bounds
  };
  // Counts an evaluation and the helpers it calls keep together.
  struct Tally {
    int sizes_read = 0;      // param_dim() calls: values that came from the stand-in size
    int failed_asserts = 0;  // `assert` statements on the path that the values make false
  };
  // What a helper evaluated for a launcher returned (helper()), and what it added to the tally.
  struct HelperReturn {
    std::map<std::string, nlohmann::json> bound;  // the values its parameters were given
    std::optional<nlohmann::json> returned;
    Tally added;
  };
  // TensorFacts by body (node id), and what helpers returned, by definition (module, node id),
  // call depth, stand-in size and the text of the values bound to their parameters: a helper
  // evaluation depends on nothing else, so a launcher evaluated for several launches (and with
  // several sizes) runs each helper once for the same values.
  // `nodes`: what the evaluations sharing the cache read of the trees (see NodeMemo).
  struct TensorFactsCache : std::map<const void*, TensorFacts> {
    std::map<std::tuple<const void*, const void*, int, int64_t, std::string>, HelperReturn> helper_returns;
    // What a class's `__init__` assigns to self, or an autograd Function's `forward` keeps on
    // ctx, and the stand-in sizes it read: by the method's node, stand-in size and skew.
    std::map<std::tuple<const void*, int64_t, int>, std::pair<nlohmann::json, int>> method_attributes;
    NodeMemo nodes;
  };

  // Open tensor dimensions and int inputs. Measured on the H100 against 64 and 128 (bench/results/
  // check_launch_sites.md): larger sizes made kernels of high-rank tensors (state-space scans)
  // index past what the harness allocates and chose tiles over the shared memory; 32 still gives
  // tl.dot the 16 it needs. Leading dimensions of high-rank tensors become 2 past 2^25 elements.
  static constexpr int64_t kNominalDim = 32;
  // The same evaluation with this size instead tells a value that follows from the nominal sizes
  // (a shape, a stride) from one the code fixes (a literal, a constant).
  static constexpr int64_t kAlternateDim = 48;
  // Scaling every size alike leaves their ratios (`group = K // scale.shape[1]`, `G = HQ // H`)
  // unchanged, so a ratio looks fixed. With `skew` +1 or -1 the sized parameters get different
  // sizes, growing or shrinking in parameter order; a value that moves then is a ratio of sizes
  // the stand-ins cannot tell.
  static constexpr int kSkewUp = 1, kSkewDown = -1;

  // A function of the repository a launcher calls (`BLOCK, warps = calculate_settings(n)`), so
  // that what it returns for the launcher's values is known too.
  struct Callee {
    const PythonModule* module = nullptr;
    TSNode definition{};
    // `Config.BLOCK` of a class whose body assigns `BLOCK = 64`: that value's expression (of
    // `module`), with no definition. A class's attributes are what its launchers read unless
    // something sets them; the body's are the ones every run starts from.
    TSNode class_value{};
  };
  using CalleeLookup = std::function<Callee(const PythonModule& from, TSNode function_expression)>;

  // `function`: the launcher's function_definition, or a null node at module level. Statements
  // of its body before byte `until` are evaluated in order. `bound` gives values to parameters
  // (a helper evaluated for its caller); the others get nominal values from their annotations.
  // `through`: a byte the path to `until` passes (`if a.dtype in I8: kernel = imatmul` for the
  // launch of that kernel): the branches holding it are taken, their tests narrowed, as the
  // branch holding the launch is.
  // `caller_tensors`: tensors a caller of the launcher hands it (by parameter), whose element
  // types (and ranks, where the launcher's body states none) the launcher's own tensors take.
  // `facts`, when given, holds the TensorFacts of bodies seen before, by node id: of `m` and of
  // the helpers it calls (bodies of other modules, alive as long as the cache is used), which
  // it fills in turn.
  LauncherValues(const PythonModule& m, TSNode function, uint32_t until, CalleeLookup callees = {},
                 const std::map<std::string, nlohmann::json>* bound = nullptr, int call_depth = 0,
                 int64_t dim = kNominalDim, TensorFactsCache* facts = nullptr,
                 std::shared_ptr<int> fork_budget = nullptr, int skew = 0, std::shared_ptr<Tally> tally = nullptr,
                 const std::map<std::string, nlohmann::json>* caller_tensors = nullptr, uint32_t through = UINT32_MAX);
  // An environment given directly (a stored launch's grid_env), for evaluating a grid later.
  LauncherValues(const PythonModule& m, const nlohmann::json& env);

  std::optional<nlohmann::json> eval(TSNode e, int depth = 0) const;
  // The shape `x[...]` (the subscript node) gives a tensor of `shape`; null where it cannot tell.
  nlohmann::json indexed_shape(const nlohmann::json& shape, TSNode subscript, int depth) const;
  // Whether any value so far (of the construction, of every eval since, of the helpers they
  // called) came from the stand-in size `dim` (skewed or not). Until one does, the evaluation
  // with another size or skew runs alike and gives the very same values: launch sites skip it.
  bool read_sizes() const { return tally_->sizes_read > 0; }
  // How many `assert`s on the path to `until` (the launcher's and its helpers') the values make
  // false: `assert L % 256 == 0` with stand-in sizes below what the repository launches with.
  int failed_asserts() const { return tally_->failed_asserts; }
  // `lambda META: (...)`: the body evaluated with META[key] from `meta`; names it reads that are
  // not in the environment are reported in `missing_meta`.
  // What a helper evaluated as a function returned, if it reached a return the values decide.
  const std::optional<nlohmann::json>& returned() const { return returned_; }

  std::optional<nlohmann::json> eval_lambda(TSNode lambda, const nlohmann::json& meta, std::set<std::string>* missing_meta) const;

  // The expression last assigned to a local name before `until` (to follow `grid = ...`,
  // `kernel = _fwd_kernel`, `args = (...)`), or a null node.
  TSNode assigned(const std::string& name) const;
  // The values `call` hands the parameters of `definition` (a function_definition of `callee`):
  // keywords by name, positionals in order until a splat or a `*args`, `/` or `*` in the
  // parameter list (comments in either list are no entries); arguments this evaluation cannot
  // tell are left out.
  std::map<std::string, nlohmann::json> call_arguments(const PythonModule& callee, TSNode definition, TSNode call,
                                                       int depth = 0) const;
  // Values of the identifiers `e` reads (lambda parameters excluded), for storing with a grid.
  nlohmann::json env_of(TSNode e) const;

  static bool is_tensor(const nlohmann::json& v) { return v.is_object() && v.contains("$tensor"); }
  static bool is_dtype(const nlohmann::json& v) { return v.is_object() && v.contains("$dtype"); }
  // Nominal shape of rank `rank`: every dimension `dim`, leading ones 2 past 2^25 elements.
  static nlohmann::json nominal_shape(int rank, int64_t dim = kNominalDim);

 private:
  void ranks(TSNode body);  // and counted_only_
  bool read_unguarded(TSNode body, const std::string& name) const;
  // counted_only_: a node of the walk in ranks(), its parent and grandparent (null for the body),
  // and whether it lies below a nested class (where only the counts are looked at).
  struct CountVisit {
    TSNode node, parent, grandparent;
    bool in_class;
  };
  struct CountUses {
    std::set<std::string> counted, refused;
  };
  void count_uses(const CountVisit& v, TSNode body, CountUses& uses) const;
  bool refused_unless_false(TSNode condition) const;
  void required_dtype(TSNode comparison, bool truth);
  struct Frame {
    TSNode block;
    uint32_t next;  // the statement after the one being run
    int depth;
  };
  void run(TSNode block, uint32_t until, int depth, uint32_t start = 0);
  // A helper's return value when its values do not decide an `if`: each branch, then the rest of
  // the enclosing blocks, must reach a return of the same value.
  std::optional<nlohmann::json> agreed_return(const std::vector<std::pair<TSNode, TSNode>>& branches,
                                              uint32_t until) const;
  void assign(TSNode left, const std::optional<nlohmann::json>& value, TSNode right);
  // `Q = convert_to_tensor(q)` (or `Q, mask = pad(q)`) then `B, S, H = Q.shape`: a call whose
  // result the code does not tell, read as a tensor of some rank, is laid out as a parameter read
  // so would be. False, and nothing bound, otherwise.
  bool untold_call_tensor(const std::string& name, TSNode right);
  // The names an assignment target (`a`, `(a, b)`, `a[i]`) binds are no longer known.
  void forget(TSNode target);
  // What `condition` being `truth` says of the names it tests, on the path to a launch:
  // `isinstance(y, torch.Tensor)` false makes y a number, `bias is None` false a tensor.
  void narrow(TSNode condition, bool truth, int depth = 0);
  // The class a method is defined in; null for a module function.
  TSNode owning_class(TSNode function) const;
  nlohmann::json parameter_tensor(const std::string& name, const nlohmann::json& dtype);
  // The method `name` defined in class `cls` (the last definition), else a null node.
  TSNode class_method(TSNode cls, std::string_view name) const;
  // What `holder` holds once the class's method `name` has run on nominal inputs: the attributes
  // `__init__` gives self (`self.eps = eps`), or those an autograd Function's `forward` leaves on
  // ctx for `backward` (`ctx.BLOCK = BLOCK`, and as `saved_tensors` what it handed
  // `ctx.save_for_backward`). Empty from `name` itself and inside helpers. `count_sizes`: the
  // stand-in sizes the method read count as read by this evaluation.
  nlohmann::json attributes_after(TSNode cls, TSNode method, std::string_view name, const std::string& holder,
                                  bool count_sizes);
  std::optional<nlohmann::json> call(TSNode n, int depth) const;
  std::optional<nlohmann::json> method(const nlohmann::json& self, const std::string& name, TSNode args, int depth,
                                     bool self_first = false) const;  // self_first: `torch.reshape(self, ...)`
  std::optional<nlohmann::json> name(const std::string& id) const;

  std::optional<nlohmann::json> helper(TSNode call, int depth) const;

  // Reads of the tree, through facts_->nodes when there is a cache, else from tree-sitter: the
  // same answers as ts::field, ts_node_named_child(_count), for_each_named_child,
  // parameter_nodes and PythonModule::qualified_name.
  template <size_t N>
  TSNode child(TSNode n, const char (&field_name)[N]) const {
    return facts_ ? facts_->nodes.field(n, field_name) : field(n, field_name);
  }
  TSNode named_child(TSNode n, uint32_t i) const;
  uint32_t named_count(TSNode n) const;
  template <typename F>
  void each_named_child(TSNode n, F&& f) const {
    if (!facts_) return for_each_named_child(n, std::forward<F>(f));
    for (TSNode c : facts_->nodes.named_children(n))
      if (!ts::is_line_continuation(c)) f(c);
  }
  std::vector<ParameterNodes> parameters(TSNode definition) const;
  std::optional<std::string> qualified(TSNode expression) const;

  const PythonModule& m_;
  CalleeLookup callees_;
  int call_depth_ = 0;
  int64_t dim_ = kNominalDim;
  int skew_ = 0;
  uint32_t through_ = UINT32_MAX;  // see the constructor
  std::map<std::string, nlohmann::json> parametrized_values(TSNode decorated);
  int sized_params_ = 0;  // parameters given a size so far (the skew's order)
  int64_t param_dim();
  std::optional<nlohmann::json> returned_;  // a helper's: the value of the return it reached
  bool stopped_ = false;
  std::vector<Frame> frames_;
  std::shared_ptr<int> fork_budget_;  // shared by a helper's forked paths
  std::shared_ptr<Tally> tally_ = std::make_shared<Tally>();  // shared with helpers
  TensorFactsCache* facts_ = nullptr;  // handed on to helpers: a helper called by many launches walks its body once
  std::map<std::string, nlohmann::json> env_;
  // The parameters whose defaults each name's value was computed from (`manual = block_n is not
  // None` reads block_n's). A launch whose path the defaults make impossible (`if use_autotune:
  // ... else: k[grid](BLOCK_N=block_n)` with every block size defaulting to None) is reached only
  // where a caller passed something else: those parameters' defaults say nothing there.
  std::map<std::string, std::set<std::string>> from_defaults_;
  std::set<std::string> contradicted_;  // defaults the path to the launch contradicts
  std::set<std::string> undefaulted_;   // defaults left out (the evaluation run again without them)
  std::set<std::string> defaults_read(TSNode e) const;
  template <typename F>
  void each_default_read(TSNode e, F&& f) const;
  void note_contradiction(TSNode condition, bool truth);
  std::map<std::string, TSNode> assigned_;
  std::map<std::string, int> rank_;   // tensors' ranks as the launcher's code implies them
  std::map<std::string, nlohmann::json> shape_;  // whole shapes it states (`assert_size_stride(x, (4, 64), ...)`)
  int widest_rank_ = 0;               // the largest rank the code states
  std::set<std::string> exact_rank_;  // tensors whose rank the code states (`M, N = x.shape`)
  std::set<std::string> counted_only_;  // names the launcher uses only as counts (count_uses)
  // Parameters annotated as no tensor (`config: dict | None`, `mode: Optional[str]`): a path where
  // one is not None holds no tensor there either.
  std::set<std::string> annotated_untensored_;
  std::map<std::string, std::string> dtype_;  // element types its asserts state (`x.dtype == torch.int8`)
  // All the types an `x.dtype in (torch.float16, torch.bfloat16)` allows (dtype_ holds the first).
  std::map<std::string, std::set<std::string>> allowed_dtypes_;
  std::set<std::string> lambda_params_;
  mutable const nlohmann::json* meta_ = nullptr;
  mutable std::set<std::string>* missing_meta_ = nullptr;
  mutable std::string meta_name_;
};

// "torch.float16" / "float16" / "half" -> "fp16"; empty when not a torch dtype name.
std::string torch_dtype_name(const std::string& qualified);

}  // namespace mine
