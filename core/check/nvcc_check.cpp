#include "core/check/nvcc_check.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "core/error.h"

namespace fs = std::filesystem;

namespace mine::check {
namespace {

constexpr size_t kMaxMessage = 2000;

bool executable(const fs::path& p) { return access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Head and tail of a long diagnostic: the first error and how it ended both matter.
std::string trimmed(const std::string& text) {
  if (text.size() <= kMaxMessage) return text;
  return text.substr(0, kMaxMessage / 2) + "\n...\n" + text.substr(text.size() - kMaxMessage / 2);
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

struct ChildOutcome {
  int exit_code = -1;  // -1 when killed
  int signal = 0;
  bool timed_out = false;
  double wall_ms = 0;
};

// Runs argv in its own process group with stdout+stderr to `output`, under the limits; kills
// the whole group (nvcc's cicc and ptxas included) at the deadline.
ChildOutcome run_limited(const std::vector<std::string>& argv, const fs::path& cwd, const fs::path& output,
                         const NvccLimits& limits) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::string out_path = output.string(), dir = cwd.string();
  rlim_t mem = limits.mem_limit_mb > 0 ? static_cast<rlim_t>(limits.mem_limit_mb) << 20 : RLIM_INFINITY;
  auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid < 0) throw Error(std::string("cannot start nvcc: fork failed"));
  if (pid == 0) {  // only async-signal-safe calls until exec
    setpgid(0, 0);
    struct rlimit as{mem, mem}, core{0, 0};
    setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_CORE, &core);
    int fd = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int null = open("/dev/null", O_RDONLY);
    if (fd < 0 || null < 0 || chdir(dir.c_str()) != 0) _exit(126);
    dup2(null, 0);
    dup2(fd, 1);
    dup2(fd, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here: whichever runs first, the group exists before any kill
  ChildOutcome o;
  auto deadline = start + std::chrono::duration<double>(limits.timeout_s);
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      o.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(-pid, SIGKILL);  // whatever nvcc left behind in its group
  o.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status) && !o.timed_out) o.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  return o;
}

std::optional<int64_t> number_before(const std::string& line, const std::string& what) {
  std::smatch m;
  std::regex re("(\\d+) " + what);
  if (std::regex_search(line, m, re)) return std::stoll(m[1].str());
  return std::nullopt;
}

// The first diagnostic line that reports an error, or empty.
std::string first_error_line(const std::string& output) {
  static const std::regex error_line(R"((^|\s|:)(error|fatal)\b)", std::regex::icase);
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line))
    if (std::regex_search(line, error_line)) return line;
  return "";
}

}  // namespace

std::string find_nvcc() {
  if (const char* given = std::getenv("NVCC"); given && *given)  // an explicit choice: that one or none
    return executable(given) ? std::string(given) : "";
  if (const char* home = std::getenv("CUDA_HOME"); home && *home) {
    fs::path p = fs::path(home) / "bin" / "nvcc";
    if (executable(p)) return p.string();
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (dir.empty()) continue;
      fs::path p = fs::path(dir) / "nvcc";
      if (executable(p)) return p.string();
    }
  }
  fs::path fallback = "/usr/local/cuda/bin/nvcc";
  return executable(fallback) ? fallback.string() : "";
}

std::string nvcc_search_description() {
  const char* given = std::getenv("NVCC");
  if (given && *given) return std::string("$NVCC=") + given;
  return "$CUDA_HOME/bin, $PATH and /usr/local/cuda/bin";
}

