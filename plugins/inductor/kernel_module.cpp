#include "plugins/inductor/kernel_module.h"

#include <array>

#include "core/python/syntax_tree.h"
#include "plugins/inductor/python_literal.h"

namespace mine::inductor {
namespace {

constexpr std::array<std::string_view, 10> kCategories = {
    "pointwise", "reduction",  "persistent_reduction", "cooperative_reduction", "split_scan",
    "template",  "foreach",    "user_autotune",        "fixed_config",          "combo"};

std::string last_component(std::string_view dotted) {
  size_t dot = dotted.rfind('.');
  return std::string(dot == std::string_view::npos ? dotted : dotted.substr(dot + 1));
}

// Decorators are read by their spelling: Inductor writes them the same few ways in every version
// (`@triton.jit`, `@triton_heuristics.pointwise(...)`, `@pointwise(...)` after a from-import).
bool is_jit(std::string_view callee) {
  return callee == "triton.jit" || callee == "jit" || (callee.size() > 4 && callee.substr(callee.size() - 4) == ".jit");
}

struct Decorator {
  TSNode expression{};
  TSNode call{};  // null unless the decorator is a call
  std::string callee;
};

std::vector<Decorator> decorators_of(const SyntaxTree& tree, TSNode decorated) {
  std::vector<Decorator> out;
  for_each_named_child(decorated, [&](TSNode d) {
    if (!is_type(d, "decorator")) return;
    Decorator dec;
    dec.expression = ts_node_named_child(d, 0);
    TSNode callee = dec.expression;
    if (is_type(callee, "call")) {
      dec.call = callee;
      callee = field(callee, "function");
    }
    dec.callee = std::string(tree.text_of(callee));
    out.push_back(dec);
  });
  return out;
}

std::vector<std::string> parameters_of(const SyntaxTree& tree, TSNode definition) {
  std::vector<std::string> out;
  TSNode list = field(definition, "parameters");
  if (ts_node_is_null(list)) return out;
  for_each_named_child(list, [&](TSNode p) {
    std::string_view t = node_type(p);
    if (t == "identifier") {
      out.emplace_back(tree.text_of(p));
    } else if (t == "default_parameter" || t == "typed_default_parameter") {
      out.emplace_back(tree.text_of(field(p, "name")));
    } else if (t == "typed_parameter") {
      out.emplace_back(tree.text_of(ts_node_named_child(p, 0)));
    } else if (t != "comment") {
      out.emplace_back(tree.text_of(p));  // *args, **kwargs, `/`, `*`: kept as written
    }
  });
  return out;
}

void collect_imports(const SyntaxTree& tree, TSNode statement, std::set<std::string>& modules) {
  auto add = [&](TSNode dotted) {
    if (!is_type(dotted, "dotted_name")) return;  // relative imports name no external module
    std::string name(tree.text_of(dotted));
    modules.insert(name.substr(0, name.find('.')));
  };
  if (is_type(statement, "import_statement")) {
    for_each_named_child(statement, [&](TSNode c) {
      add(is_type(c, "aliased_import") ? field(c, "name") : c);
    });
  } else if (is_type(statement, "import_from_statement")) {
    add(field(statement, "module_name"));
  }
}

// Triton's older signatures are keyed by argument index (`{0: '*fp32'}`); the stored signature is
// keyed by parameter name either way so that `mine check` reads one shape.
nlohmann::json signature_by_name(const nlohmann::json& raw, const std::vector<std::string>& params) {
  if (!raw.is_object()) return raw;
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, type] : raw.items()) {
    bool index = !key.empty() && key.find_first_not_of("0123456789") == std::string::npos && key.size() < 6;
    size_t i = index ? std::stoul(key) : 0;
    out[index && i < params.size() ? params[i] : key] = type;
  }
  return out;
}

}  // namespace

bool is_known_category(std::string_view name) {
  for (auto c : kCategories)
    if (c == name) return true;
  return false;
}

