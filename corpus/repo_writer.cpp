#include "corpus/repo_writer.h"

#include <algorithm>
#include <ctime>
#include <tuple>
#include <string>

#include "core/error.h"
#include "core/launch/launch_binding.h"
#include "core/license/license_detector.h"
#include "core/sha256.h"
#include "corpus/inductor_store.h"
#include "corpus/sqlite_statement.h"
#include "plugins/inductor/inductor_records.h"
#include "core/utc_time.h"

namespace mine {
namespace {

// Dependency rows go in kDepBatch at a time, the rest of a kernel's rows in one more statement:
// a kernel reaching a whole runtime has hundreds, and one statement per row cost more than the
// rows themselves. Rowids follow the same order.
constexpr size_t kDepBatch = 32;

// The page cache while a repository is written (KiB; see begin()).
constexpr int64_t kWriteCacheKiB = 16 << 10;

// How much kernel text is stored between two requests to start the WAL's writeback: a dozen
// requests for FlagGems' 50 MB of kernel text (94 MB of WAL).
constexpr size_t kWritebackBytes = 4 << 20;

std::string dep_insert_sql(size_t rows) {
  std::string sql = "INSERT INTO kernel_deps(kernel_id, name, kind, path, start_line) VALUES (?,?,?,?,?)";
  for (size_t r = 1; r < rows; ++r) sql += ",(?,?,?,?,?)";
  return sql;
}

}  // namespace

// Prepared once per repository, reused for every row (declared in the transaction's order).
struct RepoWriter::Statements {
  explicit Statements(sqlite3* db)
      : tx(db),
        add_file(db, "INSERT INTO files(repo_id, path, blob_id, size, parsed, kernel_count, encoding) VALUES (?, ?, ?, ?, ?, ?, ?)"),
        find(db, "SELECT id FROM kernels WHERE repo_id=? AND path=? AND qualname=? AND source_sha256=?"),
        insert(db,
               "INSERT INTO kernels(plugin, name, qualname, repo, repo_id, path, start_line, end_line, "
               "source, standalone, source_sha256, standalone_sha256, self_contained, external_modules, "
               "meta, commit_id, license, license_source) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        update(db,
               "UPDATE kernels SET plugin=?, name=?, start_line=?, end_line=?, standalone=?, "
               "standalone_sha256=?, self_contained=?, external_modules=?, meta=?, commit_id=?, license=?, "
               "license_source=? WHERE id=?"),
        drop_deps(db, "DELETE FROM kernel_deps WHERE kernel_id=?"),
        add_deps(kDepBatch + 1),
        add_problem(db, "INSERT INTO scan_errors(scan_id, repo, path, line, kind, message) VALUES (?,?,?,?,?,?)") {}
  SqliteTransaction tx;  // first: rolled back after the statements are finalized
  SqliteStatement add_file, find, insert, update, drop_deps;
  std::vector<std::unique_ptr<SqliteStatement>> add_deps;  // by rows, prepared when first needed
  SqliteStatement add_problem;

