#pragma once
// Scans a folder with given plugins into a fresh corpus file, for the inductor tests that check
// what is stored rather than what is extracted.
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

#include "core/scan/scanner.h"
#include "corpus/corpus.h"

namespace mine::testing {

class ScannedCorpus {
 public:
  ScannedCorpus() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("mine_inductor_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".db");
    remove_files();
    corpus_ = Corpus::open(path_.string(), Corpus::Access::ReadWrite);
  }
  ~ScannedCorpus() {
    corpus_.reset();
    remove_files();
  }

  RepoSnapshot scan(const std::string& folder, std::vector<const ExtractorPlugin*> plugins) {
    Scanner scanner(std::move(plugins), ScanOptions{});
    auto tree = open_source_tree(folder);
    RepoSnapshot snap = scanner.extract(*tree, folder);
    int64_t scan_id = corpus_->begin_scan("scan", nlohmann::json::array({folder}));
    corpus_->store(scan_id, snap);
    return snap;
  }

  QueryResult query(const std::string& sql) const { return corpus_->query(sql); }
  int64_t count(const std::string& sql) const { return query(sql).rows.at(0).at(0).get<int64_t>(); }

 private:
  void remove_files() {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix, ec);
  }
  std::filesystem::path path_;
  std::unique_ptr<Corpus> corpus_;
};

}  // namespace mine::testing
