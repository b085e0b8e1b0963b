// RepoCloner against real git servers on 127.0.0.1: `git daemon` (git://) and
// `git http-backend` (smart HTTP), serving fixture repositories whose default branches are
// named main, master and trunk.
#include <catch2/catch.hpp>
#include <git2.h>

#include <atomic>

#include "core/crawl/repo_cloner.h"
#include "core/error.h"
#include "tests/unit/test_repo_loopback.h"

using namespace mine;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> local_refs(const std::string& bare) {
  std::string out = loopback::capture({"git", "--git-dir=" + bare, "for-each-ref", "--format=%(refname)"});
  std::vector<std::string> refs;
  size_t p = 0;
  while (p < out.size()) {
    size_t nl = out.find('\n', p);
    refs.push_back(out.substr(p, nl == std::string::npos ? std::string::npos : nl - p));
    p = nl == std::string::npos ? out.size() : nl + 1;
  }
  return refs;
}

}  // namespace

TEST_CASE("bare_repo_path refuses names that could escape the cache", "[repo][clone]") {
  CHECK(bare_repo_path("/c", "Owner/Repo") == "/c/owner/repo.git");
  CHECK(bare_repo_path("/c", "owner/.github") == "/c/owner/.github.git");
  CHECK(bare_repo_path("/c", "a-b/c_d.e") == "/c/a-b/c_d.e.git");
  for (const char* bad : {"../x", "x/..", "x/.", "/etc/passwd", "a/b/c", "a", "a/", "/a", ".partial/x", "a/b c",
                          "a\\b/c", "a/b%2f", ""})
    CHECK_THROWS_AS(bare_repo_path("/c", bad), Error);
}

TEST_CASE("RepoCloner clones only the default branch, bare, and fetches only when it moved", "[repo][clone]") {
  loopback::TempDir tmp;
  std::string served = tmp / "served", scratch = tmp / "scratch", cache = tmp / "cache";
  struct Fixture {
    std::string name, branch, commit;
  };
  std::vector<Fixture> repos = {{"alice/flash", "main", ""}, {"bob/softmax", "master", ""}, {"carol/matmul", "trunk", ""}};
  for (auto& r : repos) r.commit = loopback::make_served_repo(served, r.name, r.branch, scratch, "v1 of " + r.name + "\n");

  auto daemon = loopback::start_git_daemon(served);
  auto http = loopback::start_git_http(served);
  std::string transport = GENERATE(std::string("git"), std::string("http"));
  auto url_of = [&](const std::string& name) {
    return transport == "git" ? "git://127.0.0.1:" + std::to_string(daemon->port()) + "/" + name + ".git"
                              : "http://127.0.0.1:" + std::to_string(http->port()) + "/" + name + ".git";
  };
  INFO("transport " << transport);

  RepoCloner cloner({cache});
  for (const auto& r : repos) {
    RepoInfo info;
    info.full_name = r.name;
    info.clone_url = url_of(r.name);
    info.default_branch = r.branch;
    auto first = cloner.sync(info);
    CHECK(first.action == RepoSyncResult::Action::cloned);
    CHECK(first.commit == r.commit);
    CHECK(first.branch == "refs/heads/" + r.branch);
    CHECK(first.path == bare_repo_path(cache, r.name));
    CHECK(fs::exists(first.path + "/HEAD"));
    CHECK_FALSE(fs::exists(first.path + "/kernels"));  // no work tree
    CHECK(loopback::capture({"git", "--git-dir=" + first.path, "config", "core.bare"}) == "true");
    CHECK(loopback::capture({"git", "--git-dir=" + first.path, "symbolic-ref", "HEAD"}) == "refs/heads/" + r.branch);
    CHECK(local_refs(first.path) == std::vector<std::string>{"refs/heads/" + r.branch});
    CHECK(loopback::capture({"git", "--git-dir=" + first.path, "show", "HEAD:kernels/k.py"}) == "v1 of " + r.name);
    CHECK(cloner.cached_head(r.name) == r.commit);

    auto second = cloner.sync(info);
    CHECK(second.action == RepoSyncResult::Action::unchanged);
    CHECK(second.commit == r.commit);
  }

  // A push to one repository: only that one fetches, and it gets the new commit.
  std::string newer = loopback::push_commit(served, "bob/softmax", "master", scratch, "v2\n");
  for (const auto& r : repos) {
    RepoInfo info{r.name, url_of(r.name)};
    info.default_branch = r.branch;
    auto s = cloner.sync(info);
    if (r.name == "bob/softmax") {
      CHECK(s.action == RepoSyncResult::Action::fetched);
      CHECK(s.commit == newer);
      CHECK(loopback::capture({"git", "--git-dir=" + s.path, "show", "HEAD:kernels/k.py"}) == "v2");
      CHECK(loopback::capture({"git", "--git-dir=" + s.path, "fsck", "--no-dangling"}).empty());
    } else {
      CHECK(s.action == RepoSyncResult::Action::unchanged);
    }
  }
}

