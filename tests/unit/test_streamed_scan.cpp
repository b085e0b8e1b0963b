// `mine scan` stores each file while later ones are still extracted (Scanner::extract with a
// delivery callback, corpus/RepoWriter): the result must equal extracting everything first and
// storing the snapshot, nothing may be visible before the commit, and a failing delivery must
// stop the threads and leave the corpus as it was.
#include <catch2/catch.hpp>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/scan/scanner.h"
#include "corpus/corpus.h"
#include "corpus/repo_writer.h"

using namespace mine;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  TempDir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / ("mine_streamed_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path path;
};

// The cross-file fixtures (imports between files) and eight copies of the Triton fixtures: more
// files than extraction may run ahead of delivery.
fs::path make_tree(const fs::path& root) {
  fs::path tree = root / "tree";
  fs::create_directories(tree);
  fs::copy(fs::path(MINE_FIXTURES_DIR) / "crossfile", tree / "crossfile", fs::copy_options::recursive);
  for (int i = 0; i < 8; ++i)
    fs::copy(fs::path(MINE_FIXTURES_DIR) / "triton", tree / ("copy" + std::to_string(i)), fs::copy_options::recursive);
  return tree;
}

std::vector<std::string> rows(Corpus& corpus, const std::string& sql) {
  std::vector<std::string> out;
  for (const auto& row : corpus.query(sql).rows) {
    std::string line;
    for (const auto& cell : row) line += cell.dump() + "|";
    out.push_back(line);
  }
  return out;
}

int64_t count(Corpus& corpus, const std::string& sql) { return corpus.query(sql).rows.at(0).at(0).get<int64_t>(); }

const char* kKernels =
    "SELECT id, plugin, name, qualname, path, start_line, end_line, source_sha256, standalone_sha256, "
    "self_contained, external_modules, meta FROM kernels ORDER BY id";
const char* kDeps = "SELECT rowid, kernel_id, name, kind, path, start_line FROM kernel_deps ORDER BY rowid";
const char* kFiles = "SELECT path, blob_id, size, parsed, kernel_count FROM files ORDER BY rowid";
const char* kProblems = "SELECT path, line, kind, message FROM scan_errors ORDER BY rowid";

}  // namespace

TEST_CASE("a streamed scan stores what extracting first and storing the snapshot stores", "[scan][corpus]") {
  TempDir dir;
  fs::path tree_path = make_tree(dir.path);
  ScanOptions options;
  options.jobs = 2;
  Scanner scanner(all_plugins(), options);
  auto tree = open_source_tree(tree_path.string());

  RepoSnapshot snap = scanner.extract(*tree, "repo");
  REQUIRE(snap.files.size() > 100);
  REQUIRE(snap.kernels.size() > 50);
  auto whole = Corpus::open((dir.path / "whole.db").string(), Corpus::Access::ReadWrite);
  whole->store(whole->begin_scan("scan", nlohmann::json::array()), snap);

  auto streamed = Corpus::open((dir.path / "streamed.db").string(), Corpus::Access::ReadWrite);
  int64_t scan_id = streamed->begin_scan("scan", nlohmann::json::array());
  RepoWriter writer(*streamed, scan_id, snapshot_header(*tree, "repo"));
  std::vector<std::string> delivered;
  int64_t seen_before_commit = -1;
  StoreOutcome outcome;
  scanner.extract(
      *tree, "repo",
      [&](ScannedFile&& f) {
        delivered.push_back(f.file.path);
        writer.add(f);
      },
      [&] {
        // Everything is written but not committed: another connection sees none of it.
        auto reader = Corpus::open((dir.path / "streamed.db").string(), Corpus::Access::ReadOnly);
        seen_before_commit = count(*reader, "SELECT count(*) FROM kernels") + count(*reader, "SELECT count(*) FROM files");
        outcome = writer.commit();
      });

  // Delivered one by one, in the tree's order.
  REQUIRE(delivered.size() == snap.files.size());
  for (size_t i = 0; i < delivered.size(); ++i) CHECK(delivered[i] == snap.files[i].path);
  CHECK(seen_before_commit == 0);
  CHECK(outcome.kernels_added == count(*streamed, "SELECT count(*) FROM kernels"));
  CHECK(count(*streamed, "SELECT count(*) FROM kernel_deps") > 0);
  CHECK(rows(*streamed, kKernels) == rows(*whole, kKernels));
  CHECK(rows(*streamed, kDeps) == rows(*whole, kDeps));
  CHECK(rows(*streamed, kFiles) == rows(*whole, kFiles));
  CHECK(rows(*streamed, kProblems) == rows(*whole, kProblems));
  // The writer keeps its statement journals in memory, and its larger page cache, only while it runs.
  CHECK(streamed->query("PRAGMA temp_store").rows.at(0).at(0) == 0);
  CHECK(streamed->query("PRAGMA cache_size").rows.at(0).at(0) == -2000);
}