KernelModuleReading read_kernel_module(std::string source, const std::string& preferred_name) {
  KernelModuleReading r;
  auto tree = SyntaxTree::parse(std::move(source));
  TSNode root = tree->root();
  TSNode err = first_syntax_error(root);
  if (!ts_node_is_null(err)) {
    r.problems.push_back({first_line(err), "not_python",
                          "kernel source is not valid Python (syntax error at its line " +
                              std::to_string(first_line(err)) + ")"});
    return r;
  }

  struct Candidate {
    TSNode node{}, definition{};
    std::string name;
    std::vector<Decorator> decorators;
    bool heuristics = false;
  };
  std::vector<Candidate> jitted;
  for_each_named_child(root, [&](TSNode s) {
    collect_imports(*tree, s, r.kernel.external_modules);
    if (!is_type(s, "decorated_definition")) return;
    TSNode def = field(s, "definition");
    if (!is_type(def, "function_definition")) return;
    Candidate c{s, def, std::string(tree->text_of(field(def, "name"))), decorators_of(*tree, s), false};
    bool jit = false;
    for (const auto& d : c.decorators) {
      if (is_jit(d.callee)) jit = true;
      else if (!ts_node_is_null(d.call)) c.heuristics = true;
    }
    if (jit) jitted.push_back(std::move(c));
  });
  r.jit_functions = static_cast<int>(jitted.size());
  for (const auto& c : jitted) r.heuristics_functions += c.heuristics ? 1 : 0;
  if (jitted.empty()) {
    r.problems.push_back({0, "no_kernel", "kernel source defines no @triton.jit function"});
    return r;
  }
  const Candidate* chosen = &jitted.back();
  for (const auto& c : jitted)
    if (c.heuristics) chosen = &c;
  for (const auto& c : jitted)
    if (!preferred_name.empty() && c.name == preferred_name) chosen = &c;

  KernelModule& k = r.kernel;
  k.name = chosen->name;
  k.start_line = first_line(chosen->node);
  k.end_line = last_line(chosen->node);
  k.parameters = parameters_of(*tree, chosen->definition);

  const Decorator* heuristics = nullptr;
  for (const auto& d : chosen->decorators)
    if (!is_jit(d.callee) && !ts_node_is_null(d.call) && !heuristics) heuristics = &d;
  if (!heuristics) {
    r.problems.push_back({k.start_line, "unknown_decorator",
                          "kernel " + k.name + " has no Inductor heuristics decorator; category unknown"});
    r.ok = true;
    return r;
  }
  k.decorator = heuristics->callee;
  std::string category = last_component(heuristics->callee);
  if (is_known_category(category)) {
    k.category = category;
  } else {
    r.problems.push_back({first_line(heuristics->expression), "unknown_decorator",
                          "kernel " + k.name + ": unknown Inductor decorator @" + heuristics->callee +
                              "; stored with category unknown"});
  }

  nlohmann::json triton_meta;
  for_each_named_child(field(heuristics->call, "arguments"), [&](TSNode arg) {
    if (!is_type(arg, "keyword_argument")) return;
    std::string_view key = tree->text_of(field(arg, "name"));
    // 2023-era Inductor called it `meta`, later `triton_meta`.
    if (key == "size_hints") k.size_hints = literal_value(*tree, field(arg, "value"));
    else if (key == "triton_meta" || (key == "meta" && triton_meta.is_null())) triton_meta = literal_value(*tree, field(arg, "value"));
  });
  if (!triton_meta.is_object() || !triton_meta.contains("signature")) {
    r.problems.push_back({first_line(heuristics->expression), "bad_meta",
                          "kernel " + k.name + ": no literal triton_meta signature in @" + heuristics->callee});
  } else {
    k.signature = signature_by_name(triton_meta["signature"], k.parameters);
    if (triton_meta.contains("constants")) k.constants = triton_meta["constants"];
  }
  r.ok = true;
  return r;
}

}  // namespace mine::inductor
