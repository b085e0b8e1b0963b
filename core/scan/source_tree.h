#pragma once
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mine {

// One file of a tree, before it is read.
struct SourceEntry {
  std::string path;     // relative to the tree root, '/' separated
  std::string blob_id;  // git blob id when known before reading (git trees); filled on read otherwise
  int64_t size = -1;    // bytes; -1 until known
};

// Reads file contents. Each worker thread gets its own reader (libgit2 handles are per thread).
class BlobReader {
 public:
  virtual ~BlobReader() = default;
  // Fills `content` (at most `max_bytes`; larger files are refused), and entry.size/blob_id.
  // Returns an empty string on success, else the reason it could not be read.
  virtual std::string read(SourceEntry& entry, int64_t max_bytes, std::string& content) = 0;
};

// Something to scan: a plain folder or the HEAD commit of a git repository (bare or not).
class SourceTree {
 public:
  virtual ~SourceTree() = default;
  virtual std::string kind() const = 0;  // 'git' | 'folder'
  virtual std::string location() const = 0;
  virtual std::string commit_id() const { return ""; }
  // The URL of a git repository's `origin` remote as configured (credentials included, if the
  // configuration holds any: strip them before storing); empty for folders and without one.
  virtual std::string origin_url() const { return ""; }
  // Files whose path `wanted` accepts. Symlinks and submodules are never followed.
  virtual std::vector<SourceEntry> list(const std::function<bool(std::string_view)>& wanted) const = 0;
  virtual std::unique_ptr<BlobReader> reader() const = 0;
};

// Opens `path` as a git repository when it is one (its root or a bare repository), else as a
// folder. Throws mine::Error naming the path when it is neither readable folder nor repository.
std::unique_ptr<SourceTree> open_source_tree(const std::string& path);

// A git repository's HEAD (or `rev`) read from its object database, no checkout.
std::unique_ptr<SourceTree> open_git_tree(const std::string& repo_path, const std::string& rev = "HEAD");

}  // namespace mine
