#include "core/check/launch_facts.h"

#include <set>

#include "core/error.h"
#include "core/launch/launcher_values.h"
#include "core/python/module_model.h"

namespace mine::check {

std::optional<size_t> preferred_launch(const std::vector<LaunchSite>& launches) {
  std::optional<size_t> best;
  auto bound = [](const LaunchSite& s) {
    size_t n = 0;
    for (const auto& a : s.args) n += a.param.empty() || a.role == "unknown" ? 0 : 1;
    return n;
  };
  for (size_t i = 0; i < launches.size(); ++i) {
    if (!best) {
      best = i;
      continue;
    }
    const LaunchSite& a = launches[i];
    const LaunchSite& b = launches[*best];
    // A launch made to see it fail (inside `pytest.raises`) gives facts only when no other does.
    auto key_a = std::make_tuple(!a.expects_error, a.complete, bound(a));
    auto key_b = std::make_tuple(!b.expects_error, b.complete, bound(b));
    if (key_a > key_b || (key_a == key_b && std::tie(a.path, a.line) < std::tie(b.path, b.line))) best = i;
  }
  return best;
}

std::map<std::string, LaunchFact> launch_facts(const LaunchSite& launch) {
  std::map<std::string, LaunchFact> out;
  for (const auto& a : launch.args) {
    if (a.param.empty() || a.role == "unknown") continue;
    out[a.param] = {a.role, a.dtype, a.value, a.shape, a.text, a.nominal, a.ratio, a.sizes, a.autocast};
  }
  // Keywords no parameter takes go by their own name: a Triton 1.x kernel's `**meta` reads them.
  for (const auto& a : launch.args)
    if (a.param.empty() && !a.keyword.empty() && a.role != "unknown" && !out.count(a.keyword))
      out[a.keyword] = {a.role, a.dtype, a.value, a.shape, a.text, a.nominal, a.ratio, a.sizes, a.autocast};
  return out;
}

std::optional<nlohmann::json> launch_grid(const LaunchSite& launch, const nlohmann::json& constexprs) {
  auto normalized = [](const nlohmann::json& v) -> std::optional<nlohmann::json> {
    nlohmann::json g = v.is_number_integer() ? nlohmann::json::array({v}) : v;
    if (!g.is_array() || g.empty() || g.size() > 3) return std::nullopt;
    for (const auto& x : g)
      if (!x.is_number_integer() || x.get<int64_t>() < 1) return std::nullopt;
    while (g.size() < 3) g.push_back(1);
    return g;
  };
  if (launch.grid.is_array()) return normalized(launch.grid);
  if (launch.grid_text.empty()) return std::nullopt;
  std::unique_ptr<PythonModule> m;
  try {
    m = PythonModule::build("<grid>", "grid = (" + launch.grid_text + ")\n");
  } catch (const Error&) {
    return std::nullopt;
  }
  TSNode statement = ts_node_named_child(m->tree().root(), 0);
  TSNode assign = ts_node_named_child(statement, 0);
  TSNode value = field(assign, "right");
  while (is_type(value, "parenthesized_expression")) value = ts_node_named_child(value, 0);
  if (ts_node_is_null(value)) return std::nullopt;
  LauncherValues values(*m, launch.grid_env);
  std::set<std::string> missing;
  auto v = values.eval_lambda(value, constexprs, &missing);
  if (!v) return std::nullopt;
  return normalized(*v);
}

}  // namespace mine::check
