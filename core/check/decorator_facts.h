#pragma once
// Fact source 3 of the signature resolver (signature_inference.h): what a kernel's
// @triton.autotune configs and @triton.heuristics say, evaluated without running code.
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/check/constant_eval.h"
#include "core/check/name_text.h"
#include "core/check/pointer_usage.h"
#include "core/python/function_parameters.h"
#include "core/python/module_model.h"

namespace mine::check {

constexpr int64_t kNominalInt = 1024;  // stands in for integer arguments when evaluating heuristics

// `return <expr>` of a module function with one return, for configs built by a helper.
TSNode single_return(const PythonModule& m, const std::string& function);

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


}  // namespace mine::check