TEST_CASE("a delivery that fails stops the scan and leaves the corpus as it was", "[scan][corpus]") {
  TempDir dir;
  fs::path tree_path = make_tree(dir.path);
  ScanOptions options;
  options.jobs = 2;
  Scanner scanner(all_plugins(), options);
  auto tree = open_source_tree(tree_path.string());
  auto corpus = Corpus::open((dir.path / "c.db").string(), Corpus::Access::ReadWrite);
  corpus->store(corpus->begin_scan("scan", nlohmann::json::array()), scanner.extract(*tree, "repo"));
  auto before_kernels = rows(*corpus, kKernels);
  auto before_files = rows(*corpus, kFiles);

  // A rescan whose store fails half-way (as when the disk fills): the exception reaches the
  // caller once the threads have stopped, and the transaction is rolled back.
  fs::remove_all(tree_path / "copy3");
  auto changed = open_source_tree(tree_path.string());
  size_t delivered = 0;
  bool finished = false;
  {
    RepoWriter writer(*corpus, corpus->begin_scan("scan", nlohmann::json::array()), snapshot_header(*changed, "repo"));
    auto failing = [&](ScannedFile&& f) {
      writer.add(f);
      if (++delivered == 20) throw std::runtime_error("disk full");
    };
    REQUIRE_THROWS_WITH(scanner.extract(*changed, "repo", failing, [&] { finished = true; }), "disk full");
  }
  CHECK(delivered == 20);
  CHECK_FALSE(finished);
  CHECK(corpus->query("PRAGMA temp_store").rows.at(0).at(0) == 0);
  CHECK(corpus->query("PRAGMA cache_size").rows.at(0).at(0) == -2000);
  CHECK(rows(*corpus, kKernels) == before_kernels);
  CHECK(rows(*corpus, kFiles) == before_files);

  // The same rescan, not failing, replaces the repository's rows.
  {
    RepoWriter writer(*corpus, corpus->begin_scan("scan", nlohmann::json::array()), snapshot_header(*changed, "repo"));
    scanner.extract(*changed, "repo", [&](ScannedFile&& f) { writer.add(f); });
    StoreOutcome outcome = writer.commit();
    CHECK(outcome.kernels_removed > 0);
    CHECK(outcome.kernels_added == 0);
  }
  CHECK(count(*corpus, "SELECT count(*) FROM files WHERE path LIKE 'copy3/%'") == 0);
  CHECK(count(*corpus, "SELECT count(*) FROM kernels WHERE path LIKE 'copy3/%'") == 0);
  CHECK(count(*corpus, "SELECT count(*) FROM kernels WHERE path LIKE 'copy2/%'") > 0);
}

TEST_CASE("a new corpus gets 16 KB pages and an existing one keeps its own", "[corpus]") {
  TempDir dir;
  std::string old_path = (dir.path / "old.db").string();
  {
    auto fresh = Corpus::open((dir.path / "new.db").string(), Corpus::Access::ReadWrite);
    CHECK(fresh->query("PRAGMA page_size").rows.at(0).at(0) == 16384);
    // A corpus made with SQLite's default pages, as every mine before this one made them.
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(old_path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA page_size=4096; CREATE TABLE t(x); DROP TABLE t;", nullptr, nullptr, nullptr) ==
            SQLITE_OK);
    sqlite3_close(db);
  }
  auto old = Corpus::open(old_path, Corpus::Access::ReadWrite);
  CHECK(old->schema_version() == known_schema_version());
  CHECK(old->query("PRAGMA page_size").rows.at(0).at(0) == 4096);
}

