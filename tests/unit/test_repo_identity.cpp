// A local clone is named by its GitHub origin in every URL form git accepts for a remote.
#include <catch2/catch.hpp>

#include "core/scan/repo_identity.h"

using mine::github_repo_name;

TEST_CASE("GitHub origin URLs name owner/name", "[identity]") {
  CHECK(github_repo_name("https://github.com/linkedin/Liger-Kernel") == "linkedin/Liger-Kernel");
  CHECK(github_repo_name("https://github.com/linkedin/Liger-Kernel.git") == "linkedin/Liger-Kernel");
  CHECK(github_repo_name("https://github.com/linkedin/Liger-Kernel/") == "linkedin/Liger-Kernel");
  CHECK(github_repo_name("http://www.GitHub.com/fla-org/flash-linear-attention.git") == "fla-org/flash-linear-attention");
  CHECK(github_repo_name("https://user:ghp_secret@github.com/unslothai/unsloth.git") == "unslothai/unsloth");
  CHECK(github_repo_name("git@github.com:ModelTC/lightllm.git") == "ModelTC/lightllm");
  CHECK(github_repo_name("git@github.com:ModelTC/lightllm") == "ModelTC/lightllm");
  CHECK(github_repo_name("ssh://git@github.com/FlagOpen/FlagGems.git") == "FlagOpen/FlagGems");
  CHECK(github_repo_name("ssh://git@github.com:22/FlagOpen/FlagGems.git") == "FlagOpen/FlagGems");
  CHECK(github_repo_name("git://github.com/triton-lang/triton.git") == "triton-lang/triton");
  CHECK(github_repo_name("git+ssh://git@github.com/a_b/c.d.git") == "a_b/c.d");
}

TEST_CASE("other remotes keep the path name", "[identity]") {
  CHECK_FALSE(github_repo_name(""));
  CHECK_FALSE(github_repo_name("https://gitlab.com/owner/name.git"));
  CHECK_FALSE(github_repo_name("https://github.com.evil.example/owner/name.git"));
  CHECK_FALSE(github_repo_name("https://github.com/owner"));                 // no repository
  CHECK_FALSE(github_repo_name("https://github.com/owner/name/tree/main"));  // a page, not a remote
  CHECK_FALSE(github_repo_name("/srv/mirrors/owner/name.git"));
  CHECK_FALSE(github_repo_name("file:///srv/github.com/owner/name.git"));
  CHECK_FALSE(github_repo_name("git@github.com:owner/../name.git"));
}
