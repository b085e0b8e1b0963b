#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/check/check_results.h"
#include "core/check/signature_inference.h"
#include "corpus/corpus.h"

namespace mine {

// A kernel as `mine check` needs it.
struct CheckKernel {
  int64_t id = 0;
  std::string plugin, name, standalone, standalone_sha256;
  nlohmann::json meta;
  std::string repo, path, qualname, source_sha256;  // the identity `--shard` hashes
  std::vector<LaunchSite> launches;  // its launch sites (kernel_launches), by file and line
};

// Kernels `mine check` can check (Triton, Inductor and CUDA C kernels with a source), matching the
// user's SQL condition on the kernels table, by id. `read_only` must be opened with
// Corpus::Access::ReadOnly: the condition is user text, so it only ever runs where writes are
// impossible, and must form a single SELECT with the rest of the statement.
std::vector<CheckKernel> select_check_kernels(const Corpus& read_only, const std::string& where, int64_t limit);

// Triton kernels that another kernel of the same repository calls as a jitted helper (its
// kernel_deps row of kind 'jit_function' points at the helper's file and line). A helper takes
// blocks from its caller, so compiled alone with an inferred launch signature it fails for
// reasons that are not its own; it is compiled inside every caller instead.
std::set<int64_t> jitted_helper_kernels(const Corpus& read_only);

// A package of another repository of the corpus: `pkg/__init__.py` at the repository's root or in
// `src/` or `python/`, with the Python files under it.
struct LibraryPackage {
  std::string package;    // top-level import name
  std::string repo;       // repos.name of the repository that has it
  std::string source_kind, location, commit_id;  // where that repository was read from (repos row)
  std::string dir;        // the package's folder in that repository ("src/pkg")
  std::vector<std::pair<std::string, std::string>> files;  // its .py files: (repository-relative path, blob id)
};

// For each name of `packages`, the repository of the corpus that has a package of that name
// nearest its root (ties: the one most starred, then the first scanned). Names no repository has
// are left out.
std::vector<LibraryPackage> library_packages(const Corpus& corpus, const std::set<std::string>& packages);

// The third-party modules each kernel's standalone imports (kernels.external_modules), by id.
std::map<int64_t, std::vector<std::string>> external_modules(const Corpus& corpus, const std::vector<int64_t>& ids);

// Reads the launch sites of each kernel into its `launches`.
void attach_launches(const Corpus& read_only, std::vector<CheckKernel>& kernels);

// Replaces the stored signature of each kernel, in one transaction.
void store_signatures(Corpus& corpus, const std::vector<std::pair<CheckKernel, check::InferredSignature>>& inferred);

struct IngestOutcome {
  int results = 0;
  int configs = 0;
  std::vector<int64_t> unknown_kernels;  // ids no longer in the corpus (rescanned away); skipped
};

// Appends the results (and their autotune configs) in one transaction.
IngestOutcome store_check_results(Corpus& corpus, const std::vector<check::CheckResultRow>& rows,
                                  const std::string& results_file);

}  // namespace mine