TEST_CASE("RepoCloner follows the remote's HEAD when the API's default branch is stale", "[repo][clone]") {
  loopback::TempDir tmp;
  std::string served = tmp / "served";
  std::string commit = loopback::make_served_repo(served, "dave/attn", "main", tmp / "scratch", "x\n");
  auto daemon = loopback::start_git_daemon(served);
  RepoCloner cloner({tmp / "cache"});
  RepoInfo info{"dave/attn", "git://127.0.0.1:" + std::to_string(daemon->port()) + "/dave/attn.git"};
  info.default_branch = "master";  // renamed to main since the API indexed it
  auto s = cloner.sync(info);
  CHECK(s.branch == "refs/heads/main");
  CHECK(s.commit == commit);
}

TEST_CASE("RepoCloner leaves no half repository behind", "[repo][clone]") {
  loopback::TempDir tmp;
  std::string served = tmp / "served", cache = tmp / "cache";
  loopback::make_served_repo(served, "erin/conv", "main", tmp / "scratch", "x\n");
  auto daemon = loopback::start_git_daemon(served);
  RepoInfo info{"erin/conv", "git://127.0.0.1:" + std::to_string(daemon->port()) + "/erin/conv.git"};

  SECTION("a cancelled transfer") {
    std::atomic<bool> cancel{true};
    RepoCloner cloner({cache, 0, &cancel});
    CHECK_THROWS_AS(cloner.sync(info), Error);
    CHECK_FALSE(fs::exists(bare_repo_path(cache, "erin/conv")));
    CHECK(fs::is_empty(cache + "/.partial"));
  }
  SECTION("an unreachable server") {
    RepoCloner cloner({cache});
    RepoInfo gone{"erin/conv", "git://127.0.0.1:" + std::to_string(loopback::free_port()) + "/erin/conv.git"};
    CHECK_THROWS_WITH(cloner.sync(gone), Catch::Contains("erin/conv"));
    CHECK_FALSE(fs::exists(bare_repo_path(cache, "erin/conv")));
  }
  SECTION("a repository the server does not have") {
    RepoCloner cloner({cache});
    RepoInfo missing{"erin/nope", "git://127.0.0.1:" + std::to_string(daemon->port()) + "/erin/nope.git"};
    CHECK_THROWS_AS(cloner.sync(missing), Error);
    CHECK_FALSE(fs::exists(bare_repo_path(cache, "erin/nope")));
  }
  SECTION("leftovers of a killed clone are cleared, and a second crawl cannot share the cache") {
    fs::create_directories(cache + "/.partial/erin+conv.git.1234-5");
    loopback::write_file(cache + "/.partial/erin+conv.git.1234-5/HEAD", "ref: refs/heads/main\n");
    RepoCloner cloner({cache});
    CHECK_FALSE(fs::exists(cache + "/.partial"));
    CHECK_THROWS_WITH(RepoCloner({cache}), Catch::Contains("another crawl"));
    CHECK(cloner.sync(info).action == RepoSyncResult::Action::cloned);
  }
  SECTION("a transfer larger than the limit is abandoned") {
    RepoCloner cloner({cache, 10});
    CHECK_THROWS_WITH(cloner.sync(info), Catch::Contains("exceeds"));
    CHECK_FALSE(fs::exists(bare_repo_path(cache, "erin/conv")));
  }
}
