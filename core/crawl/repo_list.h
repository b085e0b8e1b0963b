#pragma once
#include <string>
#include <vector>

#include "core/crawl/github_client.h"
#include "core/crawl/repo_info.h"

namespace mine {

// Reads `--repos-file`: one repository per line as "owner/name" or a github.com URL;
// blank lines and '#' comments are skipped. Throws mine::Error naming file and line.
std::vector<std::string> read_repo_list(const std::string& path);

// GET /repos/{owner}/{name}: the same metadata search gives. Throws mine::Error (404 reads
// "repository not found").
RepoInfo lookup_repo(GithubClient& client, const std::string& full_name);

}  // namespace mine
