#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace mine {

// SHA-256 (lowercase hex, as sha256_hex) of a sequence of texts that often begin alike: the
// standalones of a repository's kernels repeat the same inlined runtime, tens of KB, before each
// kernel's own code. The hashing state is kept every kStride bytes of the last text; the next
// text resumes from the last kept state inside the prefix both share, so a shared prefix is
// hashed about once instead of once per kernel. Not thread-safe: one per writer.
class PrefixSha256 {
 public:
  static constexpr size_t kStride = 1024;

  PrefixSha256();
  ~PrefixSha256();
  PrefixSha256(const PrefixSha256&) = delete;
  PrefixSha256& operator=(const PrefixSha256&) = delete;

  std::string hex(std::string_view text);
  // Bytes fed to SHA-256 so far (what resuming saved shows against the texts' total length).
  size_t hashed_bytes() const { return hashed_; }

 private:
  struct State;
  std::string previous_;
  std::vector<State*> states_;  // states_[i]: after the first i * kStride bytes of previous_
  size_t hashed_ = 0;
};

}  // namespace mine
