#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "core/crawl/repo_info.h"

namespace mine {

// Where a repository lives in the clone cache: <cache>/<owner>/<name>.git, lower-cased since
// GitHub names are case-insensitive. Throws mine::Error for names that are not exactly
// "owner/name" of GitHub's characters (no "..", no absolute paths, no extra slashes).
std::string bare_repo_path(const std::string& cache_dir, const std::string& full_name);

struct RepoClonerOptions {
  std::string cache_dir;
  // A transfer that receives more than this is abandoned (the API's size can be stale); 0: no limit.
  int64_t max_transfer_bytes = 0;
  const std::atomic<bool>* cancel = nullptr;  // set -> transfers abort at their next progress report
};

struct RepoSyncResult {
  enum class Action { cloned, fetched, unchanged };
  Action action = Action::unchanged;
  std::string path;    // the bare repository
  std::string branch;  // "refs/heads/<default branch>", which HEAD now names
  std::string commit;  // hex id of that branch's head
  int64_t received_bytes = 0;
};

const char* to_string(RepoSyncResult::Action action);

// Keeps bare clones of only the default branch (whatever it is named) of repositories in a
// cache, with libgit2 over git://, http(s):// or file paths. Never writes a work tree.
// A first sync clones into <cache>/.partial/ and renames into place when complete, so a killed
// clone leaves no half repository where a later crawl would look. Later syncs ask the remote
// for its refs first and fetch only when the default branch moved.
// One RepoCloner per cache directory per process (it holds a lock on the cache); sync() may run
// on several threads at once for different repositories.
class RepoCloner {
 public:
  explicit RepoCloner(RepoClonerOptions options);
  ~RepoCloner();
  RepoCloner(const RepoCloner&) = delete;
  RepoCloner& operator=(const RepoCloner&) = delete;

  // Throws mine::Error naming the repository (and never a credential) on failure.
  RepoSyncResult sync(const RepoInfo& repo);

  // The cached head of the default branch, or "" when the repository is not cached.
  std::string cached_head(const std::string& full_name) const;

  const std::string& cache_dir() const { return options_.cache_dir; }

 private:
  RepoClonerOptions options_;
  int lock_fd_ = -1;
};

}  // namespace mine
