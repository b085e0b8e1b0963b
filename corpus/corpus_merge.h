#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "corpus/corpus.h"

namespace mine {

// Rows one input added to the output, per table.
struct MergeOutcome {
  std::map<std::string, int64_t> added;
  int64_t repos_in_input = 0;
  int64_t repos_already_present = 0;  // kept as the output had them; the input's copy skipped
};

// Copies the corpus at `input_path` into `out` (opened ReadWrite, so at the newest schema) in
// one transaction. Kernels are matched on their identity (repository name, path, qualname,
// source_sha256) and get the output's ids; everything that points at a kernel, repository,
// check result or scan is remapped. Idempotent: merging the same input twice adds nothing.
//
// A repository the output already has is kept as it is (with its files, kernels, dependencies,
// occurrences and scan errors); only check signatures, results and configs, PyTorch/Inductor
// pairs and API ETags of the input are added to it, matched through the kernel identity. Shards never share a repository,
// so this only matters when the same input is merged again. Dedup tables are not copied: cluster
// ids are kernel ids, and clusters change when corpora are combined.
//
// Throws mine::Error for an input that is not a corpus, is from a newer mine, or is `out` itself.
MergeOutcome merge_corpus(Corpus& out, const std::string& input_path);

}  // namespace mine
