#include "core/crawl/repo_info.h"

#include <nlohmann/json.hpp>

#include "core/error.h"

namespace mine {
namespace {

std::string string_or_empty(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

RepoInfo repo_info_from_json(const nlohmann::json& item) {
  if (!item.is_object()) throw Error("GitHub API: repository entry is not an object");
  RepoInfo r;
  r.full_name = string_or_empty(item, "full_name");
  r.clone_url = string_or_empty(item, "clone_url");
  if (r.full_name.empty()) throw Error("GitHub API: repository entry without full_name");
  if (r.clone_url.empty()) throw Error::in(r.full_name, "GitHub API gave no clone_url");
  r.stars = item.value("stargazers_count", int64_t{0});
  r.default_branch = string_or_empty(item, "default_branch");
  auto lic = item.find("license");
  // GitHub reports "NOASSERTION" for licenses it could not identify: that is not an SPDX id.
  if (lic != item.end() && lic->is_object()) {
    std::string spdx = string_or_empty(*lic, "spdx_id");
    if (spdx != "NOASSERTION") r.license_spdx = spdx;
  }
  r.pushed_at = string_or_empty(item, "pushed_at");
  r.size_kb = item.value("size", int64_t{0});
  r.fork = item.value("fork", false);
  r.archived = item.value("archived", false);
  return r;
}

}  // namespace mine
