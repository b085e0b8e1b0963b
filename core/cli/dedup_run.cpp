#include "core/cli/dedup_run.h"

#include <chrono>
#include <map>
#include <re2/re2.h>
#include <set>

#include "core/dedup/signature_batch.h"
#include "core/sha256.h"

namespace mine::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

DedupOutcome run_incremental_dedup(Corpus& corpus, const DedupSettings& settings) {
  DedupOutcome out;
  auto start = std::chrono::steady_clock::now();
  DedupStore store(corpus);
  const int shingle = settings.shingle, perms = settings.perms, bands = settings.bands, rows = settings.rows,
            threads = settings.threads;
  const double threshold = settings.threshold;
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
  out.run = run;
  out.distinct_texts = todo.size();
  out.hash_seconds = hash_s;
  out.near_stats = clusters.near_stats;
  out.total_seconds = seconds_since(start);
  return out;

}

std::optional<DedupSettings> last_dedup_settings(const Corpus& corpus) {
  std::optional<DedupRunSummary> last = DedupStore(corpus).last_run();
  if (!last) return std::nullopt;
  DedupSettings s;
  if (!RE2::PartialMatch(last->params, R"(shingle=(\d+) perms=(\d+))", &s.shingle, &s.perms)) return std::nullopt;
  s.threshold = last->threshold;
  s.bands = last->bands.bands;
  s.rows = last->bands.rows;
  return s;
}

}  // namespace mine::cli
