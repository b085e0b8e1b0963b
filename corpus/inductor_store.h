#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "corpus/corpus.h"

namespace mine {

// How the inductor plugin's records become rows (schema/002_inductor.sql): one kernels row per
// distinct source, every occurrence in kernel_occurrences, old-layout kernels joined to the cache
// files of the same tree, and each kernel's PyTorch code joined from its graph's fx graph.
// Corpus::store asks it which records get a kernels row and lets it write the rest.
class InductorRows {
 public:
  explicit InductorRows(const std::vector<KernelRecord>& kernels);

  // False for records that share another record's kernels row or are no kernel rows at all
  // (missing sources, fx graph summaries). True for every other plugin's records.
  bool owns_row(size_t record) const { return owns_row_[record]; }
  void set_row_id(size_t record, int64_t kernel_id) { row_id_[record] = kernel_id; }

  // Inside the caller's transaction: replaces the repository's occurrences, adds the PyTorch code
  // to the kernels rows' meta, and records a missing_source problem per kernel found nowhere.
  // Returns the number of problems recorded.
  int store(sqlite3* db, int64_t scan_id, int64_t repo_id, const std::string& repo_name) const;

 private:
  struct Occurrence {
    size_t record;           // the record that says where it is
    long kernel_record = -1; // the record whose source it has (its group's row); -1 when missing
    std::string origin;
    nlohmann::json pytorch_code;
  };
  const std::vector<KernelRecord>& kernels_;
  std::vector<bool> owns_row_;
  std::vector<int64_t> row_id_;
  std::vector<long> canonical_;  // record -> record owning its kernels row (-1: none)
  std::vector<Occurrence> occurrences_;
};

}  // namespace mine