TEST_CASE("files are delivered in order whatever the number of threads and files", "[scan]") {
  TempDir dir;
  fs::path big = make_tree(dir.path);
  fs::path small = dir.path / "small";
  fs::create_directories(small);
  fs::copy(fs::path(MINE_FIXTURES_DIR) / "crossfile" / "cycles", small, fs::copy_options::recursive);
  for (const fs::path& root : {big, small}) {
    auto tree = open_source_tree(root.string());
    std::vector<std::string> listed;
    for (const auto& e : tree->list([](std::string_view) { return true; })) listed.push_back(e.path);
    std::vector<std::string> expected;
    for (int jobs : {1, 2, 3, 16}) {
      ScanOptions options;
      options.jobs = jobs;
      Scanner scanner(all_plugins(), options);
      std::vector<std::string> delivered;
      size_t kernels = 0;
      scanner.extract(*tree, "repo", [&](ScannedFile&& f) {
        delivered.push_back(f.file.path);
        kernels += f.kernels.size();
      });
      INFO(root << " with " << jobs << " threads");
      CHECK(std::is_sorted(delivered.begin(), delivered.end(), [&](const std::string& a, const std::string& b) {
        return std::find(listed.begin(), listed.end(), a) < std::find(listed.begin(), listed.end(), b);
      }));
      CHECK(kernels > 0);
      if (expected.empty()) expected = delivered;
      CHECK(delivered == expected);
    }
    CHECK(expected.size() >= (root == small ? 2u : 100u));
  }
}

// Extraction runs ahead of a slow delivery until the undelivered files hold a few MB (here each
// kernel's standalone inlines a 200 KB helper: 48 kernels, about 10 MB, run ahead of one),
// and past any number of files that hold nothing (the 400 empty modules). What is delivered,
// and in which order, is what a single thread extracts.
TEST_CASE("extraction runs ahead of a slow delivery by what files hold, in order", "[scan]") {
  TempDir dir;
  fs::path tree = dir.path / "tree";
  fs::create_directories(tree / "pkg");
  std::string big = "def helper(x):\n    return x\n\n\nTABLE = '" + std::string(200 << 10, 'a') + "'\n\n\n"
                    "def uses_table(x):\n    return len(TABLE) + x\n";
  { std::ofstream(tree / "pkg" / "helpers.py") << big; }
  for (int i = 0; i < 400; ++i) std::ofstream(tree / "pkg" / ("empty_" + std::to_string(1000 + i) + ".py")) << "x = " << i << "\n";
  for (int i = 0; i < 48; ++i)
    std::ofstream(tree / "pkg" / ("kernel_" + std::to_string(1000 + i) + ".py"))
        << "import triton\nimport triton.language as tl\nfrom pkg.helpers import uses_table\n\n\n"
        << "@triton.jit\ndef kernel_" << i << "(x_ptr):\n    tl.store(x_ptr, uses_table(" << i << "))\n";
  auto source = open_source_tree(tree.string());
  ScanOptions one;
  one.jobs = 1;
  RepoSnapshot alone = Scanner(all_plugins(), one).extract(*source, "repo");
  REQUIRE(alone.kernels.size() == 48);
  REQUIRE(alone.kernels.front().kernel.standalone.size() > (200 << 10));

  ScanOptions two;
  two.jobs = 2;
  Scanner scanner(all_plugins(), two);
  std::vector<std::string> paths, standalones;
  // Stored as `mine scan` stores, file by file: the 10 MB of kernel text cross the writer's step
  // for starting the WAL's writeback (4 MB) twice, and the rows are those of storing the snapshot.
  auto streamed = Corpus::open((dir.path / "streamed.db").string(), Corpus::Access::ReadWrite);
  RepoWriter writer(*streamed, streamed->begin_scan("scan", nlohmann::json::array()), snapshot_header(*source, "repo"));
  scanner.extract(*source, "repo", [&](ScannedFile&& f) {
    paths.push_back(f.file.path);
    for (const auto& k : f.kernels) standalones.push_back(k.kernel.standalone);
    writer.add(f);
    std::this_thread::sleep_for(std::chrono::milliseconds(f.kernels.empty() ? 0 : 5));
  }, [&] { writer.commit(); });
  REQUIRE(paths.size() == alone.files.size());
  for (size_t i = 0; i < paths.size(); ++i) CHECK(paths[i] == alone.files[i].path);
  REQUIRE(standalones.size() == alone.kernels.size());
  for (size_t i = 0; i < standalones.size(); ++i) CHECK(standalones[i] == alone.kernels[i].kernel.standalone);
  auto whole = Corpus::open((dir.path / "whole.db").string(), Corpus::Access::ReadWrite);
  whole->store(whole->begin_scan("scan", nlohmann::json::array()), alone);
  CHECK(rows(*streamed, kKernels) == rows(*whole, kKernels));
  CHECK(rows(*streamed, kDeps) == rows(*whole, kDeps));
  CHECK(rows(*streamed, kFiles) == rows(*whole, kFiles));
  CHECK(count(*streamed, "SELECT sum(length(standalone)) FROM kernels") > (8 << 20));  // twice the step
}