// The source names an Itanium-mangled function symbol spells out, outermost first, read by their
// lengths: an anonymous namespace's name (`_GLOBAL__N__fa53..._27404`) ends in digits, which a
// pattern looking for the kernel name's length cannot tell from the length. (The harness reads
// symbols the same way: cuda_kernel.py's mangled_names.)
std::vector<std::string> mangled_names(const std::string& symbol) {
  std::vector<std::string> names;
  if (symbol.compare(0, 2, "_Z") != 0) return names;
  size_t i = symbol.size() > 2 && symbol[2] == 'N' ? 3 : 2;
  while (i < symbol.size()) {
    if (std::strchr("KVrL", symbol[i])) {  // cv-qualifiers of a member function, internal linkage
      ++i;
      continue;
    }
    size_t j = i;
    while (j < symbol.size() && std::isdigit(static_cast<unsigned char>(symbol[j]))) ++j;
    if (j == i || j - i > 6) break;
    size_t n = std::stoul(symbol.substr(i, j - i));
    names.push_back(symbol.substr(j, n));
    i = j + n;
  }
  return names;
}

std::optional<PtxasUsage> ptxas_usage(const std::string& output, const std::string& name) {
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  std::istringstream in(output);
  std::string line;
  std::optional<PtxasUsage> found;
  bool in_entry = false;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      if (found) break;  // the entry's block ended
      std::string symbol = m[1].str();
      auto names = mangled_names(symbol);
      in_entry = symbol == name || std::find(names.begin(), names.end(), name) != names.end();
      if (in_entry) found = PtxasUsage{symbol, {}, {}, {}, {}, {}, {}};
      continue;
    }
    if (!in_entry) continue;
    if (line.find("bytes stack frame") != std::string::npos) {
      found->stack_bytes = number_before(line, "bytes stack frame");
      found->spill_store_bytes = number_before(line, "bytes spill stores");
      found->spill_load_bytes = number_before(line, "bytes spill loads");
    } else if (line.find("Used ") != std::string::npos && line.find("registers") != std::string::npos) {
      found->registers = number_before(line, "registers");
      found->shared_bytes = number_before(line, "bytes smem");
      found->cmem_bytes = number_before(line, "bytes cmem\\[0\\]");
      if (!found->shared_bytes) found->shared_bytes = 0;  // ptxas names smem only when there is some
    }
  }
  return found;
}

std::string classify_nvcc_error(const std::string& output) {
  // Same table as kernels/harness/cuda_kernel.py's NVCC_CLASSES; first match wins. "must have
  // internal linkage" is how nvcc first reports a function whose parameter type is unknown (it
  // reads the declaration as an inline variable), so it files under missing_name.
  static const std::vector<std::pair<std::regex, std::string>> table = [] {
    auto icase = std::regex::icase;
    return std::vector<std::pair<std::regex, std::string>>{
        {std::regex(R"(too much (shared|local) data|too many resources|uses too much|out of memory|bad_alloc|cannot allocate memory)", icase), "resource_limit"},
        {std::regex(R"(not supported|unsupported|requires? (a )?(newer|higher|\.target|sm_|compute)|is only (supported|available)|not available on|requires separate compilation)", icase), "unsupported_op"},
        {std::regex(R"(is undefined|cannot open (source|include) file|has no member|not a class or namespace|is not a template|is not a type name|undefined reference|unresolved extern|no such file|must have internal linkage)", icase), "missing_name"},
        {std::regex(R"(no instance of|cannot be used to initialize|incompatible with|no suitable|cannot be assigned|too (few|many) arguments|expression must (have|be)|is not allowed|cannot convert|a value of type|invalid type conversion|declaration is incompatible|no operator .* matches)", icase), "type_error"},
        {std::regex(R"(expected (a|an)\b|unrecognized token|missing closing|unexpected|syntax error|extra text after|unbalanced|invalid preprocessing|#error)", icase), "syntax"},
    };
  }();
  std::string line = first_error_line(output);
  const std::string& subject = line.empty() ? output : line;
  for (const auto& [re, cls] : table)
    if (std::regex_search(subject, re)) return cls;
  return "other";
}

std::string nvcc_version(const std::string& nvcc) {
  std::error_code ec;
  fs::path dir = fs::temp_directory_path(ec) / ("mine-nvcc-version-" + std::to_string(getpid()));
  fs::create_directories(dir, ec);
  if (ec) return "";
  ChildOutcome o = run_limited({nvcc, "--version"}, dir, dir / "out.txt", NvccLimits{"", 30, 0});
  std::string text = read_all(dir / "out.txt");
  fs::remove_all(dir, ec);
  std::smatch m;
  if (o.exit_code == 0 && std::regex_search(text, m, std::regex(R"(release [^\n]+)"))) return m[0].str();
  return "";
}

