#pragma once
#include <string>
#include <vector>

#include "core/check/check_results.h"
#include "corpus/corpus.h"
#include "corpus/pair_store.h"

namespace mine::check {

// The inductor stage's rows (`checker: inductor`, BUNDLE.md) as pairs. Their output code leaves
// the rows' `extra` (it is stored once, in module_pairs, not in every check_results row); rows
// that never compiled give no pair.
std::vector<ModulePair> take_module_pairs(std::vector<CheckResultRow>& rows, const std::string& results_file);

struct PairIngestOutcome {
  int pairs = 0;
  int kernels = 0;  // Inductor kernels of the generated repositories (distinct rows)
  int links = 0;    // module_pair_kernels rows
  std::vector<int64_t> unknown_modules;
};

// Stores the pairs, then for each source repository whose pairs changed scans the output code of
// all its pairs with the Inductor plugin as repository 'inductor:<name>' (deduplicated like any
// scan: unchanged kernels keep their ids) and links the pairs to the kernels found.
PairIngestOutcome store_pairs(Corpus& corpus, const std::vector<ModulePair>& pairs);

}  // namespace mine::check
