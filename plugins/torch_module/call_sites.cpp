#include "plugins/torch_module/call_sites.h"

#include <algorithm>
#include <functional>
#include <vector>

#include "core/python/word_offsets.h"
#include "plugins/torch_module/literal_value.h"
#include "plugins/torch_module/tree_walk.h"

namespace mine::torch_module {
namespace {

using namespace sdk;

// Files of other modules read for one class's call sites: a name as common as `Block` is called
// in many files, most of them someone else's `Block`.
constexpr size_t kOtherFiles = 8;

// The pre-order walk, into the subtrees that span one of `offsets` (ascending) only: a call whose
// callee reads `Name` spans an occurrence of `Name`, and the rest of the file (most of it, for
// each of a file's many module classes) need not be visited to find it.
void walk_spanning(TSNode n, const WordOffsets& offsets, const std::function<void(TSNode)>& visit) {
  if (!offsets.spanned_by(n)) return;
  visit(n);
  for (uint32_t i = 0, c = ts_node_named_child_count(n); i < c; ++i) walk_spanning(ts_node_named_child(n, i), offsets, visit);
}

bool plain_parameter(const nlohmann::json& p) {
  std::string name = p.value("name", "");
  return !name.empty() && name[0] != '*' && name != "/" && name.find('*') == std::string::npos;
}

std::string without_py(const std::string& path) {
  std::string p = path.size() >= 3 && path.compare(path.size() - 3, 3, ".py") == 0 ? path.substr(0, path.size() - 3) : path;
  const std::string init = "/__init__";
  if (p.size() >= init.size() && p.compare(p.size() - init.size(), init.size(), init) == 0) p.resize(p.size() - init.size());
  return p == "__init__" ? "" : p;
}

std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

bool ends_with_path(const std::string& path, const std::string& tail) {
  if (tail.empty()) return false;
  std::string p = "/" + path, t = "/" + tail;
  return p.size() >= t.size() && p.compare(p.size() - t.size(), t.size(), t) == 0;
}

// A name the file binds once, to a class: a class of the file an argument passes as it is.
bool class_of_file(const PythonFile& m, TSNode n) {
  if (!is_type(n, "identifier")) return false;
  std::vector<size_t> bound = m.bindings_of(m.text_of(n));
  return bound.size() == 1 && m.statement(bound[0]).kind == MINE_STATEMENT_CLASS;
}

// The arguments of the calls of `class_name` in `site_file` that `accept` takes, added to `out`
// where a parameter has none yet; classes of the file only where `classes` (the class's own file).
// A call inside `with pytest.raises(...)` or `with self.assertRaises(...)`: a test that expects
// the arguments to be refused.
bool expected_to_raise(const PythonFile& m, TSNode call) {
  for (TSNode p = ts_node_parent(call); !ts_node_is_null(p); p = ts_node_parent(p)) {
    if (is_type(p, "function_definition") || is_type(p, "class_definition")) return false;
    if (!is_type(p, "with_statement")) continue;
    bool raises = false;
    for_each_named_child(p, [&](TSNode c) {
      if (!is_type(c, "with_clause")) return;
      std::string_view t = m.view_of(c);
      raises = raises || t.find("raises") != std::string_view::npos || t.find("Raises") != std::string_view::npos;
    });
    if (raises) return true;
  }
  return false;
}

TSNode scope_of(const PythonFile& m, TSNode n);
TSNode assigned_before(const PythonFile& m, TSNode scope, const std::string& name, TSNode before);

constexpr int kMaxExpressionDepth = 4;  // calls inside calls, names followed to their calls

// A class or function the file defines once (a `def` or `class` at module level).
bool definition_of_file(const PythonFile& m, const std::string& name) {
  std::vector<size_t> bound = m.bindings_of(name);
  if (bound.size() != 1) return false;
  int kind = m.statement(bound[0]).kind;
  return kind == MINE_STATEMENT_CLASS || kind == MINE_STATEMENT_FUNCTION;
}

// The expression `n` builds an argument with (SiteValue::expression), rendered, its calls added
// to `calls`; nullopt when it is anything else (a parameter, an attribute, a call of an import).
std::optional<std::string> expression_of(const PythonFile& m, TSNode n, TSNode scope, int depth,
                                         std::vector<std::string>& calls) {
  if (ts_node_is_null(n) || depth > kMaxExpressionDepth) return std::nullopt;
  if (auto lit = literal_value(m, n)) return lit;
  std::string_view t = node_type(n);
  if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
    return expression_of(m, ts_node_named_child(n, 0), scope, depth, calls);
  if (t == "identifier") {  // `model = Unet(...)` once before, in the call's scope
    TSNode value = assigned_before(m, scope, m.text_of(n), n);
    if (ts_node_is_null(value) || !is_type(value, "call")) return std::nullopt;
    return expression_of(m, value, scope, depth + 1, calls);
  }
  if (t == "subscript") {  // `cfg['A']` of a literal
    auto value = literal_value(m, field(n, "value"));
    auto index = literal_value(m, field(n, "subscript"));
    if (!value || !index) return std::nullopt;
    return "(" + *value + ")[" + *index + "]";
  }
  if (t != "call") return std::nullopt;
  TSNode f = field(n, "function");
  if (!is_type(f, "identifier") || !definition_of_file(m, m.text_of(f))) return std::nullopt;
  std::string out = m.text_of(f) + "(";
  bool first = true, ok = true;
  for_each_named_child(field(n, "arguments"), [&](TSNode a) {
    if (!ok || is_type(a, "comment")) return;
    std::string piece;
    if (is_type(a, "keyword_argument")) {
      auto v = expression_of(m, field(a, "value"), scope, depth + 1, calls);
      if (!v) {
        ok = false;
        return;
      }
      piece = m.text_of(field(a, "name")) + "=" + *v;
    } else if (is_type(a, "list_splat") || is_type(a, "dictionary_splat")) {
      ok = false;
      return;
    } else {
      auto v = expression_of(m, a, scope, depth + 1, calls);
      if (!v) {
        ok = false;
        return;
      }
      piece = *v;
    }
    out += (first ? "" : ", ") + piece;
    first = false;
  });
  if (!ok) return std::nullopt;
  std::string name = m.text_of(f);
  // A function called on nothing reads its inputs from elsewhere (`parse_args()`: the command
  // line): no network the call site spells out.
  if (first && m.statement(m.bindings_of(name)[0]).kind == MINE_STATEMENT_FUNCTION) return std::nullopt;
  if (std::find(calls.begin(), calls.end(), name) == calls.end()) calls.push_back(name);
  return out + ")";
}

// The calls of `class_name` in `site_file` whose callee `accept` takes, in source order: `Net(...)`,
// `models.Net(...)`, and calls of a name the call's scope binds to the class (`head = Net` or
// `head = Net if ... else Other`, then `head(...)`: a test choosing the class by a parameter).
std::vector<TSNode> class_calls(const PythonFile& site_file, const std::string& class_name,
                                const std::function<bool(TSNode)>& accept) {
  std::vector<TSNode> out;
  auto names_class = [&](TSNode v) {
    if (is_type(v, "identifier")) return site_file.view_of(v) == class_name && accept(v);
    if (!is_type(v, "conditional_expression")) return false;
    bool found = false;
    for_each_named_child(v, [&](TSNode c) {
      found = found || (is_type(c, "identifier") && site_file.view_of(c) == class_name && accept(c));
    });
    return found;
  };
  walk_spanning(site_file.root(), WordOffsets(site_file.text(), class_name), [&](TSNode n) {
    if (is_type(n, "assignment") && is_type(field(n, "left"), "identifier") && names_class(field(n, "right"))) {
      std::string alias = site_file.text_of(field(n, "left"));
      walk(scope_of(site_file, n), [&](TSNode c) {
        if (!is_type(c, "call") || ts_node_start_byte(c) < ts_node_end_byte(n)) return;
        TSNode callee = field(c, "function");
        if (is_type(callee, "identifier") && site_file.view_of(callee) == alias) out.push_back(c);
      });
      return;
    }
    if (!is_type(n, "call")) return;
    TSNode f = field(n, "function");
    TSNode name = is_type(f, "attribute") ? field(f, "attribute") : f;
    if (is_type(name, "identifier") && site_file.view_of(name) == class_name && accept(f)) out.push_back(n);
  });
  std::sort(out.begin(), out.end(), [](TSNode a, TSNode b) { return ts_node_start_byte(a) < ts_node_start_byte(b); });
  out.erase(std::unique(out.begin(), out.end(), [](TSNode a, TSNode b) { return ts_node_eq(a, b); }), out.end());
  return out;
}

// With `required_only`, parameters that have a default are left to it.
void collect(const PythonFile& site_file, const std::string& class_name, const nlohmann::json& params,
             bool required_only, bool classes, const std::function<bool(TSNode)>& accept,
             std::map<std::string, SiteValue>& out) {
  // A class replaces no default either: the default is the layer the author runs with, a class a
  // call passes is often a variant that needs more (a sparse kernel's library).
  auto wanted = [&](const std::string& name, const SiteValue& v) {
    for (const auto& p : params)
      if (p.value("name", "") == name)
        return !p.contains("default") || (!required_only && v.module_class.empty() && v.expression.empty());
    return false;
  };
  for (TSNode n : class_calls(site_file, class_name, accept)) {
    if (expected_to_raise(site_file, n)) continue;
    size_t position = 0;
    std::map<std::string, SiteValue> here;
    auto value = [&](TSNode v) -> std::optional<SiteValue> {
      if (auto lit = literal_value(site_file, v)) return SiteValue{*lit, "", "", {}};
      if (classes && class_of_file(site_file, v)) return SiteValue{"", site_file.text_of(v), "", {}};
      if (classes) {  // the file's own network, built as the call site builds it
        std::vector<std::string> calls;
        auto e = expression_of(site_file, v, scope_of(site_file, n), 0, calls);
        if (e && !calls.empty()) return SiteValue{"", "", *e, calls};
      }
      return std::nullopt;
    };
    for_each_named_child(field(n, "arguments"), [&](TSNode a) {
      if (is_type(a, "comment")) return;
      if (is_type(a, "keyword_argument")) {
        if (auto v = value(field(a, "value"))) here[site_file.text_of(field(a, "name"))] = *v;
        return;
      }
      if (is_type(a, "list_splat") || is_type(a, "dictionary_splat")) {
        position = params.size();  // what follows a splat has no known position
        return;
      }
      size_t at = position++;
      if (at < params.size() && plain_parameter(params[at]))
        if (auto v = value(a)) here[params[at]["name"].get<std::string>()] = *v;
    });
    for (const auto& [k, v] : here)
      if (wanted(k, v)) out.emplace(k, v);  // the first site that names a parameter wins
  }
}

// --- forward call sites ---------------------------------------------------------------------------

constexpr int kMaxTensorHops = 8;  // names and method chains followed back to a factory
constexpr long long kMaxSiteDim = 1 << 16;

// The function around `n`, or the module (its root) when none is.
TSNode scope_of(const PythonFile& m, TSNode n) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p))
    if (is_type(p, "function_definition")) return field(p, "body");
  return m.root();
}

