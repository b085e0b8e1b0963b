#pragma once
// Real servers on 127.0.0.1 for the crawl tests: the fake GitHub API (python3), `git daemon`
// (git://) and `git http-backend` behind a CGI front (smart HTTP), plus fixture repositories
// built with the git CLI. Nothing here talks to any other address.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace loopback {

namespace fs = std::filesystem;

inline std::string source_dir() { return MINE_SOURCE_DIR; }

class TempDir {
 public:
  explicit TempDir(const std::string& tag = "mine-crawl") {
    std::string pattern = (fs::temp_directory_path() / (tag + "-XXXXXX")).string();
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return (fs::path(path_) / rel).string(); }

 private:
  std::string path_;
};

// Runs argv to completion, output discarded (or into *output); returns the exit status.
inline int run(const std::vector<std::string>& argv, const std::string& cwd = "", std::string* output = nullptr) {
  int out_pipe[2] = {-1, -1};
  if (output && pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = fork();
  if (pid == 0) {
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    if (output) {
      dup2(out_pipe[1], 1);
      close(out_pipe[0]);
    } else {
      dup2(devnull, 1);
    }
    dup2(devnull, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  if (output) {
    close(out_pipe[1]);
    char buf[4096];
    ssize_t n;
    while ((n = read(out_pipe[0], buf, sizeof buf)) > 0) output->append(buf, n);
    close(out_pipe[0]);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

inline void must(const std::vector<std::string>& argv, const std::string& cwd = "") {
  if (run(argv, cwd) != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += a + " ";
    throw std::runtime_error("command failed: " + cmd + " (in " + cwd + ")");
  }
}

inline std::string capture(const std::vector<std::string>& argv, const std::string& cwd = "") {
  std::string out;
  if (run(argv, cwd, &out) != 0) throw std::runtime_error("command failed: " + argv[0]);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

inline bool port_open(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// A port nobody listens on right now; git daemon cannot report the one it was given.
inline int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  close(fd);
  return port;
}

// A server process of the test; killed (its whole process group) when the object dies.
class ChildProcess {
 public:
  // With read_port, waits for the child's first stdout line "PORT <n>".
  ChildProcess(const std::vector<std::string>& argv, bool read_port) {
    int out_pipe[2];
    if (pipe(out_pipe) != 0) throw std::runtime_error("pipe failed");
    pid_ = fork();
    if (pid_ == 0) {
      setpgid(0, 0);
      int devnull = open("/dev/null", O_RDWR);
      dup2(devnull, 0);
      dup2(out_pipe[1], 1);
      if (!getenv("MINE_TEST_SERVER_LOGS")) dup2(devnull, 2);
      close(out_pipe[0]);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    setpgid(pid_, pid_);
    close(out_pipe[1]);
    out_fd_ = out_pipe[0];
    if (read_port) {
      std::string line;
      char c;
      while (read(out_fd_, &c, 1) == 1 && c != '\n') line += c;
      if (line.rfind("PORT ", 0) != 0) throw std::runtime_error("server did not start: " + argv[0] + " said '" + line + "'");
      port_ = std::stoi(line.substr(5));
    }
  }
  ~ChildProcess() {
    if (pid_ > 0) {
      kill(-pid_, SIGTERM);
      int status;
      waitpid(pid_, &status, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  int port() const { return port_; }
  void set_port(int p) { port_ = p; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int port_ = 0;
};

inline std::unique_ptr<ChildProcess> start_fake_github(std::vector<std::string> extra) {
  std::vector<std::string> argv = {"python3", source_dir() + "/tests/fake_github/server.py"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return std::make_unique<ChildProcess>(argv, true);
}

// git daemon serving every repository under `base` at git://127.0.0.1:<port>/<path>.
inline std::unique_ptr<ChildProcess> start_git_daemon(const std::string& base) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    int port = free_port();
    auto p = std::make_unique<ChildProcess>(
        std::vector<std::string>{"git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1",
                                 "--port=" + std::to_string(port), "--base-path=" + base, base},
        false);
    p->set_port(port);
    for (int i = 0; i < 100; ++i) {
      if (port_open(port)) return p;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  throw std::runtime_error("git daemon did not start");
}

inline std::unique_ptr<ChildProcess> start_git_http(const std::string& base) {
  return std::make_unique<ChildProcess>(
      std::vector<std::string>{"python3", source_dir() + "/tests/fake_github/git_http_server.py", base}, true);
}

inline void write_file(const std::string& path, const std::string& text) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
}

// A bare repository at <served>/<owner>/<name>.git whose HEAD is `branch`, with one commit
// written straight into it from a scratch work tree (no push: each git process costs time).
// Returns the commit id.
inline std::string commit_into(const std::string& served, const std::string& full_name, const std::string& scratch,
                               const std::string& content, const std::string& message) {
  std::string bare = served + "/" + full_name + ".git";
  std::string work = scratch + "/" + full_name;
  write_file(work + "/kernels/k.py", content);
  must({"git", "--git-dir=" + bare, "--work-tree=" + work, "add", "-A"});
  must({"git", "--git-dir=" + bare, "--work-tree=" + work, "-c", "user.name=t", "-c", "user.email=t@example.invalid",
        "-c", "gc.auto=0", "commit", "-q", "-m", message});
  return capture({"git", "--git-dir=" + bare, "rev-parse", "HEAD"});
}

inline std::string make_served_repo(const std::string& served, const std::string& full_name, const std::string& branch,
                                    const std::string& scratch, const std::string& content) {
  must({"git", "init", "-q", "--bare", "-b", branch, served + "/" + full_name + ".git"});
  std::string commit = commit_into(served, full_name, scratch, content, "first");
  // Another branch the cloner must not fetch.
  must({"git", "--git-dir=" + served + "/" + full_name + ".git", "branch", "side-branch"});
  return commit;
}

// A new commit on the served repository's HEAD branch, as a push would leave it.
inline std::string push_commit(const std::string& served, const std::string& full_name, const std::string& branch,
                               const std::string& scratch, const std::string& content) {
  return commit_into(served, full_name, scratch, content, "more");
}

// GET http://127.0.0.1:<port><path> as JSON: the fake GitHub API's /_log and /_population.
inline nlohmann::json fetch_json(int port, const std::string& path) {
  std::string body;
  CURL* c = curl_easy_init();
  std::string url = "http://127.0.0.1:" + std::to_string(port) + path;
  auto append = +[](char* d, size_t s, size_t n, void* out) {
    static_cast<std::string*>(out)->append(d, s * n);
    return s * n;
  };
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
  curl_easy_perform(c);
  curl_easy_cleanup(c);
  return nlohmann::json::parse(body);
}

// The requests of a /_log that the server saw arrive while the client had been told to wait.
inline std::vector<std::string> violations(const nlohmann::json& log) {
  std::vector<std::string> out;
  for (const auto& e : log)
    if (!e["violation"].is_null()) out.push_back(e["path"].get<std::string>() + ": " + e["violation"].get<std::string>());
  return out;
}

}  // namespace loopback
