// PrefixSha256 resumes hashing from a state kept inside the prefix a text shares with the one
// before it: every digest must still be the plain SHA-256 of the whole text, whatever the texts
// share (nothing, a few bytes, whole strides, all of the previous one, more, less).
#include <catch2/catch.hpp>

#include <random>

#include "core/prefix_sha256.h"
#include "core/sha256.h"

using namespace mine;

namespace {

std::string random_text(std::mt19937& rng, size_t n) {
  std::string s(n, ' ');
  for (auto& c : s) c = static_cast<char>('a' + rng() % 26);
  return s;
}

}  // namespace

TEST_CASE("prefix SHA-256 gives the plain digest of every text", "[sha256][prefix]") {
  const size_t K = PrefixSha256::kStride;
  std::mt19937 rng(21);
  std::string runtime = random_text(rng, 5 * K + 300);  // what consecutive standalones share
  std::vector<std::string> texts = {
      "",
      "a",
      runtime + "def k1(): pass\n",
      runtime + "def k2(): pass\n",                    // same prefix, differs past the last stride
      runtime.substr(0, 3 * K) + "x" + runtime.substr(3 * K + 1),  // differs exactly at a stride
      runtime.substr(0, 3 * K - 1),                    // a prefix of the one before
      runtime.substr(0, 4 * K),                        // longer than it, ends on a stride
      runtime.substr(0, 4 * K),                        // identical to the one before
      runtime.substr(0, 2 * K),                        // a prefix ending on a stride
      random_text(rng, 7 * K),                         // nothing in common
      "",
      runtime + "def k3(): pass\n",
  };
  for (int i = 0; i < 20; ++i) texts.push_back(runtime.substr(0, rng() % runtime.size()) + random_text(rng, rng() % (3 * K)));
  PrefixSha256 hasher;
  for (size_t i = 0; i < texts.size(); ++i) {
    INFO("text " << i << ", " << texts[i].size() << " bytes");
    CHECK(hasher.hex(texts[i]) == sha256_hex(texts[i]));
  }
}

TEST_CASE("prefix SHA-256 hashes a shared prefix about once", "[sha256][prefix]") {
  std::mt19937 rng(3);
  std::string runtime = random_text(rng, 40 * 1024);
  PrefixSha256 hasher;
  size_t total = 0;
  for (int k = 0; k < 100; ++k) {
    std::string text = runtime + "def kernel_" + std::to_string(k) + "(x):\n    return x\n";
    total += text.size();
    CHECK(hasher.hex(text) == sha256_hex(text));
  }
  // The first text whole, then for each next one at most the last stride of the runtime and its own tail.
  CHECK(hasher.hashed_bytes() < runtime.size() + 100 * (PrefixSha256::kStride + 64));
  CHECK(hasher.hashed_bytes() < total / 20);
}

TEST_CASE("prefix SHA-256 resumes from any recent text, not only the last one", "[sha256][prefix]") {
  // Kernels of two helper sets, interleaved (each file's imports differ a little at the top).
  std::mt19937 rng(7);
  std::string a = "import torch\n" + random_text(rng, 20 * 1024), b = "import math\n" + random_text(rng, 20 * 1024);
  PrefixSha256 hasher;
  size_t total = 0;
  for (int k = 0; k < 60; ++k) {
    std::string text = (k % 2 ? b : a) + "def kernel_" + std::to_string(k) + "(): pass\n";
    total += text.size();
    CHECK(hasher.hex(text) == sha256_hex(text));
  }
  CHECK(hasher.hashed_bytes() < a.size() + b.size() + 60 * (PrefixSha256::kStride + 64));
  // Past the bytes it keeps states for, it starts over and still hashes right (texts that share
  // a prefix, so that it keeps states all along).
  std::string common = random_text(rng, 60 * 1024);
  size_t before = hasher.hashed_bytes(), seen = 0;
  while (seen < PrefixSha256::kKeptBytes + (1 << 20)) {
    std::string text = common + random_text(rng, 4 * 1024 + seen % 777);
    seen += text.size();
    REQUIRE(hasher.hex(text) == sha256_hex(text));
  }
  CHECK(hasher.hashed_bytes() - before < seen / 4);  // still resuming: the states were kept, not dropped
}

TEST_CASE("prefix SHA-256 stops keeping states where texts share little, with the same digests", "[sha256][prefix]") {
  std::mt19937 rng(11);
  PrefixSha256 hasher;
  size_t total = 0;
  // Texts that differ from their first bytes on: nothing to resume from.
  while (total < PrefixSha256::kTrialBytes + (1 << 20)) {
    std::string text = random_text(rng, 40 * 1024 + rng() % 1000);
    total += text.size();
    REQUIRE(hasher.hex(text) == sha256_hex(text));
  }
  CHECK(hasher.hashed_bytes() == total);
  // Plain from then on, shared prefixes or not.
  std::string runtime = random_text(rng, 8 * 1024);
  for (int k = 0; k < 5; ++k) {
    std::string text = runtime + std::to_string(k);
    total += text.size();
    CHECK(hasher.hex(text) == sha256_hex(text));
  }
  CHECK(hasher.hashed_bytes() == total);
}