  SqliteStatement& dep_insert(sqlite3* db, size_t rows) {
    if (!add_deps[rows]) add_deps[rows] = std::make_unique<SqliteStatement>(db, dep_insert_sql(rows));
    return *add_deps[rows];
  }
};

RepoWriter::RepoWriter(Corpus& corpus, int64_t scan_id, const RepoSnapshot& header)
    : corpus_(corpus), scan_id_(scan_id) {
  header_.name = header.name;
  header_.source_kind = header.source_kind;
  header_.location = header.location;
  header_.commit_id = header.commit_id;
  header_.license = header.license;
  header_.local_path = header.local_path;
  header_.origin_url = header.origin_url;
}

RepoWriter::~RepoWriter() {
  st_.reset();  // rolls back unless committed, before the settings are restored
}

void RepoWriter::begin() {
  if (st_) return;
  sqlite3* db = corpus_.handle();
  // A batch of dependency rows can fail half-way, so SQLite journals what each batch overwrites:
  // with 16 KB pages that outgrows the 64 KB it keeps in memory and goes to a temporary file,
  // tens of MB per large repository. In memory while this writer runs (its statements make no
  // other temporary data), the connection's own setting restored afterwards.
  temp_store_ = std::make_unique<PragmaOverride>(db, "temp_store", 2 /* MEMORY */);
  // A repository's transaction writes tens of MB (FlagGems 94 MB), its texts streaming through
  // the page cache: with SQLite's default 2 MB the index pages every row updates were pushed out
  // to the WAL and read back again and again (11,665 page reads and 22,751 writes on FlagGems,
  // 6,198 and 17,302 with 16 MB, where each page goes to the WAL once). 16 MB at most, while
  // this writer runs.
  cache_size_ = std::make_unique<PragmaOverride>(db, "cache_size", -kWriteCacheKiB);
  wal_writeback_ = std::make_unique<WalWriteback>(db);
  st_ = std::make_unique<Statements>(db);
  SqliteStatement upsert_repo(db,
                              "INSERT INTO repos(name, source_kind, location, commit_id, scanned_at) "
                              "VALUES (?, ?, ?, ?, ?) ON CONFLICT(name) DO UPDATE SET "
                              "source_kind=excluded.source_kind, location=excluded.location, "
                              "commit_id=excluded.commit_id, scanned_at=excluded.scanned_at");
  adopt_path_named_row(db);
  upsert_repo.bind(1, header_.name).bind(2, header_.source_kind).bind(3, header_.location);
  upsert_repo.bind_optional(4, header_.commit_id).bind(5, utc_now());
  upsert_repo.run();
  SqliteStatement repo_id_of(db, "SELECT id FROM repos WHERE name=?");
  repo_id_of.bind(1, header_.name);
  repo_id_of.step();
  repo_id_ = repo_id_of.column_int(0);
  repo_id_of.reset();
  if (!header_.local_path.empty()) {  // crawls leave these as the local scan set them
    SqliteStatement where(db, "UPDATE repos SET local_path=?, origin_url=? WHERE id=?");
    where.bind(1, header_.local_path).bind_optional(2, header_.origin_url).bind(3, repo_id_);
    where.run();
  }

  record_license(db);

  SqliteStatement drop_files(db, "DELETE FROM files WHERE repo_id=?");
  drop_files.bind(1, repo_id_);
  drop_files.run();
  SqliteStatement ids(db, "SELECT id FROM kernels WHERE repo_id=?");
  ids.bind(1, repo_id_);
  while (ids.step()) previous_.insert(ids.column_int(0));
  ids.reset();
}

void RepoWriter::adopt_path_named_row(sqlite3* db) {
  if (header_.local_path.empty() || header_.local_path == header_.name) return;
  SqliteStatement taken(db, "SELECT 1 FROM repos WHERE name=?");
  taken.bind(1, header_.name);
  if (taken.step()) return;  // already known by its GitHub name (crawled, or scanned before)
  taken.reset();
  SqliteStatement rename(db, "UPDATE repos SET name=? WHERE name=?");
  rename.bind(1, header_.name).bind(2, header_.local_path);
  rename.run();
  if (sqlite3_changes(db) == 0) return;
  SqliteStatement kernels(db, "UPDATE kernels SET repo=? WHERE repo=?");
  kernels.bind(1, header_.name).bind(2, header_.local_path);
  kernels.run();
}

void RepoWriter::record_license(sqlite3* db) {
  std::string api;
  {
    SqliteStatement api_of(db, "SELECT license FROM repos WHERE id=?");
    api_of.bind(1, repo_id_);
    if (api_of.step() && !api_of.column_is_null(0)) api = api_of.column_text(0);
  }
  const RepoLicense& file = header_.license;
  // GitHub says NOASSERTION when its own detector found a license file it could not name.
  bool api_named = !api.empty() && api != "NOASSERTION";
  std::string disagreement;
  if (api_named && !file.spdx_id.empty() && !same_license(api, file.spdx_id))
    disagreement = "api " + api + ", file " + file.spdx_id;
  SqliteStatement update(db,
                         "UPDATE repos SET license_file=?, license_file_path=?, license_file_confidence=?, "
                         "license_disagreement=? WHERE id=?");
  update.bind_optional(1, file.spdx_id).bind_optional(2, file.path);
  if (file.path.empty()) {
    update.bind_null(3);
  } else {
    update.bind(3, file.confidence);
  }
  update.bind_optional(4, disagreement).bind(5, repo_id_);
  update.run();
  if (api_named) {
    repo_license_ = api;
    repo_license_source_ = "api";
  } else if (!file.spdx_id.empty()) {
    repo_license_ = file.spdx_id;
    repo_license_source_ = "file";
  } else {
    repo_license_.clear();
    repo_license_source_ = "none";
  }
}

void RepoWriter::add(const FileRecord& f) {
  begin();
  auto& s = st_->add_file;
  s.bind(1, repo_id_).bind(2, f.path).bind(3, f.blob_id).bind(4, f.size).bind(5, f.parsed ? 1 : 0);
  s.bind(6, f.kernel_count).bind_optional(7, f.encoding);
  s.run();
}

void RepoWriter::add(const KernelRecord& rec) {
  begin();
  if (rec.plugin == inductor::kPlugin) {
    inductor_.push_back(rec);
    return;
  }
  write_kernel(rec);
}

void RepoWriter::add(const ScanProblem& p) {
  begin();
  auto& s = st_->add_problem;
  s.bind(1, scan_id_).bind(2, header_.name).bind(3, p.path);
  if (p.line > 0) {
    s.bind(4, p.line);
  } else {
    s.bind_null(4);
  }
  s.bind(5, p.kind).bind(6, p.message);
  s.run();
}

void RepoWriter::add(const ScannedFile& file) {
  add_rows(file);
  add(file.launches);
}

void RepoWriter::add(ScannedFile&& file) {
  add_rows(file);
  add(std::move(file.launches));
}

void RepoWriter::add_rows(const ScannedFile& file) {
  add(file.file);
  for (const auto& k : file.kernels) add(k);
  for (const auto& p : file.problems) add(p);
  for (const auto& k : file.kernels) unflushed_bytes_ += k.kernel.standalone.size() + k.kernel.source.size();
  if (unflushed_bytes_ >= kWritebackBytes) {
    wal_writeback_->start();
    unflushed_bytes_ = 0;
  }
}

void RepoWriter::add(std::vector<LaunchSite> launches) {
  for (LaunchSite& l : launches) {
    launches_.push_back(std::move(l));
    LaunchSite& kept = launches_.back();
    int64_t standalone = -1, source = -1;
    if (!kept.launcher_standalone.empty()) {
      source = keep_launcher_text(std::move(kept.launcher_source));
      standalone = keep_launcher_text(std::move(kept.launcher_standalone));
    }
    std::string().swap(kept.launcher_source);
    std::string().swap(kept.launcher_standalone);
    launch_texts_.emplace_back(source, standalone);
  }
}

size_t RepoWriter::SampledTextHash::operator()(std::string_view text) const {
  constexpr size_t kEnds = 128, kSamples = 32, kSample = 8;
  std::hash<std::string_view> h;
  if (text.size() <= 2 * kEnds + kSamples * kSample) return h(text);
  // The length, both ends (a launcher's imports, its own text) and evenly spaced samples between.
  size_t seed = h(text.substr(0, kEnds)) ^ (h(text.substr(text.size() - kEnds)) * 31) ^ (text.size() * 1000003);
  size_t step = (text.size() - 2 * kEnds - kSample) / kSamples;
  for (size_t i = 0; i < kSamples; ++i) seed = seed * 131 + h(text.substr(kEnds + i * step, kSample));
  return seed;
}

int64_t RepoWriter::keep_launcher_text(std::string&& text) {
  auto found = launcher_text_index_.find(text);
  if (found != launcher_text_index_.end()) return found->second;
  launcher_texts_.push_back(std::move(text));
  int64_t index = static_cast<int64_t>(launcher_texts_.size()) - 1;
  launcher_text_index_.emplace(launcher_texts_.back(), index);
  return index;
}

// Every launch of the repository is written again at each scan: a launcher in one file may start
// launching a kernel of another file that did not change.
struct RepoWriter::WrittenTarget {
  LaunchTarget target;
  std::string source_sha256;  // the last column of the kernels' unique index
};

namespace {

// What launches link to in a kernel: its names and the parameters its meta lists.
LaunchTarget launch_target(int64_t id, const KernelRecord& rec) {
  const ExtractedKernel& k = rec.kernel;
  LaunchTarget t;
  t.id = id;
  t.name = k.name;
  t.path = rec.path;
  t.qualname = k.qualname;
  t.line = k.start_line;
  const nlohmann::json& meta = k.meta;
  if (meta.is_object() && meta.contains("parameters") && meta["parameters"].is_array())
    for (const auto& p : meta["parameters"]) {
      std::string name = p.is_object() ? p.value("name", "") : p.is_string() ? p.get<std::string>() : "";
      // Comments between parameters are listed in meta too (`# output residual`).
      if (name.empty() || name[0] == '*' || name[0] == '#') continue;
      t.params.push_back(name);
      t.defaulted.push_back(p.is_object() && p.contains("default"));
    }
  return t;
}

}  // namespace

void RepoWriter::store_launches() {
  sqlite3* db = corpus_.handle();
  SqliteStatement drop(db, "DELETE FROM kernel_launches WHERE repo_id=?");
  drop.bind(1, repo_id_);
  drop.run();
  if (launches_.empty()) return;
  // Every kernel of the repository left at commit was written by this writer (the others were
  // removed), in the order the kernels' unique index lists them: linking keeps the first of
  // same-named candidates, so the order is the one a query over that index gave.
  std::sort(targets_.begin(), targets_.end(), [](const WrittenTarget& a, const WrittenTarget& b) {
    return std::tie(a.target.path, a.target.qualname, a.source_sha256) <
           std::tie(b.target.path, b.target.qualname, b.source_sha256);
  });
  std::vector<LaunchTarget> targets;
  targets.reserve(targets_.size());
  for (auto& t : targets_) targets.push_back(std::move(t.target));
  SqliteStatement put(db,
                      "INSERT INTO kernel_launches(kernel_id, repo_id, path, line, launcher, kind, callee, grid, grid_value, "
                      "grid_env, options, args, complete, launcher_source, launcher_standalone, launcher_self_contained, "
                      "expects_error) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (const LinkedLaunch& l : link_launches(targets, launches_)) {
    const LaunchSite& s = l.site;
    nlohmann::json args = arguments_json(s.args);
    put.bind(1, l.kernel_id).bind(2, repo_id_).bind(3, s.path).bind(4, s.line).bind(5, s.launcher).bind(6, s.kind);
    put.bind(7, s.callee);
    if (s.grid_text.empty()) put.bind_null(8);
    else put.bind(8, s.grid_text);
    if (s.grid.is_null()) put.bind_null(9);
    else put.bind(9, s.grid.dump());
    put.bind(10, s.grid_env.dump()).bind(11, s.options.dump());
    put.bind(12, args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)).bind(13, s.complete ? 1 : 0);
    put.bind(17, s.expects_error ? 1 : 0);
    auto [source, standalone] = launch_texts_[l.launch];
    if (standalone < 0) {
      put.bind_null(14).bind_null(15).bind_null(16);
    } else {
      put.bind_static(14, launcher_texts_[static_cast<size_t>(source)])
          .bind_static(15, launcher_texts_[static_cast<size_t>(standalone)]);
      put.bind(16, s.launcher_self_contained ? 1 : 0);
    }
    put.run();
  }
}

