#include "core/check/harness_process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.h"

extern char** environ;

namespace fs = std::filesystem;

namespace mine::check {
namespace {

constexpr const char* kHarness = "kernels/harness/run_bundle.py";

std::string on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

int spawn(const std::vector<std::string>& argv, bool quiet) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw Error("cannot start " + argv[0] + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error("waiting for " + argv[0] + ": " + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

std::string find_harness(const std::string& explicit_path) {
  if (!explicit_path.empty()) {
    if (!fs::is_regular_file(explicit_path)) throw Error::in(explicit_path, "--harness: no such file");
    return explicit_path;
  }
  if (const char* env = std::getenv("MINE_HARNESS"); env && *env) {
    if (!fs::is_regular_file(env)) throw Error::in(env, "$MINE_HARNESS: no such file");
    return env;
  }
  std::vector<fs::path> looked;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = exe.parent_path();
    for (int up = 0; up < 5 && !dir.empty(); ++up, dir = dir.parent_path()) {
      looked.push_back(dir / kHarness);
      if (fs::is_regular_file(looked.back())) return looked.back().string();
      if (dir == dir.parent_path()) break;
    }
  }
  looked.push_back(fs::current_path(ec) / kHarness);
  if (fs::is_regular_file(looked.back())) return looked.back().string();
  std::string where;
  for (const auto& p : looked) where += "\n  " + p.string();
  throw Error("cannot find " + std::string(kHarness) + "; looked in:" + where +
              "\ngive it with --harness PATH or $MINE_HARNESS");
}

std::string find_python_with_triton() {
  const char* env = std::getenv("MINE_PYTHON");
  std::string wanted = env && *env ? env : "python3";
  std::string python = on_path(wanted);
  if (python.empty())
    throw Error(wanted + " not found; `mine check --run` needs Python 3 with triton (and torch to load and run). "
                "Without them, use `mine check --emit DIR`, run kernels/harness/run_bundle.py where Triton is, "
                "and `mine check --ingest results.jsonl` here");
  if (spawn({python, "-c", "import triton"}, true) != 0)
    throw Error(python + " cannot import triton; install it (pip install triton) or set $MINE_PYTHON to a Python "
                "that has it, or use `mine check --emit` and run the bundle elsewhere");
  return python;
}

std::string find_python() {
  const char* env = std::getenv("MINE_PYTHON");
  std::string wanted = env && *env ? env : "python3";
  std::string python = on_path(wanted);
  if (python.empty()) throw Error(wanted + " not found; `mine check --run` needs Python 3 to run the harness");
  return python;
}

int run_child(const std::vector<std::string>& argv) { return spawn(argv, false); }

}  // namespace mine::check
