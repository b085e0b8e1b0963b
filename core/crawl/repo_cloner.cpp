#include "core/crawl/repo_cloner.h"

#include <fcntl.h>
#include <git2.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <random>

#include "core/crawl/secret_redaction.h"
#include "core/error.h"

namespace fs = std::filesystem;

namespace mine {
namespace {

void init_libgit2() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

std::string git_error_text() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown libgit2 error";
}

bool valid_part(const std::string& s, bool owner) {
  if (s.empty() || s.size() > 100 || s == "." || s == "..") return false;
  // Owners never start with '.', which keeps .partial/ and .lock out of the owner namespace.
  if (owner && s.front() == '.') return false;
  return std::all_of(s.begin(), s.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

std::string hex(const git_oid* oid) {
  char buf[GIT_OID_HEXSZ + 1] = {0};
  git_oid_tostr(buf, sizeof buf, oid);
  return buf;
}

struct Repo {
  git_repository* p = nullptr;
  ~Repo() { git_repository_free(p); }
};
struct Remote {
  git_remote* p = nullptr;
  ~Remote() {
    if (p) git_remote_disconnect(p);
    git_remote_free(p);
  }
};

struct TransferGuard {
  const RepoClonerOptions* options;
  int64_t received = 0;
  bool too_large = false;
};

int on_transfer(const git_indexer_progress* stats, void* payload) {
  auto* g = static_cast<TransferGuard*>(payload);
  g->received = static_cast<int64_t>(stats->received_bytes);
  if (g->options->max_transfer_bytes > 0 && g->received > g->options->max_transfer_bytes) {
    g->too_large = true;
    return -1;
  }
  if (g->options->cancel && g->options->cancel->load()) return -1;
  return 0;
}

std::string branch_head(git_repository* repo, const std::string& branch) {
  git_oid oid;
  if (git_reference_name_to_id(&oid, repo, branch.c_str()) != 0) return "";
  return hex(&oid);
}

std::string head_branch(git_repository* repo) {
  git_reference* head = nullptr;
  if (git_reference_lookup(&head, repo, "HEAD") != 0) return "";
  std::string target = git_reference_type(head) == GIT_REFERENCE_SYMBOLIC ? git_reference_symbolic_target(head) : "";
  git_reference_free(head);
  return target;
}

std::string unique_suffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(getpid()) + "-" + std::to_string(rng() % 1000000000ULL);
}

}  // namespace

std::string bare_repo_path(const std::string& cache_dir, const std::string& full_name) {
  size_t slash = full_name.find('/');
  if (slash == std::string::npos || full_name.find('/', slash + 1) != std::string::npos)
    throw Error::in(full_name, "not a repository name of the form owner/name");
  std::string owner = full_name.substr(0, slash), name = full_name.substr(slash + 1);
  if (!valid_part(owner, true) || !valid_part(name, false))
    throw Error::in(full_name, "repository name has characters GitHub does not allow");
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
  };
  return (fs::path(cache_dir) / lower(owner) / (lower(name) + ".git")).string();
}

const char* to_string(RepoSyncResult::Action action) {
  switch (action) {
    case RepoSyncResult::Action::cloned: return "cloned";
    case RepoSyncResult::Action::fetched: return "fetched";
    case RepoSyncResult::Action::unchanged: return "unchanged";
  }
  return "?";
}

RepoCloner::RepoCloner(RepoClonerOptions options) : options_(std::move(options)) {
  init_libgit2();
  if (options_.cache_dir.empty()) throw Error("the clone cache directory is not set");
  std::error_code ec;
  fs::create_directories(options_.cache_dir, ec);
  if (ec) throw Error::in(options_.cache_dir, "cannot create the clone cache: " + ec.message());
  std::string lock = (fs::path(options_.cache_dir) / ".lock").string();
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw Error::in(lock, "cannot open the cache lock");
  if (flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock_fd_);
    throw Error::in(options_.cache_dir, "another crawl is using this clone cache");
  }
  // Only we hold the cache now: whatever is in .partial/ is from a clone that was killed.
  fs::remove_all(fs::path(options_.cache_dir) / ".partial", ec);
}

RepoCloner::~RepoCloner() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // releases the flock
}

std::string RepoCloner::cached_head(const std::string& full_name) const {
  std::string path = bare_repo_path(options_.cache_dir, full_name);
  Repo repo;
  if (git_repository_open_bare(&repo.p, path.c_str()) != 0) return "";
  git_oid oid;
  if (git_reference_name_to_id(&oid, repo.p, "HEAD") != 0) return "";
  return hex(&oid);
}