int64_t RepoWriter::write_kernel(const KernelRecord& rec) {
  Statements& st = *st_;
  const ExtractedKernel& k = rec.kernel;
  std::string source_sha = sha256_hex(k.source);
  std::string standalone_sha = standalone_sha_.hex(k.standalone);
  nlohmann::json externals(k.external_modules);
  std::string dumped;  // the meta's text, unless the scan made it already
  const std::string* meta = &rec.meta_text;
  if (meta->empty()) meta = &(dumped = k.meta.dump());
  st.find.bind(1, repo_id_).bind(2, rec.path).bind(3, k.qualname).bind(4, source_sha);
  int64_t id = st.find.step() ? st.find.column_int(0) : 0;
  st.find.reset();
  if (id && kept_.count(id)) return id;  // the same definition twice in one file (if/else variants)
  bool tagged = !rec.spdx_header.empty();
  const std::string& license = tagged ? rec.spdx_header : repo_license_;
  const std::string& license_source = tagged ? std::string("spdx-header") : repo_license_source_;
  // The texts outlive each statement's run: bound without a copy (standalones reaching a whole
  // runtime are tens of KB each).
  if (id) {
    st.update.bind(1, rec.plugin).bind(2, k.name).bind(3, k.start_line).bind(4, k.end_line);
    st.update.bind_static(5, k.standalone);
    st.update.bind(6, standalone_sha).bind(7, k.self_contained ? 1 : 0).bind(8, externals.dump());
    st.update.bind(9, *meta).bind_optional(10, header_.commit_id);
    st.update.bind_optional(11, license).bind(12, license_source).bind(13, id);
    st.update.run();
    ++outcome_.kernels_kept;
  } else {
    st.insert.bind(1, rec.plugin).bind(2, k.name).bind(3, k.qualname).bind(4, header_.name).bind(5, repo_id_);
    st.insert.bind(6, rec.path).bind(7, k.start_line).bind(8, k.end_line);
    st.insert.bind_static(9, k.source).bind_static(10, k.standalone);
    st.insert.bind(11, source_sha).bind(12, standalone_sha).bind(13, k.self_contained ? 1 : 0);
    st.insert.bind(14, externals.dump()).bind(15, *meta).bind_optional(16, header_.commit_id);
    st.insert.bind_optional(17, license).bind(18, license_source);
    st.insert.run();
    id = sqlite3_last_insert_rowid(corpus_.handle());
    ++outcome_.kernels_added;
  }
  kept_.insert(id);
  if (rec.plugin == "triton") targets_.push_back({launch_target(id, rec), source_sha});
  st.drop_deps.bind(1, id);
  st.drop_deps.run();
  auto bind_dep = [&](SqliteStatement& s, int at, const Dependency& d) {
    s.bind(at + 1, id).bind_static(at + 2, d.name).bind_static(at + 3, d.kind);
    if (d.path.empty()) {
      s.bind_null(at + 4);
    } else {
      s.bind_static(at + 4, d.path);
    }
    if (d.start_line > 0) {
      s.bind(at + 5, d.start_line);
    } else {
      s.bind_null(at + 5);
    }
  };
  for (size_t next = 0, count = k.dependencies.size(); next < count;) {
    size_t rows = std::min(kDepBatch, count - next);
    SqliteStatement& add = st.dep_insert(corpus_.handle(), rows);
    for (size_t r = 0; r < rows; ++r) bind_dep(add, static_cast<int>(5 * r), k.dependencies[next + r]);
    add.run();
    next += rows;
  }
  return id;
}

StoreOutcome RepoWriter::commit() {
  begin();
  sqlite3* db = corpus_.handle();
  InductorRows inductor(inductor_);  // one row per distinct Inductor kernel; see 002_inductor.sql
  for (size_t i = 0; i < inductor_.size(); ++i)
    if (inductor.owns_row(i)) inductor.set_row_id(i, write_kernel(inductor_[i]));
  SqliteStatement drop_kernel(db, "DELETE FROM kernels WHERE id=?");
  for (int64_t id : previous_) {
    if (kept_.count(id)) continue;
    drop_kernel.bind(1, id);
    drop_kernel.run();
    ++outcome_.kernels_removed;
  }
  inductor.store(db, scan_id_, repo_id_, header_.name);
  store_launches();
  st_->tx.commit();
  st_.reset();
  cache_size_->restore();
  temp_store_->restore();
  return outcome_;
}

}  // namespace mine
