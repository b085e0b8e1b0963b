#include "corpus/wal_writeback.h"

#include <fcntl.h>
#include <unistd.h>

namespace mine {

WalWriteback::WalWriteback(sqlite3* db) {
  const char* file = sqlite3_db_filename(db, "main");
  if (file && *file) wal_path_ = std::string(file) + "-wal";
}

WalWriteback::~WalWriteback() {
  if (fd_ >= 0) ::close(fd_);
}

bool WalWriteback::start() {
#ifdef __linux__
  if (wal_path_.empty()) return false;
  // Opened on first use: SQLite creates the WAL with the transaction's first write. Reading is
  // enough: writeback is the file's, whichever descriptor asks.
  if (fd_ < 0) fd_ = ::open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return false;
  return ::sync_file_range(fd_, 0, 0, SYNC_FILE_RANGE_WRITE) == 0;
#else
  return false;
#endif
}

}  // namespace mine
