#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace mine {

// SHA-256 (lowercase hex, as sha256_hex) of a sequence of texts that often begin alike: the
// standalones of a repository's kernels repeat the same imports and inlined runtime, tens of KB,
// before each kernel's own code, and kernels of the same few helper sets come interleaved. The
// hashing state after every kStride bytes of a recent text is kept under a fingerprint of those
// bytes; a text resumes from the longest such prefix it has (checked byte for byte), so a shared
// prefix is hashed about once instead of once per kernel. Not thread-safe: one per writer.
class PrefixSha256 {
 public:
  static constexpr size_t kStride = 512;
  // Bytes of recent texts kept (for the byte-for-byte check of a resume); past them the kept
  // states start over. Bounds the memory: texts plus a state per stride, about 11 MB at most
  // (FlagGems: the last 250 standalones or so).
  static constexpr size_t kKeptBytes = 8 << 20;
  // Keeping states costs a fingerprint, a copy and an allocation per stride: where texts share
  // little (standalones whose imports differ at the top), states stop being kept once this many
  // bytes were seen with less than an eighth of them resumed past.
  static constexpr size_t kTrialBytes = 4 << 20;

  PrefixSha256();
  ~PrefixSha256();
  PrefixSha256(const PrefixSha256&) = delete;
  PrefixSha256& operator=(const PrefixSha256&) = delete;

  std::string hex(std::string_view text);
  // Bytes fed to SHA-256 so far (what resuming saved shows against the texts' total length).
  size_t hashed_bytes() const { return hashed_; }

 private:
  struct Checkpoint;
  std::unordered_map<uint64_t, std::unique_ptr<Checkpoint>> checkpoints_;  // by prefix fingerprint
  size_t kept_bytes_ = 0;  // bytes of the texts holding kept states since the last start-over
  size_t hashed_ = 0;
  size_t seen_ = 0;   // bytes of all texts given
  bool plain_ = false;  // states are no longer kept: each text is hashed whole
};

}  // namespace mine
