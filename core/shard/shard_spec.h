#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace mine {

// FNV-1a, 64 bit. Fixed by definition, unlike std::hash, so N processes on N machines (and
// builds) agree on which shard owns a key.
uint64_t stable_hash64(std::string_view data);

// `--shard K/N`: this process handles the keys whose stable hash mod N is K. N processes with
// K = 0..N-1 and the same inputs cover every key exactly once.
struct ShardSpec {
  uint64_t index = 0;
  uint64_t count = 1;

  bool whole() const { return count == 1; }
  bool owns(std::string_view key) const { return stable_hash64(key) % count == index; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }

  // "K/N" with 0 <= K < N; throws cli::UsageError naming `source` (e.g. "--shard") otherwise.
  static ShardSpec parse(std::string_view text, const std::string& source = "--shard");
  // The --shard value when given, else $MINE_SHARD when set, else the whole (0/1).
  static ShardSpec resolve(const std::string* option_value);
};

// Shard key of a kernel: its identity in the corpus, so it is the same in every copy of the
// corpus (row ids are not).
std::string kernel_shard_key(std::string_view repo, std::string_view path, std::string_view qualname,
                             std::string_view source_sha256);

}  // namespace mine
