#include "core/export/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.h"

namespace mine {

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
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
