#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dedup/lsh_index.h"
#include "core/dedup/min_hasher.h"

namespace mine::dedup {

// Everything dedup keeps about one document.
struct DocumentHashes {
  std::string exact_hash;  // hex SHA-256 of the exact token stream
  std::string alpha_hash;  // hex SHA-256 of the alpha-renamed token stream
  size_t tokens = 0;
};

struct SignedBatch {
  std::vector<DocumentHashes> docs;
  SignatureMatrix signatures;  // of the exact token streams
};

// Normalizes and signs `count` documents on `threads` threads (each with its own parser).
// `source(i)` must be safe to call from several threads at once. When `with_hashes` is false the
// SHA-256 of the streams is skipped (the benchmark's signatures-only figure).
SignedBatch sign_documents(size_t count, const std::function<std::string_view(size_t)>& source,
                           const MinHasher& hasher, int threads, bool with_hashes = true);

// One per hardware thread; at least 1.
int default_threads();

}  // namespace mine::dedup
