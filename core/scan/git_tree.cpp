#include <git2.h>

#include <cctype>
#include <filesystem>
#include <mutex>
#include <string_view>

#include "core/error.h"
#include "core/scan/source_tree.h"

namespace mine {
namespace {

void init_libgit2() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    // libgit2 hashes every object it reads again (collision-detecting SHA-1, no CPU extension) to
    // compare with its id: a quarter of a scan of unsloth, which reads 45 MB of Python to find
    // the modules of 97 files. The packs were verified object by object when they were fetched
    // and indexed, and each entry's zlib stream still carries its checksum; git itself only
    // rehashes in fsck.
    git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
  });
}

std::string git_error_text() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown libgit2 error";
}

// Names git itself refuses to check out (fsck's hasDot, hasDotdot, hasDotgit): a hostile tree
// can hold them, and a path built from them would leave the tree wherever it is used later.
bool unsafe_name(std::string_view name) {
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string_view::npos) return true;
  if (name.size() != 4) return false;
  std::string lower;
  for (char c : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == ".git";
}

constexpr const char* kUnsafeBlobId = "unsafe";

struct RepoHandle {
  git_repository* repo = nullptr;
  ~RepoHandle() { git_repository_free(repo); }
};

class GitBlobReader : public BlobReader {
 public:
  explicit GitBlobReader(const std::string& path) {
    if (git_repository_open_ext(&handle_.repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0)
      throw Error::in(path, "cannot open git repository: " + git_error_text());
    if (git_repository_odb(&odb_, handle_.repo) != 0) throw Error::in(path, "cannot open object database");
  }
  ~GitBlobReader() override { git_odb_free(odb_); }

  std::string read(SourceEntry& entry, int64_t max_bytes, std::string& content) override {
    if (entry.blob_id == kUnsafeBlobId) return "unsafe path (a '.', '..' or '.git' component, or a '/' in a name); not read";
    git_oid oid;
    if (git_oid_fromstr(&oid, entry.blob_id.c_str()) != 0) return "bad blob id " + entry.blob_id;
    size_t size = 0;
    git_object_t type;
    // The header tells the size without inflating, so huge blobs are refused cheaply.
    if (git_odb_read_header(&size, &type, odb_, &oid) != 0) return "cannot read blob: " + git_error_text();
    entry.size = static_cast<int64_t>(size);
    if (static_cast<int64_t>(size) > max_bytes) return "too_large";
    git_odb_object* obj = nullptr;
    if (git_odb_read(&obj, odb_, &oid) != 0) return "cannot read blob: " + git_error_text();
    content.assign(static_cast<const char*>(git_odb_object_data(obj)), git_odb_object_size(obj));
    git_odb_object_free(obj);
    return "";
  }

 private:
  RepoHandle handle_;
  git_odb* odb_ = nullptr;
};

class GitTree : public SourceTree {
 public:
  GitTree(std::string path, const std::string& rev) : path_(std::move(path)) {
    init_libgit2();
    if (git_repository_open_ext(&handle_.repo, path_.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0)
      throw Error::in(path_, "cannot open git repository: " + git_error_text());
    git_object* obj = nullptr;
    if (git_revparse_single(&obj, handle_.repo, rev.c_str()) != 0)
      throw Error::in(path_, "cannot resolve " + rev + " (empty repository?): " + git_error_text());
    git_commit* commit = nullptr;
    int rc = git_object_peel(reinterpret_cast<git_object**>(&commit), obj, GIT_OBJECT_COMMIT);
    git_object_free(obj);
    if (rc != 0) throw Error::in(path_, rev + " is not a commit");
    char hex[GIT_OID_HEXSZ + 1] = {0};
    git_oid_tostr(hex, sizeof hex, git_commit_id(commit));
    commit_ = hex;
    rc = git_commit_tree(&tree_, commit);
    git_commit_free(commit);
    if (rc != 0) throw Error::in(path_, "cannot read the tree of " + commit_ + ": " + git_error_text());
  }
  ~GitTree() override { git_tree_free(tree_); }

  std::string kind() const override { return "git"; }
  std::string location() const override { return path_; }
  std::string commit_id() const override { return commit_; }
  std::string origin_url() const override {
    git_remote* remote = nullptr;
    if (git_remote_lookup(&remote, handle_.repo, "origin") != 0) return "";
    const char* url = git_remote_url(remote);
    std::string out = url ? url : "";
    git_remote_free(remote);
    return out;
  }

  std::vector<SourceEntry> list(const std::function<bool(std::string_view)>& wanted) const override {
    struct Walk {
      const std::function<bool(std::string_view)>* wanted;
      std::vector<SourceEntry> out;
    } walk{&wanted, {}};
    git_tree_walk(
        tree_, GIT_TREEWALK_PRE,
        [](const char* root, const git_tree_entry* e, void* payload) -> int {
          auto* w = static_cast<Walk*>(payload);
          // Only regular files: symlinks (mode 120000) and submodules (commits) are never followed.
          git_filemode_t mode = git_tree_entry_filemode(e);
          if (unsafe_name(git_tree_entry_name(e))) {
            // Listed (so the scan records it) but never read, and a tree of that name is not entered.
            w->out.push_back({std::string(root) + git_tree_entry_name(e), kUnsafeBlobId, -1});
            return mode == GIT_FILEMODE_TREE ? 1 : 0;
          }
          if (mode != GIT_FILEMODE_BLOB && mode != GIT_FILEMODE_BLOB_EXECUTABLE) return 0;
          std::string path = std::string(root) + git_tree_entry_name(e);
          if (!(*w->wanted)(path)) return 0;
          char hex[GIT_OID_HEXSZ + 1] = {0};
          git_oid_tostr(hex, sizeof hex, git_tree_entry_id(e));
          w->out.push_back({path, hex, -1});
          return 0;
        },
        &walk);
    return std::move(walk.out);
  }

  std::unique_ptr<BlobReader> reader() const override { return std::make_unique<GitBlobReader>(path_); }

 private:
  std::string path_;
  RepoHandle handle_;
  git_tree* tree_ = nullptr;
  std::string commit_;
};

bool is_git_repository(const std::string& path) {
  // libgit2 opens a work tree by its .git and a bare repository by its HEAD; a folder with neither
  // is no repository, and skipping libgit2's start-up (it loads the system's certificates) saves
  // a plain folder scan some 15 ms.
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::path(path) / ".git", ec) &&
      !std::filesystem::exists(std::filesystem::path(path) / "HEAD", ec))
    return false;
  init_libgit2();
  git_repository* repo = nullptr;
  bool ok = git_repository_open_ext(&repo, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) == 0;
  git_repository_free(repo);
  return ok;
}

}  // namespace

std::unique_ptr<SourceTree> open_folder_tree(const std::string& path);

std::unique_ptr<SourceTree> open_git_tree(const std::string& repo_path, const std::string& rev) {
  return std::make_unique<GitTree>(repo_path, rev);
}

std::unique_ptr<SourceTree> open_source_tree(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw Error::in(path, "no such file or directory");
  if (std::filesystem::is_directory(path, ec) && is_git_repository(path)) return open_git_tree(path);
  return open_folder_tree(path);
}

}  // namespace mine
