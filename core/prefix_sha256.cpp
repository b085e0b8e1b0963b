// The low-level SHA-256 calls (deprecated in OpenSSL 3, still there) make a state a plain struct
// to copy; EVP contexts are duplicated through the provider, an allocation per copy.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "core/prefix_sha256.h"

#include <openssl/sha.h>

#include <cstring>
#include <vector>

#include "core/sha256.h"

namespace mine {

struct PrefixSha256::Checkpoint {
  SHA256_CTX state;                          // after the first `length` bytes of *text
  std::shared_ptr<const std::string> text;   // to check a fingerprint's match byte for byte
  size_t length = 0;
};

namespace {

// A fingerprint of one stride, its words folded by multiply and xor: less than half of what
// std::hash (a byte-wise murmur) costs on every byte of every text. Only a key: a state is
// resumed after its prefix was compared byte for byte, so a collision costs hashing, never a
// wrong digest.
uint64_t stride_print(const char* bytes) {
  static_assert(PrefixSha256::kStride % 8 == 0);
  uint64_t h = 0;
  for (size_t at = 0; at < PrefixSha256::kStride; at += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + at, 8);
    h = (h ^ word) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace

PrefixSha256::PrefixSha256() = default;
PrefixSha256::~PrefixSha256() = default;

std::string PrefixSha256::hex(std::string_view text) {
  seen_ += text.size();
  if (plain_) {
    hashed_ += text.size();
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
    return hex_encode(digest, sizeof digest);
  }
  if (seen_ > kTrialBytes && seen_ - hashed_ < seen_ / 8) {
    plain_ = true;
    checkpoints_.clear();
  }
  // Fingerprints of the stride-aligned prefixes: prints[i] covers the first (i + 1) * kStride bytes.
  size_t strides = text.size() / kStride;
  std::vector<uint64_t> prints(strides);
  uint64_t print = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < strides; ++i) {
    uint64_t block = stride_print(text.data() + i * kStride);
    print = (print ^ block) * 0x100000001b3ull + i;
    prints[i] = print;
  }
  // The longest kept prefix this text starts with.
  SHA256_CTX state;
  SHA256_Init(&state);
  size_t at = 0;
  for (size_t i = strides; i-- > 0;) {
    auto found = checkpoints_.find(prints[i]);
    if (found == checkpoints_.end()) continue;
    const Checkpoint& c = *found->second;
    if (c.length == (i + 1) * kStride && std::memcmp(c.text->data(), text.data(), c.length) == 0) {
      state = c.state;
      at = c.length;
      break;
    }
  }
  // Hash the rest, keeping the state at each stride this text adds.
  if (kept_bytes_ >= kKeptBytes) {
    checkpoints_.clear();
    kept_bytes_ = 0;
  }
  std::shared_ptr<const std::string> kept;
  for (; at + kStride <= text.size(); at += kStride) {
    SHA256_Update(&state, text.data() + at, kStride);
    hashed_ += kStride;
    uint64_t key = prints[at / kStride];
    if (checkpoints_.count(key)) continue;
    if (!kept) {
      kept = std::make_shared<const std::string>(text);
      kept_bytes_ += text.size();
    }
    auto c = std::make_unique<Checkpoint>();
    c->state = state;
    c->text = kept;
    c->length = at + kStride;
    checkpoints_.emplace(key, std::move(c));
  }
  SHA256_Update(&state, text.data() + at, text.size() - at);
  hashed_ += text.size() - at;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256_Final(digest, &state);
  return hex_encode(digest, sizeof digest);
}

}  // namespace mine
