#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/export/train_test_split.h"

namespace mine::cli {

struct PairExport {
  std::string db, out;
  bool chat = false;        // --format pairs-chat
  bool permissive = false;  // --license permissive
  const std::set<std::string>* permissive_licenses = nullptr;
  std::vector<SplitSpec> splits;
  std::vector<std::string> benchmarks;
  int threads = 1;
  bool quiet = false;
};

// `mine export --format pairs|pairs-chat`: one JSON line per PyTorch/Inductor pair
// (module_pairs), {pytorch_code, triton_code, inputs, verified, repo, commit, path, license}, or
// the same as a chat exchange. A pair goes when its output code holds no Triton kernel, when its module or its output code was written
// already (exact duplicates on either side), when its license is not permissive (with
// --license permissive) and when either side is a near duplicate of a benchmark item; splits
// take whole repositories.
int export_pairs(const PairExport& options);

}  // namespace mine::cli
