#include "core/crawl/repo_list.h"

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace mine {

std::vector<std::string> read_repo_list(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error::in(path, "cannot read the repository list");
  std::vector<std::string> names;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") - first + 1);
    for (const char* prefix : {"https://github.com/", "http://github.com/", "github.com/"})
      if (line.rfind(prefix, 0) == 0) line.erase(0, std::string(prefix).size());
    while (!line.empty() && line.back() == '/') line.pop_back();
    if (line.size() > 4 && line.compare(line.size() - 4, 4, ".git") == 0) line.resize(line.size() - 4);
    size_t slash = line.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == line.size() || line.find('/', slash + 1) != std::string::npos)
      throw Error::in(path + ":" + std::to_string(n), "expected owner/name, got '" + line + "'");
    names.push_back(line);
  }
  return names;
}

RepoInfo lookup_repo(GithubClient& client, const std::string& full_name) {
  GithubResponse r = client.get("/repos/" + full_name);
  if (r.status == 404) throw Error::in(full_name, "repository not found (deleted, renamed or private)");
  if (r.status != 200) throw Error::in(full_name, "GitHub API answered HTTP " + std::to_string(r.status));
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  return repo_info_from_json(j);
}

}  // namespace mine
