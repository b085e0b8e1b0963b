#include <iostream>

#include "core/cli/command.h"
#include "core/cli/dedup_run.h"
#include "core/cli/options.h"
#include "core/dedup/signature_batch.h"
#include "core/error.h"
#include "corpus/corpus.h"

namespace mine::cli {
namespace {

int run_dedup(const std::vector<std::string>& args) {
  po::options_description options("mine dedup options");
  std::string db;
  int shingle = 5, perms = 256, jobs = 0, bands = 0, rows = 0;
  double threshold = 0.85;
  options.add_options()
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file")
      ("shingle", po::value(&shingle)->default_value(5), "tokens per MinHash shingle")
      ("perms", po::value(&perms)->default_value(256), "MinHash permutations")
      ("threshold", po::value(&threshold)->default_value(0.85, "0.85"), "estimated Jaccard at which two kernels are near duplicates")
      ("bands", po::value(&bands)->default_value(0), "LSH bands (0: chosen from --threshold and --perms)")
      ("rows", po::value(&rows)->default_value(0), "LSH rows per band (with --bands)")
      ("jobs,j", po::value(&jobs)->default_value(0), "threads (0 = all cores)")
      ("quiet,q", "print nothing but errors");
  po::variables_map vm;
  if (!parse_options(args, options, {}, vm, "mine dedup [--db corpus.db] [--shingle 5 --perms 256 --threshold 0.85]",
                     "mine scan ~/src/repos --db corpus.db && mine dedup --db corpus.db"))
    return kExitOk;
  if (!(threshold > 0 && threshold < 1)) throw UsageError{"--threshold must be between 0 and 1"};
  if (shingle < 1 || perms < 16 || perms > 4096) throw UsageError{"--shingle must be >= 1 and --perms in 16..4096"};
  if ((bands > 0) != (rows > 0)) throw UsageError{"give --bands and --rows together"};
  if (bands > 0 && bands * rows > perms) throw UsageError{"--bands x --rows must not exceed --perms"};
  bool quiet = vm.count("quiet") > 0;
  int threads = jobs > 0 ? jobs : dedup::default_threads();

  DedupSettings settings{shingle, perms, threshold, bands, rows, threads};
  auto corpus = Corpus::open(db, Corpus::Access::ReadWrite);
  DedupOutcome outcome = run_incremental_dedup(*corpus, settings);
  const DedupRunSummary& run = outcome.run;

  if (!quiet) {
    std::cout << "dedup: " << run.kernels << " kernels, " << run.hashed << " hashed now ("
              << outcome.distinct_texts << " distinct texts; " << (run.kernels - run.hashed) << " kept from earlier runs) in "
              << outcome.hash_seconds << " s\n"
              << "  exact duplicates: " << run.exact_removed << "\n"
              << "  + after renaming locals (alpha): " << (run.alpha_removed - run.exact_removed) << "\n"
              << "  + near duplicates (MinHash " << shingle << "-shingles, " << perms << " perms, " << run.bands.bands
              << " bands x " << run.bands.rows << " rows, Jaccard >= " << threshold
              << "): " << (run.near_removed - run.alpha_removed) << "\n"
              << "  unique kernels after near dedup: " << (run.kernels - run.near_removed) << "\n"
              << "  candidate pairs " << outcome.near_stats.candidate_pairs << ", verified "
              << outcome.near_stats.accepted_pairs << "; total " << outcome.total_seconds << " s\n";
  }
  return kExitOk;
}

RegisterCommand reg({"dedup", "find exact, renamed and near-duplicate kernels (incremental)", run_dedup, 50});

}  // namespace
}  // namespace mine::cli
