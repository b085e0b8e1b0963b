#include "core/shard/shard_spec.h"

#include <charconv>
#include <cstdlib>

#include "core/cli/command.h"

namespace mine {

uint64_t stable_hash64(std::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

namespace {

bool parse_number(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 9) return false;  // keeps N small enough to be a sane process count
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

ShardSpec ShardSpec::parse(std::string_view text, const std::string& source) {
  auto bad = [&](const std::string& why) {
    return cli::UsageError{source + " '" + std::string(text) + "': " + why};
  };
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) throw bad("expected K/N, e.g. 0/4 (shard K of N, K from 0 to N-1)");
  ShardSpec spec;
  if (!parse_number(text.substr(0, slash), spec.index) || !parse_number(text.substr(slash + 1), spec.count))
    throw bad("K and N must be whole numbers, e.g. 0/4");
  if (spec.count == 0) throw bad("N must be at least 1");
  if (spec.index >= spec.count) throw bad("K must be less than N (shards are numbered 0 to N-1)");
  return spec;
}

ShardSpec ShardSpec::resolve(const std::string* option_value) {
  if (option_value) return parse(*option_value, "--shard");
  const char* env = std::getenv("MINE_SHARD");
  if (env && *env) return parse(env, "$MINE_SHARD");
  return {};
}

std::string kernel_shard_key(std::string_view repo, std::string_view path, std::string_view qualname,
                             std::string_view source_sha256) {
  std::string key;
  key.reserve(repo.size() + path.size() + qualname.size() + source_sha256.size() + 3);
  key.append(repo).append("|").append(path).append("|").append(qualname).append("|").append(source_sha256);
  return key;
}

}  // namespace mine
