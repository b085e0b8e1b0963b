#include "core/prefix_sha256.h"

#include <openssl/evp.h>

#include <algorithm>

#include "core/error.h"
#include "core/sha256.h"

namespace mine {

struct PrefixSha256::State {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~State() { EVP_MD_CTX_free(ctx); }
};

namespace {

void check(int ok) {
  if (ok != 1) throw Error("SHA-256 failed");
}

}  // namespace

PrefixSha256::PrefixSha256() {
  states_.push_back(new State);
  if (!states_[0]->ctx) throw Error("SHA-256 failed");
  check(EVP_DigestInit_ex(states_[0]->ctx, EVP_sha256(), nullptr));
}

PrefixSha256::~PrefixSha256() {
  for (State* s : states_) delete s;
}

std::string PrefixSha256::hex(std::string_view text) {
  size_t shared = static_cast<size_t>(
      std::mismatch(text.begin(), text.end(), previous_.begin(), previous_.end()).first - text.begin());
  // The last kept state inside the shared prefix; the states after it describe the old text only.
  size_t resume = std::min(shared / kStride, states_.size() - 1);
  size_t kept = resume + 1;
  State work;
  check(EVP_MD_CTX_copy_ex(work.ctx, states_[resume]->ctx));
  for (size_t at = resume * kStride; at < text.size();) {
    size_t n = std::min(kStride, text.size() - at);
    check(EVP_DigestUpdate(work.ctx, text.data() + at, n));
    hashed_ += n;
    at += n;
    if (n < kStride) break;
    if (kept == states_.size()) states_.push_back(new State);
    check(EVP_MD_CTX_copy_ex(states_[kept++]->ctx, work.ctx));
  }
  while (states_.size() > kept) {
    delete states_.back();
    states_.pop_back();
  }
  previous_.assign(text.data(), text.size());
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  check(EVP_DigestFinal_ex(work.ctx, digest, &length));
  return hex_encode(digest, length);
}

}  // namespace mine