// The value of the one assignment `name = value` in `scope` (nested functions and classes left
// out) before `before`; null when there is none, or the name is bound otherwise or twice.
TSNode assigned_before(const PythonFile& m, TSNode scope, const std::string& name, TSNode before) {
  TSNode found{};
  int count = 0;
  // Where `name` occurs in the scope: a subtree spanning none binds it nowhere and is skipped (a
  // call at module level asked this of the whole file for each name it follows: 13% of
  // Liger-Kernel's scan).
  const WordOffsets occurs(m.text(), name, ts_node_start_byte(scope), ts_node_end_byte(scope));
  // The children in order through for_each_named_child (a cursor over wide nodes such as a module's
  // statements); the line continuations it leaves out bind nothing.
  std::function<void(TSNode)> visit = [&](TSNode n) {
    for_each_named_child(n, [&](TSNode x) {
      if (!occurs.spanned_by(x)) return;
      std::string_view t = node_type(x);
      if (t == "function_definition" || t == "class_definition" || t == "decorated_definition" || t == "lambda") return;
      if (t == "assignment" || t == "augmented_assignment" || t == "for_statement") {
        TSNode left = field(x, "left");
        bool binds = false;
        walk(left, [&](TSNode y) { binds = binds || (is_type(y, "identifier") && m.view_of(y) == name); });
        if (binds) {
          ++count;
          if (t == "assignment" && is_type(left, "identifier") && ts_node_start_byte(x) < ts_node_start_byte(before))
            found = field(x, "right");
          else
            count += 2;  // a tuple target, a loop, `+=`: not one plain value
        }
      }
      visit(x);
    });
  };
  visit(scope);
  return count == 1 ? found : TSNode{};
}

