#include "core/crawl/repo_info.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace mine {
namespace {

std::string string_or_empty(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

int64_t api_int(const nlohmann::json& obj, const char* key, int64_t fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  if (it == obj.end()) return fallback;
  if (it->is_number_unsigned()) {
    uint64_t u = it->get<uint64_t>();
    return u <= static_cast<uint64_t>(INT64_MAX) ? static_cast<int64_t>(u) : fallback;
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_number_float()) {
    double d = it->get<double>();
    if (d >= -9.2e18 && d <= 9.2e18) return static_cast<int64_t>(d);
  }
  return fallback;
}

bool api_bool(const nlohmann::json& obj, const char* key, bool fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

RepoInfo repo_info_from_json(const nlohmann::json& item) {
  if (!item.is_object()) throw Error("GitHub API: repository entry is not an object");
  RepoInfo r;
  r.full_name = string_or_empty(item, "full_name");
  r.clone_url = string_or_empty(item, "clone_url");
  if (r.full_name.empty()) throw Error("GitHub API: repository entry without full_name");
  if (r.clone_url.empty()) throw Error::in(r.full_name, "GitHub API gave no clone_url");
  r.stars = api_int(item, "stargazers_count", 0);
  r.default_branch = string_or_empty(item, "default_branch");
  auto lic = item.find("license");
  // GitHub reports "NOASSERTION" for licenses it could not identify: that is not an SPDX id.
  if (lic != item.end() && lic->is_object()) {
    std::string spdx = string_or_empty(*lic, "spdx_id");
    if (spdx != "NOASSERTION") r.license_spdx = spdx;
  }
  r.pushed_at = string_or_empty(item, "pushed_at");
  r.size_kb = api_int(item, "size", 0);
  r.fork = api_bool(item, "fork", false);
  r.archived = api_bool(item, "archived", false);
  return r;
}

}  // namespace mine
