#pragma once
// A fresh corpus file holding the scan of one folder, for the `mine check` store tests.
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "core/scan/scanner.h"
#include "corpus/corpus.h"

namespace mine::testing {

class CheckCorpus {
 public:
  explicit CheckCorpus(const std::string& folder) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("mine_check_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".db"))
                .string();
    remove_files();
    corpus_ = Corpus::open(path_, Corpus::Access::ReadWrite);
    Scanner scanner(all_plugins(), ScanOptions{});
    auto tree = open_source_tree(folder);
    RepoSnapshot snap = scanner.extract(*tree, folder);
    corpus_->store(corpus_->begin_scan("scan", nlohmann::json::array({folder})), snap);
  }
  ~CheckCorpus() {
    corpus_.reset();
    remove_files();
  }
  Corpus& rw() { return *corpus_; }
  std::unique_ptr<Corpus> read_only() const { return Corpus::open(path_, Corpus::Access::ReadOnly); }
  const std::string& path() const { return path_; }
  int64_t count(const std::string& sql) const { return corpus_->query(sql).rows.at(0).at(0).get<int64_t>(); }

 private:
  void remove_files() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + suffix, ec);
  }
  std::string path_;
  std::unique_ptr<Corpus> corpus_;
};

}  // namespace mine::testing
