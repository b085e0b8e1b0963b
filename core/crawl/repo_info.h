#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace mine {

// One repository as GitHub's API describes it; what discovery hands to cloning and mining.
struct RepoInfo {
  std::string full_name;       // "owner/name"
  std::string clone_url;       // as the API returns it, so Enterprise and test servers work unchanged
  int64_t stars = 0;
  std::string default_branch;  // may be empty when unknown; the cloner then asks the remote's HEAD
  std::string license_spdx;    // "" when the API reports none
  std::string pushed_at;       // ISO 8601 as the API writes it
  int64_t size_kb = 0;
  bool fork = false;
  bool archived = false;
  // Set by discovery, not read from the API: the strategy that reported the repository this time
  // ("repo_search", "code_search", "topic", "repos_file"), stored as a set in repos.discovered_by.
  std::string discovered_by;
  // --confirm: 1 when code search found a candidate file in it, 0 when it found none (the
  // repository is recorded, not cloned), -1 when not asked.
  int confirmed = -1;
};

// A whole-number field of an API object, or `fallback` when the object or field is missing, of
// another type, or a number outside int64 (1e300 must not be cast: that is undefined behaviour).
int64_t api_int(const nlohmann::json& obj, const char* key, int64_t fallback);
// A boolean field of an API object, or `fallback` when missing or of another type.
bool api_bool(const nlohmann::json& obj, const char* key, bool fallback);

// Reads a repository object of the REST API (search items and /repos/{owner}/{name} share it).
// Throws mine::Error when full_name or clone_url is missing; other fields of the wrong type read
// as absent.
RepoInfo repo_info_from_json(const nlohmann::json& item);

}  // namespace mine