std::optional<long long> site_size(const PythonFile& m, TSNode n) {
  auto v = literal_value(m, n);
  if (!v) return std::nullopt;
  if (v->empty() || v->size() > 6 || v->find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  long long i = std::stoll(*v);
  if (i > 0 && i <= kMaxSiteDim) return i;
  return std::nullopt;
}

// The tensor `n` builds: a factory call, or a name, method chain or arithmetic leading to one.
std::optional<SiteTensor> site_tensor(const PythonFile& m, TSNode n, TSNode scope, int hops) {
  if (ts_node_is_null(n) || hops > kMaxTensorHops) return std::nullopt;
  std::string_view t = node_type(n);
  if (t == "parenthesized_expression" && ts_node_named_child_count(n) == 1)
    return site_tensor(m, ts_node_named_child(n, 0), scope, hops);
  if (t == "identifier") return site_tensor(m, assigned_before(m, scope, m.text_of(n), n), scope, hops + 1);
  if (t == "binary_operator") {  // `torch.randn(...) * 0.02`, `mean + std * torch.randn(...)`
    if (auto l = site_tensor(m, field(n, "left"), scope, hops + 1)) return l;
    return site_tensor(m, field(n, "right"), scope, hops + 1);
  }
  if (t != "call") return std::nullopt;
  TSNode f = field(n, "function");
  std::string method = is_type(f, "attribute") ? m.text_of(field(f, "attribute")) : "";
  std::optional<std::string> q = m.qualified_name(f);
  std::string factory = q && q->rfind("torch.", 0) == 0 ? q->substr(6) : "";
  if (factory.empty() && !method.empty() && !q) {
    // A method of a tensor: its shape stays, its dtype may change.
    static const char* kSame[] = {"to", "detach", "clone", "requires_grad_", "cuda", "contiguous", "float", "half",
                                  "bfloat16", "double", "cpu", "long", "int", "bool", nullptr};
    for (const char** k = kSame; *k; ++k) {
      if (method != *k) continue;
      auto inner = site_tensor(m, field(f, "object"), scope, hops + 1);
      if (inner && (method == "long" || method == "int")) inner->dtype = "int64";
      if (inner && method == "bool") inner->dtype = "bool";
      return inner;
    }
    return std::nullopt;
  }
  static const char* kFactories[] = {"randn", "rand", "zeros", "ones", "empty", "full", "randint", nullptr};
  bool known = false;
  for (const char** k = kFactories; *k; ++k) known = known || factory == *k;
  if (!known) return std::nullopt;
  std::vector<TSNode> positional;
  std::string dtype_text;
  for_each_named_child(field(n, "arguments"), [&](TSNode a) {
    if (is_type(a, "comment")) return;
    if (is_type(a, "keyword_argument")) {
      std::string k = m.text_of(field(a, "name"));
      if (k == "dtype") dtype_text = m.text_of(field(a, "value"));
      if (k == "size") positional.insert(positional.begin(), field(a, "value"));
      return;
    }
    positional.push_back(a);
  });
  // The sizes: one tuple or list argument, or each positional argument (randint: the last one,
  // after low and high; full: the first, before the fill value).
  std::vector<TSNode> sizes;
  TSNode shape{};
  if (factory == "randint") shape = positional.empty() ? TSNode{} : positional.back();
  else if (factory == "full") shape = positional.empty() ? TSNode{} : positional.front();
  else if (positional.size() == 1 && (is_type(positional[0], "tuple") || is_type(positional[0], "list"))) shape = positional[0];
  if (!ts_node_is_null(shape)) {
    if (!is_type(shape, "tuple") && !is_type(shape, "list")) return std::nullopt;
    for_each_named_child(shape, [&](TSNode c) {
      if (!is_type(c, "comment")) sizes.push_back(c);
    });
  } else {
    sizes = positional;
  }
  if (sizes.empty() || sizes.size() > 8) return std::nullopt;
  SiteTensor out;
  out.rank = static_cast<int>(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (is_type(sizes[i], "list_splat")) return std::nullopt;  // `*shape`: the rank is unknown
    if (auto v = site_size(m, sizes[i])) out.dims[static_cast<int>(i)] = *v;
  }
  if (factory == "randint") out.dtype = "int64";
  if (dtype_text.find("long") != std::string::npos || dtype_text.find("int") != std::string::npos) out.dtype = "int64";
  if (dtype_text.find("bool") != std::string::npos) out.dtype = "bool";
  return out;
}

// The calls of the instances `class_name`'s calls in `site_file` make (accepted by `accept`),
// their tensors added to `out` by parameter name where none is there yet.
void collect_forward(const PythonFile& site_file, const std::string& class_name, const std::vector<std::string>& params,
                     const std::function<bool(TSNode)>& accept, std::map<std::string, SiteTensor>& out) {
  for (TSNode n : class_calls(site_file, class_name, accept)) {
    TSNode assignment = ts_node_parent(n);
    if (!is_type(assignment, "assignment") || !is_type(field(assignment, "left"), "identifier")) continue;
    std::string instance = site_file.text_of(field(assignment, "left"));
    TSNode scope = scope_of(site_file, n);
    walk(scope, [&](TSNode c) {
      if (!is_type(c, "call") || ts_node_start_byte(c) < ts_node_end_byte(assignment)) return;
      TSNode callee = field(c, "function");
      bool calls = (is_type(callee, "identifier") && site_file.view_of(callee) == instance) ||
                   (is_type(callee, "attribute") && site_file.view_of(field(callee, "attribute")) == "forward" &&
                    is_type(field(callee, "object"), "identifier") && site_file.view_of(field(callee, "object")) == instance);
      if (!calls) return;
      size_t position = 0;
      for_each_named_child(field(c, "arguments"), [&](TSNode a) {
        if (is_type(a, "comment")) return;
        std::string param;
        TSNode value = a;
        if (is_type(a, "keyword_argument")) {
          param = site_file.text_of(field(a, "name"));
          value = field(a, "value");
        } else if (is_type(a, "list_splat") || is_type(a, "dictionary_splat")) {
          position = params.size();
          return;
        } else if (position < params.size()) {
          param = params[position++];
        } else {
          return;
        }
        if (out.count(param)) return;
        if (auto t = site_tensor(site_file, value, scope, 0)) out.emplace(param, *t);
      });
    });
  }
}

}  // namespace

