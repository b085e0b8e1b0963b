#include "core/check/descriptor_hooks.h"

#include <functional>

#include "core/check/body_usage.h"
#include "core/check/constant_eval.h"

namespace mine::check {
namespace {

// The module-level functions that some call hands as `pre_hook=NAME`.
std::vector<const FunctionSite*> pre_hooks(const PythonModule& m) {
  std::set<std::string> names;
  if (m.tree().text_of(m.tree().root()).find("pre_hook") == std::string_view::npos) return {};
  for_each_node(m.tree().root(), [&](TSNode n) {
    if (!is_type(n, "keyword_argument") || m.text_of(field(n, "name")) != "pre_hook") return;
    TSNode value = field(n, "value");
    if (is_type(value, "identifier")) names.insert(m.text_of(value));
  });
  std::vector<const FunctionSite*> out;
  for (const auto& f : m.functions())
    if (!f.in_class && !f.in_function && names.count(f.name)) out.push_back(&f);
  return out;
}

// One hook's blocks: `P["name"].block_shape = [...]` statements, P its first parameter.
void read_hook(const PythonModule& m, const FunctionSite& hook, const Env& known,
               std::map<std::string, std::vector<int64_t>>& out) {
  TSNode params = field(hook.definition, "parameters");
  TSNode first = ts_node_named_child_count(params) ? ts_node_named_child(params, 0) : TSNode{};
  if (ts_node_is_null(first) || !is_type(first, "identifier")) return;
  const std::string nargs = m.text_of(first);
  // The hook's own locals (`BLOCK_M = nargs["BLOCK_M"]`), by their first binding.
  std::map<std::string, TSNode> locals;
  for_each_named_child(field(hook.definition, "body"), [&](TSNode st) {
    TSNode a = is_type(st, "expression_statement") ? ts_node_named_child(st, 0) : TSNode{};
    if (is_type(a, "assignment") && is_type(field(a, "left"), "identifier"))
      locals.emplace(m.text_of(field(a, "left")), field(a, "right"));
  });
  std::set<std::string> evaluating;
  std::function<std::optional<nlohmann::json>(const std::string&)> lookup;
  ConstantEvaluator eval(m, [&](const std::string& name) -> std::optional<nlohmann::json> { return lookup(name); });
  lookup = [&](const std::string& name) -> std::optional<nlohmann::json> {
    if (name.size() > nargs.size() + 2 && name.compare(0, nargs.size() + 1, nargs + "[") == 0 && name.back() == ']') {
      auto it = known.find(name.substr(nargs.size() + 1, name.size() - nargs.size() - 2));
      if (it != known.end()) return it->second;
      return std::nullopt;
    }
    auto local = locals.find(name);
    if (local == locals.end() || !evaluating.insert(name).second) return std::nullopt;
    auto v = eval.eval(local->second);
    evaluating.erase(name);
    return v;
  };
  std::function<void(TSNode)> walk = [&](TSNode block) {
    for_each_named_child(block, [&](TSNode st) {
      if (is_type(st, "if_statement")) {
        // `if EPILOGUE_SUBTILE:` decides where known; an unknown condition (`isinstance(...)`)
        // reads the branch that sets the block.
        auto c = eval.eval(field(st, "condition"));
        if (!c || truthy(*c)) walk(field(st, "consequence"));
        if (c && !truthy(*c))
          for_each_named_child(st, [&](TSNode alt) {
            if (is_type(alt, "else_clause")) walk(field(alt, "body"));
          });
        return;
      }
      TSNode a = is_type(st, "expression_statement") ? ts_node_named_child(st, 0) : TSNode{};
      if (!is_type(a, "assignment")) return;
      TSNode left = field(a, "left");
      if (!is_type(left, "attribute") || m.text_of(field(left, "attribute")) != "block_shape") return;
      TSNode target = field(left, "object");
      if (!is_type(target, "subscript") || m.text_of(field(target, "value")) != nargs) return;
      TSNode key = field(target, "subscript");
      if (!is_type(key, "string")) return;
      auto name = eval.eval(key);
      auto block = eval.eval(field(a, "right"));
      if (!name || !name->is_string() || !block || !block->is_array() || block->empty()) return;
      std::vector<int64_t> dims;
      for (const auto& d : *block) {
        if (!d.is_number_integer() || d.get<int64_t>() < 1) return;
        dims.push_back(d.get<int64_t>());
      }
      out.emplace(name->get<std::string>(), std::move(dims));
    });
  };
  walk(field(hook.definition, "body"));
}

}  // namespace

std::map<std::string, std::vector<int64_t>> hook_descriptor_blocks(const PythonModule& m, const Env& known) {
  std::map<std::string, std::vector<int64_t>> out;
  for (const FunctionSite* hook : pre_hooks(m)) read_hook(m, *hook, known, out);
  return out;
}

}  // namespace mine::check
