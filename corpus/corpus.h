#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/launch/launch_site.h"
#include "core/plugin.h"

namespace mine {

struct FileRecord {
  std::string path;
  std::string blob_id;
  int64_t size = 0;
  bool parsed = false;
  int kernel_count = 0;
  std::string encoding;  // the declared encoding (PEP 263) the text was decoded from; empty for UTF-8
};

struct KernelRecord {
  std::string plugin;
  std::string path;
  ExtractedKernel kernel;
  std::string spdx_header;  // the file's SPDX-License-Identifier value; empty when it has none
  // kernel.meta as stored (its dump()), when the scan already made it to check that JSON can hold
  // the meta; empty: dumped when stored.
  std::string meta_text;
};

// The license a repository's own license file states (see core/license/license_detector.h).
struct RepoLicense {
  std::string spdx_id;    // empty when no license file matched a known license
  std::string path;       // the license file read; empty when the tree has none
  double confidence = 0;  // of the best candidate
};

struct ScanProblem {
  std::string path;
  int line = 0;  // 0 when the problem is not tied to a line
  std::string kind;
  std::string message;
};

// What one file of a tree yielded, as the scanner delivers it.
struct ScannedFile {
  FileRecord file;
  std::vector<KernelRecord> kernels;
  std::vector<ScanProblem> problems;
  std::vector<LaunchSite> launches;  // kernel launches in the file, linked to kernels at commit
};

// Everything one scan learned about one repository or folder; stored in one transaction.
struct RepoSnapshot {
  std::string name;         // repos.name
  std::string source_kind;  // 'git' | 'folder'
  std::string location;
  std::string commit_id;
  std::string local_path;  // local scans: the folder or repository read (name may be owner/name)
  std::string origin_url;  // git: the origin remote, credentials removed; empty without one
  RepoLicense license;
  std::vector<FileRecord> files;
  std::vector<KernelRecord> kernels;
  std::vector<ScanProblem> problems;
  std::vector<LaunchSite> launches;
};

struct StoreOutcome {
  int kernels_added = 0;
  int kernels_kept = 0;     // same identity as before (id unchanged)
  int kernels_removed = 0;  // gone from the repository since the last scan
};

struct ScanTotals {
  int64_t files_seen = 0;
  int64_t files_parsed = 0;
  int64_t kernels_found = 0;
  int64_t errors = 0;
};

// Result of a read-only query: column names and rows of JSON scalars (null, integer, real, text).
struct QueryResult {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;
};

// The SQLite corpus. Only code under corpus/ talks SQL; the rest of mine goes through this.
class Corpus {
 public:
  enum class Access { ReadWrite, ReadOnly };

  // Which threads use the connection: several (crawl discovery and the crawl writer share one),
  // so SQLite serializes every call on it; or only one at a time (`mine scan` stores from the
  // thread that delivers extracted files), so no call takes the connection's mutex.
  enum class Threads { Shared, One };

  // ReadWrite creates the file if needed and migrates it to the newest schema; ReadOnly requires
  // an existing corpus and refuses every write, ATTACH and extension loading.
  static std::unique_ptr<Corpus> open(const std::string& path, Access access, Threads threads = Threads::Shared);
  ~Corpus();
  Corpus(const Corpus&) = delete;
  Corpus& operator=(const Corpus&) = delete;

  const std::string& path() const { return path_; }
  int schema_version() const;

  int64_t begin_scan(const std::string& command, const nlohmann::json& inputs);
  void finish_scan(int64_t scan_id, const ScanTotals& totals);

  // Replaces what the corpus knows about `snapshot.name` with the snapshot, atomically. Kernels
  // whose identity (repo, path, qualname, source hash) is unchanged keep their id.
  StoreOutcome store(int64_t scan_id, const RepoSnapshot& snapshot);

  // Commit recorded for a repository at its last scan, if any.
  std::optional<std::string> mined_commit(const std::string& repo_name) const;

  // Runs one read-only SQL statement. Throws mine::Error for writes and for more than one statement.
  QueryResult query(const std::string& sql) const;

  // For the other stores in corpus/ (they share this connection and its transactions).
  sqlite3* handle() const { return db_; }

 private:
  Corpus(std::string path, sqlite3* db, Access access) : path_(std::move(path)), db_(db), access_(access) {}
  void migrate();

  std::string path_;
  sqlite3* db_;
  Access access_;
};

// Highest schema version this build of mine knows (the number of schema/*.sql files).
int known_schema_version();

}  // namespace mine
