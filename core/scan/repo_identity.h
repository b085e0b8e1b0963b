#pragma once
#include <optional>
#include <string>

namespace mine {

// `owner/name` of a GitHub repository URL in any form git accepts for a remote:
// https://github.com/owner/name(.git), http(s)://user:token@github.com/..., git@github.com:owner/name.git,
// ssh://git@github.com[:22]/owner/name.git, git://github.com/owner/name.git (www. too, any case
// of the host). nullopt for other hosts and for URLs that name no single repository.
std::optional<std::string> github_repo_name(const std::string& url);

}  // namespace mine