RepoSyncResult RepoCloner::sync(const RepoInfo& info) {
  const std::string& name = info.full_name;
  RepoSyncResult result;
  result.path = bare_repo_path(options_.cache_dir, name);
  if (info.clone_url.empty()) throw Error::in(name, "no clone URL");

  Repo repo;
  std::string work_path = result.path;
  bool fresh = false;
  if (fs::exists(result.path)) {
    if (git_repository_open_bare(&repo.p, result.path.c_str()) != 0) {
      // A cache entry we cannot open is worth nothing; cloning again is the repair.
      std::error_code ec;
      fs::remove_all(result.path, ec);
      if (ec) throw Error::in(result.path, "cannot remove a broken cached clone: " + ec.message());
    }
  }
  if (!repo.p) {
    fresh = true;
    fs::path partial = fs::path(options_.cache_dir) / ".partial";
    std::error_code ec;
    fs::create_directories(partial, ec);
    work_path = (partial / (fs::path(result.path).parent_path().filename().string() + "+" +
                            fs::path(result.path).filename().string() + "." + unique_suffix()))
                    .string();
    git_repository_init_options init = GIT_REPOSITORY_INIT_OPTIONS_INIT;
    init.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
    if (git_repository_init_ext(&repo.p, work_path.c_str(), &init) != 0)
      throw Error::in(name, "cannot create a repository in the cache: " + git_error_text());
  }
  auto discard = [&] {
    if (!fresh) return;
    git_repository_free(repo.p);
    repo.p = nullptr;
    std::error_code ec;
    fs::remove_all(work_path, ec);
  };

  // Messages name the URL without any credentials in it, and libgit2's text is scrubbed too.
  const std::string shown_url = url_without_credentials(info.clone_url);
  auto remote_error = [&] { return redact_url_credentials(git_error_text(), info.clone_url); };
  try {
    Remote remote;
    if (git_remote_create_anonymous(&remote.p, repo.p, info.clone_url.c_str()) != 0)
      throw Error::in(name, "bad clone URL " + shown_url + ": " + remote_error());
    TransferGuard guard{&options_};
    git_remote_callbacks callbacks = GIT_REMOTE_CALLBACKS_INIT;
    callbacks.transfer_progress = on_transfer;
    callbacks.payload = &guard;
    git_remote_connect_options connect = GIT_REMOTE_CONNECT_OPTIONS_INIT;
    connect.callbacks = callbacks;
    connect.proxy_opts.type = GIT_PROXY_AUTO;  // honour http(s)_proxy like git and libcurl do
    if (git_remote_connect_ext(remote.p, GIT_DIRECTION_FETCH, &connect) != 0)
      throw Error::in(name, "cannot reach " + shown_url + ": " + remote_error());

    const git_remote_head** heads = nullptr;
    size_t count = 0;
    if (git_remote_ls(&heads, &count, remote.p) != 0) throw Error::in(name, "cannot list remote refs: " + remote_error());
    // The remote's HEAD is the default branch now; the API's default_branch can be older.
    std::string branch;
    for (size_t i = 0; i < count; ++i)
      if (std::string(heads[i]->name) == "HEAD" && heads[i]->symref_target) branch = heads[i]->symref_target;
    if (branch.empty() && !info.default_branch.empty()) branch = "refs/heads/" + info.default_branch;
    if (branch.empty()) {
      // Servers too old to report symrefs: the branch HEAD points at.
      const git_oid* head_oid = nullptr;
      for (size_t i = 0; i < count; ++i)
        if (std::string(heads[i]->name) == "HEAD") head_oid = &heads[i]->oid;
      for (size_t i = 0; head_oid && i < count && branch.empty(); ++i)
        if (std::string(heads[i]->name).rfind("refs/heads/", 0) == 0 && git_oid_equal(&heads[i]->oid, head_oid))
          branch = heads[i]->name;
    }
    const git_oid* remote_oid = nullptr;
    for (size_t i = 0; i < count; ++i)
      if (branch == heads[i]->name) remote_oid = &heads[i]->oid;
    if (count == 0) throw Error::in(name, "the remote repository is empty");
    if (!remote_oid) throw Error::in(name, "default branch " + (branch.empty() ? std::string("(unknown)") : branch) + " is not on the remote");
    result.branch = branch;
    std::string remote_head = hex(remote_oid);

    std::string previous_branch = fresh ? "" : head_branch(repo.p);
    if (!fresh && previous_branch == branch && branch_head(repo.p, branch) == remote_head) {
      result.action = RepoSyncResult::Action::unchanged;
      result.commit = remote_head;
      return result;
    }

    std::string refspec = "+" + branch + ":" + branch;
    char* specs[] = {refspec.data()};
    git_strarray refspecs = {specs, 1};
    git_fetch_options fetch = GIT_FETCH_OPTIONS_INIT;
    fetch.callbacks = callbacks;
    fetch.proxy_opts.type = GIT_PROXY_AUTO;
    fetch.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    fetch.update_fetchhead = 0;
    fetch.prune = GIT_FETCH_NO_PRUNE;
    if (git_remote_fetch(remote.p, &refspecs, &fetch, fresh ? "clone: default branch" : "fetch: default branch") != 0) {
      if (guard.too_large)
        throw Error::in(name, "transfer exceeds " + std::to_string(options_.max_transfer_bytes / (1024 * 1024)) + " MiB; skipped");
      if (options_.cancel && options_.cancel->load()) throw Error::in(name, "cancelled");
      throw Error::in(name, "fetch from " + shown_url + " failed: " + remote_error());
    }
    result.received_bytes = guard.received;
    if (git_repository_set_head(repo.p, branch.c_str()) != 0)
      throw Error::in(name, "cannot point HEAD at " + branch + ": " + git_error_text());
    if (!previous_branch.empty() && previous_branch != branch) {
      // The default branch was renamed: keep only the current one, as a fresh clone would.
      git_reference* old = nullptr;
      if (git_reference_lookup(&old, repo.p, previous_branch.c_str()) == 0) {
        git_reference_delete(old);
        git_reference_free(old);
      }
    }
    result.commit = branch_head(repo.p, branch);
    if (result.commit.empty()) throw Error::in(name, "fetched, but " + branch + " is missing locally");
    result.action = fresh ? RepoSyncResult::Action::cloned : RepoSyncResult::Action::fetched;
  } catch (...) {
    discard();
    throw;
  }

  if (fresh) {
    git_repository_free(repo.p);
    repo.p = nullptr;
    std::error_code ec;
    fs::create_directories(fs::path(result.path).parent_path(), ec);
    // rename(2) is atomic: the cache holds a complete repository or none.
    fs::rename(work_path, result.path, ec);
    if (ec) {
      fs::remove_all(work_path, ec);
      throw Error::in(name, "cannot move the clone into " + result.path + ": " + ec.message());
    }
  }
  return result;
}

}  // namespace mine
