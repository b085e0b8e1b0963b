#pragma once
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <memory>
#include <set>
#include <vector>

#include "core/prefix_sha256.h"
#include "corpus/corpus.h"
#include "corpus/pragma_override.h"
#include "corpus/wal_writeback.h"

namespace mine {

// Writes one repository's scan into the corpus file by file, as the scanner delivers them, in
// one transaction: nothing of it is visible, and a kill leaves the corpus as it was, until
// commit(). Kernels whose identity (repo, path, qualname, source hash) is unchanged keep their
// id; kernels the repository no longer has are removed at commit.
//
// The transaction starts with the first piece (taking the corpus's write lock, waiting for
// another writer as Corpus::open's busy timeout allows) and is rolled back if the writer is
// destroyed without commit().
class RepoWriter {
 public:
  // `header`: name, source_kind, location, commit_id (its files, kernels and problems are ignored).
  RepoWriter(Corpus& corpus, int64_t scan_id, const RepoSnapshot& header);
  ~RepoWriter();
  RepoWriter(const RepoWriter&) = delete;
  RepoWriter& operator=(const RepoWriter&) = delete;

  void add(const FileRecord& file);
  void add(const KernelRecord& kernel);
  void add(const ScanProblem& problem);
  // Everything one file yielded; the file's texts can be freed as soon as this returns.
  void add(const ScannedFile& file);
  // The same, taking the launch sites over: a site holds its launcher's texts, tens of KB, which
  // the writer keeps once per distinct text, and a copy of them was most of storing a site.
  void add(ScannedFile&& file);
  // Launch sites; linked to the repository's kernels and stored at commit().
  void add(std::vector<LaunchSite> launches);

  StoreOutcome commit();

 private:
  struct Statements;
  void begin();
  // Stores what the license file says beside the API's license, and picks the repository's
  // license for its kernels (the API's when it names one, else the file's).
  void record_license(sqlite3* db);
  // A repository scanned by path before mine named clones by their GitHub origin keeps its row
  // (and its kernels their ids) under the new name, unless that name is taken already.
  void adopt_path_named_row(sqlite3* db);
  int64_t write_kernel(const KernelRecord& rec);  // the row's id; 0 for a repeat in the same file

  Corpus& corpus_;
  int64_t scan_id_;
  RepoSnapshot header_;
  int64_t repo_id_ = 0;
  std::unique_ptr<Statements> st_;  // set once the transaction has begun
  // The connection's settings while this writer runs (restored after the statements are gone).
  std::unique_ptr<PragmaOverride> temp_store_, cache_size_;
  // A file's row, kernels and problems, and the writeback they may call for (add(ScannedFile)).
  void add_rows(const ScannedFile& file);
  // The WAL's writeback, started each kWritebackBytes of kernel text stored (see add(ScannedFile)).
  std::unique_ptr<WalWriteback> wal_writeback_;
  size_t unflushed_bytes_ = 0;
  std::set<int64_t> previous_, kept_;
  // Kernels arrive file by file, and consecutive standalones share their inlined runtime.
  PrefixSha256 standalone_sha_;
  std::string repo_license_, repo_license_source_ = "none";
  // Inductor records are written at commit: rows are shared between records of the whole tree.
  std::vector<KernelRecord> inductor_;
  // Launch sites wait for commit (linking needs every kernel) without their launcher texts: those
  // are kept once each in launcher_texts_ (a launcher's standalone, tens of KB, is the same for
  // every launch it makes; FlagGems held 70 MB of copies), launch i's at launch_texts_[i]
  // (source, standalone; -1: none).
  std::vector<LaunchSite> launches_;
  // The Triton kernels written, as launches link to them: kept as they are written instead of
  // read back (and their meta parsed again) at commit, which runs after extraction, on its own.
  struct WrittenTarget;
  std::vector<WrittenTarget> targets_;
  std::vector<std::pair<int64_t, int64_t>> launch_texts_;
  std::deque<std::string> launcher_texts_;
  // Found by a hash of samples of the text, not of all of it: the texts are tens of KB, and
  // hashing each whole was most of what keeping them cost. Equal texts still compare whole.
  struct SampledTextHash {
    size_t operator()(std::string_view text) const;
  };
  std::unordered_map<std::string_view, int64_t, SampledTextHash> launcher_text_index_;
  int64_t keep_launcher_text(std::string&& text);
  void store_launches();
  StoreOutcome outcome_;
};

}  // namespace mine