nlohmann::json nvcc_check(const std::string& nvcc, const CudaUnit& unit, const NvccLimits& limits,
                          const std::string& work_dir) {
  fs::path dir = fs::path(work_dir) / ("k" + std::to_string(unit.id));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error::in(dir.string(), "cannot create a work folder: " + ec.message());
  fs::path source = dir / ("k" + std::to_string(unit.id) + ".cu");
  {
    std::ofstream out(source, std::ios::binary | std::ios::trunc);
    out << unit.standalone;
    if (!out) throw Error::in(source.string(), "cannot write");
  }
  // As the harness compiles (cuda_kernel.py's RELAXED_CONSTEXPR and EXTENDED_LAMBDA): as PyTorch
  // builds extensions.
  ChildOutcome o = run_limited({nvcc, "-cubin", "-arch=" + limits.arch, "--resource-usage", "--expt-relaxed-constexpr",
                                "--extended-lambda", "-o",
                                (dir / "k.cubin").string(), source.string()},
                               dir, dir / "nvcc.txt", limits);
  std::string output = replace_all(read_all(dir / "nvcc.txt"), source.string(), source.filename().string());

  nlohmann::json row = {{"id", unit.id},           {"entry", unit.name},      {"stage_requested", "compile"},
                        {"stage_reached", "compile"}, {"status", "fail"},     {"error_class", nullptr},
                        {"message", ""},           {"compile_ms", nullptr},   {"n_regs", nullptr},
                        {"n_spills", nullptr},     {"shared_bytes", nullptr}, {"run_ms", nullptr},
                        {"arch", limits.arch},     {"checker", "nvcc"}};
  if (o.timed_out) {
    row["error_class"] = "timeout";
    row["message"] = trimmed("nvcc did not finish within " + std::to_string(limits.timeout_s) + " s\n" + output);
  } else if (o.signal) {
    // Killed by the address-space limit (an allocation failing aborts the compiler) or a crash.
    bool memory = output.find("bad_alloc") != std::string::npos || output.find("out of memory") != std::string::npos;
    row["error_class"] = memory ? "resource_limit" : "crash";
    row["message"] = trimmed("nvcc was killed by signal " + std::to_string(o.signal) + "\n" + output);
  } else if (o.exit_code != 0) {
    row["error_class"] = classify_nvcc_error(output);
    std::string note;
    for (const auto& d : unit.build_defines_left_out)
      if (d.is_object())
        note += "\n" + d.value("name", std::string()) + " (" + d.value("from", std::string()) + ": " +
                d.value("why", std::string()) + ")";
    if (!note.empty()) note = "\nthe build defines these macros with values its code does not fix; left out:" + note;
    row["message"] = (output.empty() ? "nvcc exited with status " + std::to_string(o.exit_code) : trimmed(output)) + note;
  } else {
    row["status"] = "ok";
    row["compile_ms"] = std::round(o.wall_ms * 100) / 100;
    if (auto usage = ptxas_usage(output, unit.name)) {
      row["symbol"] = usage->symbol;
      if (usage->registers) row["n_regs"] = *usage->registers;
      if (usage->spill_store_bytes) row["n_spills"] = *usage->spill_store_bytes;
      if (usage->shared_bytes) row["shared_bytes"] = *usage->shared_bytes;
      if (usage->stack_bytes) row["stack_bytes"] = *usage->stack_bytes;
      if (usage->spill_load_bytes) row["spill_load_bytes"] = *usage->spill_load_bytes;
    } else {
      // A template nobody instantiates compiles to nothing: it passed, but there is no code to measure.
      row["message"] = "no entry function for " + unit.name + " in the cubin (uninstantiated template?)";
    }
  }
  fs::remove_all(dir, ec);
  return row;
}

}  // namespace mine::check
