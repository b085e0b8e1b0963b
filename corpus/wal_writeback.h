#pragma once
#include <sqlite3.h>

#include <string>

namespace mine {

// Starts writing a corpus's write-ahead log back to disk while a long transaction is still
// appending to it. The checkpoint at the end of a large transaction first waits until the whole
// WAL is on disk (fdatasync: 58 ms of FlagGems' 94 MB), on the one thread left running then;
// asked to begin early, the kernel writes the WAL while extraction goes on, and that wait is
// short. It changes neither what is written nor in which order, only when the kernel starts
// writing: no sync is awaited, durability stays as SQLite makes it. Linux only (sync_file_range);
// elsewhere it does nothing.
class WalWriteback {
 public:
  explicit WalWriteback(sqlite3* db);
  ~WalWriteback();
  WalWriteback(const WalWriteback&) = delete;
  WalWriteback& operator=(const WalWriteback&) = delete;

  // Asks the kernel to start writing back what the WAL holds now, without waiting. False when it
  // could not be asked (no WAL file yet, not Linux, an in-memory database).
  bool start();

 private:
  std::string wal_path_;
  int fd_ = -1;
};

}  // namespace mine