std::map<std::string, SiteTensor> forward_call_tensors(const PythonFile& file, const std::string& class_name,
                                                        const std::vector<std::string>& forward_params) {
  std::map<std::string, SiteTensor> out;
  collect_forward(file, class_name, forward_params,
                  [&](TSNode callee) { return !is_type(callee, "attribute") && !file.qualified_name(callee); }, out);
  std::string definition = file.path();
  for (const PythonFile& other : file.files_calling(class_name, kOtherFiles)) {
    if (!other.tree()) continue;
    std::string importer = other.path();
    collect_forward(other, class_name, forward_params, [&](TSNode callee) {
      auto q = other.qualified_name(callee);
      return q && imported_from(*q, class_name, importer, definition);
    }, out);
  }
  return out;
}

bool imported_from(const std::string& qualified, const std::string& class_name, const std::string& importer,
                   const std::string& definition) {
  if (qualified.size() <= class_name.size() + 1 ||
      qualified.compare(qualified.size() - class_name.size() - 1, std::string::npos, "." + class_name) != 0)
    return false;
  std::string module = qualified.substr(0, qualified.size() - class_name.size() - 1);
  size_t level = module.find_first_not_of('.');
  if (level == std::string::npos) level = module.size();
  std::string dotted = module.substr(level);
  std::string path = dotted;
  std::replace(path.begin(), path.end(), '.', '/');
  std::string defined = without_py(definition);  // "models/resnet", "models" for models/__init__.py
  if (level > 0) {  // relative: from the importer's package, one folder up per further dot
    std::string base = parent_of(importer);
    for (size_t i = 1; i < level; ++i) base = parent_of(base);
    std::string target = path.empty() ? base : base.empty() ? path : base + "/" + path;
    // the module itself, or a package above it that re-exports the class
    return defined == target || (!target.empty() && defined.rfind(target + "/", 0) == 0);
  }
  if (path.empty()) return false;
  // Absolute: the module's file (its path may start below the root: `src/models/resnet.py`), or a
  // package folder holding it (`from models import ResNet` re-exported by models/__init__.py).
  return ends_with_path(defined, path) || ends_with_path(parent_of(definition), path) ||
         ("/" + parent_of(definition) + "/").find("/" + path + "/") != std::string::npos;
}

std::map<std::string, SiteValue> call_site_values(const PythonFile& file, const std::string& class_name,
                                                  const nlohmann::json& params) {
  std::map<std::string, SiteValue> out;
  // Its own file: the name is the class wherever the file does not import another of that name.
  collect(file, class_name, params, false, true, [&](TSNode callee) { return !is_type(callee, "attribute") && !file.qualified_name(callee); },
          out);
  // Other files: only what the class cannot do without. Their calls are often tests of one
  // option each (`flash=True`, `device="meta"`, a `loss_type` it must reject); a default is the
  // author's ordinary choice.
  std::string definition = file.path();
  for (const PythonFile& other : file.files_calling(class_name, kOtherFiles)) {
    if (!other.tree()) continue;
    std::string importer = other.path();
    collect(other, class_name, params, true, false, [&](TSNode callee) {
      auto q = other.qualified_name(callee);
      return q && imported_from(*q, class_name, importer, definition);
    }, out);
  }
  return out;
}

}  // namespace mine::torch_module
