#include "core/launch/launch_site.h"

namespace mine {

nlohmann::json arguments_json(const std::vector<LaunchArgument>& args) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : args) {
    nlohmann::json o = {{"param", a.param}, {"position", a.position}, {"text", a.text}, {"role", a.role}};
    if (!a.keyword.empty()) o["keyword"] = a.keyword;
    if (!a.dtype.empty()) o["dtype"] = a.dtype;
    if (!a.value.is_null()) o["value"] = a.value;
    if (!a.shape.is_null()) o["shape"] = a.shape;
    if (!a.tensor.empty()) o["tensor"] = a.tensor;
    if (a.nominal) o["nominal"] = true;
    if (a.ratio) o["ratio"] = true;
    if (a.sizes) o["sizes"] = true;
    if (a.autocast) o["autocast"] = true;
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<LaunchArgument> arguments_from_json(const nlohmann::json& args) {
  std::vector<LaunchArgument> out;
  if (!args.is_array()) return out;
  for (const auto& a : args) {
    if (!a.is_object()) continue;
    LaunchArgument arg;
    arg.param = a.value("param", "");
    arg.keyword = a.value("keyword", "");
    arg.position = a.value("position", -1);
    arg.text = a.value("text", "");
    arg.role = a.value("role", "unknown");
    arg.dtype = a.value("dtype", "");
    arg.value = a.contains("value") ? a["value"] : nlohmann::json(nullptr);
    arg.shape = a.contains("shape") ? a["shape"] : nlohmann::json(nullptr);
    arg.tensor = a.value("tensor", "");
    arg.nominal = a.value("nominal", false);
    arg.ratio = a.value("ratio", false);
    arg.sizes = a.value("sizes", false);
    arg.autocast = a.value("autocast", false);
    out.push_back(std::move(arg));
  }
  return out;
}

}  // namespace mine
