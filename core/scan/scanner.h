#pragma once
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/plugin.h"
#include "core/scan/source_tree.h"
#include "corpus/corpus.h"

namespace mine {

struct ScanOptions {
  int jobs = 0;                           // parser threads; 0 = all cores
  int64_t max_file_bytes = 20 << 20;      // larger files are reported as too_large, not parsed
  std::function<void(const std::string&)> log;  // per-file problems when verbose; may be empty
  // Resolve imports between the files of a tree (off: each file is closed over on its own).
  bool cross_file = true;
  // Top-level packages never inlined from the tree itself (see Repository::never_inline).
  std::set<std::string> never_inline = {"triton", "torch", "numpy", "jax", "tensorflow", "cupy", "numba"};
};

class Prefilter;

// Runs the extractor plugins over a source tree. Extraction touches no database, so several
// trees can be extracted at once (crawl workers) while one thread stores the results.
class Scanner {
 public:
  Scanner(std::vector<const ExtractorPlugin*> plugins, ScanOptions options);
  ~Scanner();

  // Reads, prefilters, parses and extracts every file of `tree` on `jobs` threads.
  RepoSnapshot extract(const SourceTree& tree, const std::string& repo_name) const;

  // The same, handing what each file yielded to `deliver` on the calling thread, in the tree's
  // order, while the `jobs` threads go on with later files (while what the files extracted and
  // not yet delivered hold stays under a bound of a few MB, so memory stays bounded too). Then `finish`, if given, on the calling thread
  // while the threads release the parsed tree. Should either throw, extraction stops and the
  // exception propagates once the threads have ended.
  void extract(const SourceTree& tree, const std::string& repo_name,
               const std::function<void(ScannedFile&&)>& deliver, const std::function<void()>& finish = {}) const;

  const std::vector<const ExtractorPlugin*>& plugins() const { return plugins_; }

 private:
  std::vector<const ExtractorPlugin*> plugins_;
  ScanOptions options_;
  std::vector<std::unique_ptr<Prefilter>> prefilters_;  // one per plugin
};

// A snapshot of `tree` that names it and holds nothing yet.
RepoSnapshot snapshot_header(const SourceTree& tree, const std::string& repo_name);

// All built-in plugins (the registry), as the scanner takes them.
std::vector<const ExtractorPlugin*> all_plugins();

}  // namespace mine
