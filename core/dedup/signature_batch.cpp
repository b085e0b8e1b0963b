#include "core/dedup/signature_batch.h"

#include <atomic>
#include <thread>

#include "core/dedup/code_normalizer.h"
#include "core/dedup/python_lexer.h"
#include "core/dedup/token_normalizer.h"

namespace mine::dedup {

int default_threads() {
  unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

SignedBatch sign_documents(size_t count, const std::function<std::string_view(size_t)>& source,
                           const MinHasher& hasher, int threads, bool with_hashes) {
  SignedBatch out;
  out.docs.resize(count);
  out.signatures.perms = hasher.params().perms;
  out.signatures.values.resize(count * static_cast<size_t>(hasher.params().perms));
  // Small chunks from a shared counter: kernels vary a lot in size, fixed slices would idle a core.
  std::atomic<size_t> next{0};
  const size_t chunk = 64;
  auto worker = [&] {
    CodeNormalizer normalizer;
    std::vector<uint64_t> token_hashes;
    while (true) {
      size_t from = next.fetch_add(chunk);
      if (from >= count) break;
      size_t to = std::min(count, from + chunk);
      for (size_t i = from; i < to; ++i) {
        std::string_view text = source(i);
        DocumentHashes& d = out.docs[i];
        if (with_hashes) {
          hash_python(text, normalizer, d.exact_hash, d.alpha_hash);
        }
        lex_python_hashes(text, token_hashes);
        d.tokens = token_hashes.size();
        hasher.sign_hashes(token_hashes, out.signatures.values.data() + i * static_cast<size_t>(hasher.params().perms));
      }
    }
  };
  threads = std::max(1, threads);
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace mine::dedup
