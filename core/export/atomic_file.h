#pragma once
#include <cstdio>
#include <string>
#include <string_view>

namespace mine {

// A file that appears at `path` complete or not at all: written to a temporary file beside it
// (same folder, so the rename cannot cross file systems), flushed to disk, then renamed over
// `path`. Destroyed without commit() - an exception, Ctrl-C unwinding - the temporary is removed
// and `path` is untouched.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view text);
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  FILE* file_ = nullptr;
};

}  // namespace mine
