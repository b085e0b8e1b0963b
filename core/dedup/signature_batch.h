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
  size_t tokens = 0;       // lexical tokens the signature was made from
};

struct SignedBatch {
  std::vector<DocumentHashes> docs;
  SignatureMatrix signatures;  // MinHash of python_lexer's token streams
};

// Signs `count` documents on `threads` threads and, when `with_hashes`, makes each one's exact and
// alpha hashes (from its tokens, token_normalizer.h, parsing only what that declines; one parser
// per thread); without, only the near-dedup signature is made.
// `source(i)` is called from several threads at once; the view it returns must stay valid until
// the same thread calls it again.
SignedBatch sign_documents(size_t count, const std::function<std::string_view(size_t)>& source,
                           const MinHasher& hasher, int threads, bool with_hashes = true);

// One per hardware thread; at least 1.
int default_threads();

}  // namespace mine::dedup
