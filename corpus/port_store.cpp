#include "corpus/port_store.h"

#include "corpus/sqlite_statement.h"

namespace mine {

std::map<int64_t, std::string> current_ports(const Corpus& corpus) {
  std::map<int64_t, std::string> out;
  sqlite3* db = corpus.handle();
  sqlite3_stmt* probe = nullptr;
  bool has_table = sqlite3_prepare_v2(db, "SELECT 1 FROM kernel_ports LIMIT 0", -1, &probe, nullptr) == SQLITE_OK;
  sqlite3_finalize(probe);
  if (!has_table) return out;
  // Versions compare as text here ('3.10' < '3.6'); the newest port is the newest ingested.
  SqliteStatement s(db,
                    "SELECT p.kernel_id, p.source FROM kernel_ports p JOIN kernels k ON k.id = p.kernel_id "
                    "WHERE p.original_sha256 = k.standalone_sha256 ORDER BY p.kernel_id, p.created_at, p.rowid");
  while (s.step()) out[s.column_int(0)] = s.column_text(1);
  return out;
}

}  // namespace mine
