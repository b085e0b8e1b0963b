#include <iostream>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/error.h"
#include "corpus/corpus.h"
#include "corpus/corpus_merge.h"

namespace mine::cli {
namespace {

int run_merge(const std::vector<std::string>& args) {
  po::options_description options("mine merge options");
  std::vector<std::string> paths;
  options.add_options()
      ("path", po::value(&paths)->multitoken(), "OUT.db then the corpora to merge into it (positional)")
      ("dedup", "run `mine dedup --db OUT.db` after merging (dedup tables are never copied)")
      ("quiet,q", "print nothing but errors");
  po::positional_options_description positional;
  positional.add("path", -1);
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm, "mine merge OUT.db IN1.db [IN2.db ...] [--dedup]",
                     "mine merge corpus.db shard-0.db shard-1.db shard-2.db --dedup"))
    return kExitOk;
  if (paths.size() < 2) throw UsageError{"give the output corpus and at least one corpus to merge into it"};
  bool quiet = vm.count("quiet") > 0;
  const std::string& out_path = paths[0];
  auto out = Corpus::open(out_path, Corpus::Access::ReadWrite);
  int failed = 0;
  for (size_t i = 1; i < paths.size(); ++i) {
    try {
      MergeOutcome o = merge_corpus(*out, paths[i]);
      if (quiet) continue;
      std::cout << paths[i] << ": " << o.repos_in_input << " repositories (" << o.repos_already_present
                << " already in " << out_path << ", kept as they were); ";
      bool first = true;
      for (const auto& [table, n] : o.added)
        if (n > 0) std::cout << (first ? "added " : ", ") << n << " " << table, first = false;
      std::cout << (first ? "nothing new" : "") << "\n";
    } catch (const Error& e) {
      ++failed;  // each input is its own transaction: the others still merge
      std::cerr << "mine merge: " << e.what() << "\n";
    }
  }
  out.reset();
  if (vm.count("dedup")) {
    for (const auto& c : commands())
      if (std::string(c.name) == "dedup") {
        std::vector<std::string> dedup_args = {"--db", out_path};
        if (quiet) dedup_args.push_back("--quiet");
        int rc = c.run(dedup_args);
        if (rc != kExitOk) return rc;
      }
  } else if (!quiet) {
    std::cout << "dedup clusters are not merged: run `mine dedup --db " << out_path << "` before `mine export`\n";
  }
  return failed ? kExitFailure : kExitOk;
}

RegisterCommand reg({"merge", "combine corpora (e.g. --shard runs) into one, idempotently", run_merge, 72});

}  // namespace
}  // namespace mine::cli
