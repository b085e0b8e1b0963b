#include <chrono>
#include <iostream>
#include <map>
#include <set>

#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/dedup/dedup_clusters.h"
#include "core/dedup/signature_batch.h"
#include "core/error.h"
#include "core/sha256.h"
#include "corpus/corpus.h"
#include "corpus/dedup_store.h"

namespace mine::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

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

  auto start = std::chrono::steady_clock::now();
  auto corpus = Corpus::open(db, Corpus::Access::ReadWrite);
  DedupStore store(*corpus);
  dedup::MinHasher hasher({shingle, perms});
  const std::string params = "normalizer-v1 " + hasher.params().fingerprint();

  // 1. Hash only what has no current row: new kernels, changed standalones, other parameters.
  std::vector<DedupCandidate> all = store.candidates(params);
  // Forks and vendored copies repeat standalones byte for byte: each distinct text is parsed and
  // signed once, and its hashes are copied to the other kernels with the same text.
  std::vector<int64_t> todo;
  std::map<std::string, size_t> first_with_text;        // standalone sha -> index in todo
  std::vector<std::pair<int64_t, size_t>> same_text;    // (kernel, index in todo of its twin)
  for (const auto& c : all) {
    if (!c.needs_hashing) continue;
    auto [it, fresh] = first_with_text.try_emplace(c.standalone_sha256, todo.size());
    if (fresh) {
      todo.push_back(c.kernel_id);
    } else {
      same_text.emplace_back(c.kernel_id, it->second);
    }
  }
  std::map<size_t, DedupHashes> hashed_twins;
  std::set<size_t> wanted;
  for (const auto& [k, t] : same_text) wanted.insert(t);
  const size_t batch = 2000;  // bounds memory: texts of one batch at a time
  for (size_t from = 0; from < todo.size(); from += batch) {
    size_t to = std::min(todo.size(), from + batch);
    std::vector<std::string> texts;
    for (size_t i = from; i < to; ++i) texts.push_back(store.standalone(todo[i]));
    dedup::SignedBatch signed_batch = dedup::sign_documents(
        texts.size(), [&](size_t i) { return std::string_view(texts[i]); }, hasher, threads);
    std::vector<DedupHashes> rows_out;
    for (size_t i = 0; i < texts.size(); ++i) {
      DedupHashes h;
      h.kernel_id = todo[from + i];
      h.standalone_sha256 = sha256_hex(texts[i]);
      h.tokens = signed_batch.docs[i].tokens;
      h.exact_hash = std::move(signed_batch.docs[i].exact_hash);
      h.alpha_hash = std::move(signed_batch.docs[i].alpha_hash);
      const uint32_t* row = signed_batch.signatures.row(i);
      h.minhash.assign(row, row + perms);
      if (wanted.count(from + i)) hashed_twins[from + i] = h;
      rows_out.push_back(std::move(h));
    }
    store.put_hashes(rows_out, params);
  }
  if (!same_text.empty()) {
    std::vector<DedupHashes> copies;
    for (const auto& [kernel, t] : same_text) {
      DedupHashes h = hashed_twins.at(t);
      h.kernel_id = kernel;
      copies.push_back(std::move(h));
    }
    store.put_hashes(copies, params);
  }
  const size_t hashed_now = todo.size() + same_text.size();
  double hash_s = seconds_since(start);

  // 2. Cluster everything again: cheap next to hashing, and a new kernel can join two old clusters.
  std::vector<DedupHashes> hashes = store.load_hashes(params);
  std::vector<dedup::DedupItem> items;
  std::vector<int64_t> ids;
  std::vector<std::string> repos;
  dedup::SignatureMatrix sigs;
  sigs.perms = perms;
  sigs.values.reserve(hashes.size() * static_cast<size_t>(perms));
  size_t ci = 0;
  for (auto& h : hashes) {
    while (ci < all.size() && all[ci].kernel_id < h.kernel_id) ++ci;
    if (ci == all.size() || all[ci].kernel_id != h.kernel_id) continue;  // removed meanwhile
    items.push_back({all[ci].provenance, h.exact_hash, h.alpha_hash});
    ids.push_back(h.kernel_id);
    repos.push_back(all[ci].repo);
    sigs.values.insert(sigs.values.end(), h.minhash.begin(), h.minhash.end());
  }
  dedup::NearDedupConfig config;
  config.threshold = threshold;
  config.bands = bands > 0 ? dedup::LshBands{bands, rows} : dedup::choose_bands(threshold, perms);
  config.threads = threads;
  dedup::ClusterAssignment clusters = dedup::assign_clusters(items, sigs, config);

  DedupRunSummary run;
  run.params = params;
  run.threshold = threshold;
  run.bands = config.bands;
  run.kernels = static_cast<int64_t>(ids.size());
  run.hashed = static_cast<int64_t>(hashed_now);
  for (size_t i = 0; i < ids.size(); ++i) {
    run.exact_removed += clusters.exact[i] != i;
    run.alpha_removed += clusters.alpha[i] != i;
    run.near_removed += clusters.near[i] != i;
  }
  store.write_clusters(ids, repos, clusters, run);

  if (!quiet) {
    std::cout << "dedup: " << run.kernels << " kernels, " << run.hashed << " hashed now ("
              << todo.size() << " distinct texts; " << (run.kernels - run.hashed) << " kept from earlier runs) in "
              << hash_s << " s\n"
              << "  exact duplicates: " << run.exact_removed << "\n"
              << "  + after renaming locals (alpha): " << (run.alpha_removed - run.exact_removed) << "\n"
              << "  + near duplicates (MinHash " << shingle << "-shingles, " << perms << " perms, " << config.bands.bands
              << " bands x " << config.bands.rows << " rows, Jaccard >= " << threshold
              << "): " << (run.near_removed - run.alpha_removed) << "\n"
              << "  unique kernels after near dedup: " << (run.kernels - run.near_removed) << "\n"
              << "  candidate pairs " << clusters.near_stats.candidate_pairs << ", verified "
              << clusters.near_stats.accepted_pairs << "; total " << seconds_since(start) << " s\n";
  }
  return kExitOk;
}

RegisterCommand reg({"dedup", "find exact, renamed and near-duplicate kernels (incremental)", run_dedup, 50});

}  // namespace
}  // namespace mine::cli
