#include "core/scan/repo_identity.h"

#include <re2/re2.h>

#include <cctype>

namespace mine {

std::optional<std::string> github_repo_name(const std::string& url) {
  // scheme://[user[:password]@]host[:port]/owner/name[.git][/]  or  user@host:owner/name[.git]
  static const RE2 with_scheme(R"((?i)^(?:https?|ssh|git|git\+ssh)://(?:[^@/]*@)?(?:www\.)?github\.com(?::\d+)?/([^/]+)/([^/]+?)(?:\.git)?/*$)");
  static const RE2 scp_like(R"((?i)^[^@/:]+@(?:www\.)?github\.com:/?([^/]+)/([^/]+?)(?:\.git)?/*$)");
  std::string owner, name;
  if (!RE2::FullMatch(url, with_scheme, &owner, &name) && !RE2::FullMatch(url, scp_like, &owner, &name))
    return std::nullopt;
  // GitHub's own alphabet for owners and repositories; anything else is no repository of it.
  static const RE2 part(R"([A-Za-z0-9_.-]+)");
  if (!RE2::FullMatch(owner, part) || !RE2::FullMatch(name, part) || name == "." || name == "..") return std::nullopt;
  return owner + "/" + name;
}

}  // namespace mine
