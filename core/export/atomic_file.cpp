#include "core/export/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace mine {
namespace {

// A writer killed with SIGKILL leaves its <name>.tmp-<pid>; the next writer of the same file
// removes those whose process is gone, so interrupted exports do not pile up beside the output.
void remove_stale_temps(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::string prefix = p.filename().string() + ".tmp-";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    std::string pid = name.substr(prefix.size());
    if (pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    if (kill(static_cast<pid_t>(std::stol(pid)), 0) == 0 || errno != ESRCH) continue;
    fs::remove(e.path(), ec);
  }
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  remove_stale_temps(path_);
  temp_ = path_ + ".tmp-" + std::to_string(getpid());
  file_ = std::fopen(temp_.c_str(), "wb");
  if (!file_) throw Error::in(path_, std::string("cannot write here: ") + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (file_) {
    std::fclose(file_);
    std::remove(temp_.c_str());
  }
}

void AtomicFile::write(std::string_view text) {
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size())
    throw Error::in(path_, std::string("write failed: ") + std::strerror(errno));
}

void AtomicFile::commit() {
  if (std::fflush(file_) != 0 || fsync(fileno(file_)) != 0)
    throw Error::in(path_, std::string("write failed: ") + std::strerror(errno));
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) {
    std::remove(temp_.c_str());
    throw Error::in(path_, "cannot move the finished file into place: " + ec.message());
  }
}

}  // namespace mine
