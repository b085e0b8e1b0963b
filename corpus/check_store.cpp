#include "corpus/check_store.h"

#include <cctype>
#include <ctime>
#include <memory>
#include <set>

#include "core/error.h"
#include "core/sha256.h"
#include "corpus/sqlite_statement.h"
#include "core/utc_time.h"

namespace mine {
namespace {

void bind_real(SqliteStatement& s, int i, const std::optional<double>& v) {
  if (v) sqlite3_bind_double(s.raw(), i, *v);
  else s.bind_null(i);
}
void bind_int(SqliteStatement& s, int i, const std::optional<int64_t>& v) {
  if (v) s.bind(i, *v);
  else s.bind_null(i);
}
void bind_json(SqliteStatement& s, int i, const nlohmann::json& v) {
  if (v.is_null()) s.bind_null(i);
  else s.bind(i, v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace

std::vector<CheckKernel> select_check_kernels(const Corpus& read_only, const std::string& where, int64_t limit) {
  sqlite3* db = read_only.handle();
  if (sqlite3_db_readonly(db, "main") != 1)
    throw Error("internal: kernel selection must run on a read-only corpus connection");
  std::string condition = where.empty() ? "1" : where;
  std::string sql =
      "SELECT id, plugin, name, standalone, standalone_sha256, meta, repo, path, qualname, source_sha256 FROM kernels "
      "WHERE plugin IN ('triton', 'inductor', 'cuda', 'torch_module') AND standalone <> '' AND (" + condition + ") ORDER BY id LIMIT ?";
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  if (rc != SQLITE_OK) {
    std::string m = sqlite3_errmsg(db);
    if (rc == SQLITE_AUTH || m.find("not authorized") != std::string::npos)
      throw Error("--where: only reads are allowed in the condition");
    throw Error("--where \"" + where + "\": " + m);
  }
  for (const char* p = tail; p && *p; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';')
      throw Error("--where \"" + where + "\": must be one condition on kernels, not more statements");
  if (!stmt || !sqlite3_stmt_readonly(stmt.get())) throw Error("--where: only reads are allowed in the condition");
  sqlite3_bind_int64(stmt.get(), 1, limit > 0 ? limit : -1);
  std::vector<CheckKernel> out;
  while (true) {
    rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) throw Error("--where \"" + where + "\": " + sqlite3_errmsg(db));
    auto text = [&](int i) {
      const unsigned char* t = sqlite3_column_text(stmt.get(), i);
      return t ? std::string(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt.get(), i)))
               : std::string();
    };
    CheckKernel k;
    k.id = sqlite3_column_int64(stmt.get(), 0);
    k.plugin = text(1);
    k.name = text(2);
    k.standalone = text(3);
    k.standalone_sha256 = text(4);
    k.meta = nlohmann::json::parse(text(5), nullptr, false);
    if (k.meta.is_discarded()) k.meta = nlohmann::json::object();
    k.repo = text(6);
    k.path = text(7);
    k.qualname = text(8);
    k.source_sha256 = text(9);
    out.push_back(std::move(k));
  }
  return out;
}

std::set<int64_t> jitted_helper_kernels(const Corpus& read_only) {
  SqliteStatement q(read_only.handle(),
                    "SELECT DISTINCT h.id FROM kernel_deps d "
                    "JOIN kernels h ON h.name = d.name AND h.path = d.path AND h.start_line = d.start_line "
                    "JOIN kernels c ON c.id = d.kernel_id AND c.repo = h.repo AND c.id <> h.id "
                    "WHERE d.kind = 'jit_function' AND h.plugin = 'triton'");
  std::set<int64_t> out;
  while (q.step()) out.insert(q.column_int(0));
  return out;
}

std::vector<LibraryPackage> library_packages(const Corpus& corpus, const std::set<std::string>& packages) {
  // `pkg/__init__.py`, `src/pkg/__init__.py` or `python/pkg/__init__.py`: where an installable
  // package lives. Elsewhere (`tests/megatron`, `timm/utils`) it is test data, a vendored copy or
  // a subpackage, which `import megatron` / `import utils` would never reach once installed.
  SqliteStatement find(corpus.handle(),
                       "SELECT r.id, r.name, r.source_kind, coalesce(r.location, ''), coalesce(r.commit_id, ''), f.path "
                       "FROM files f JOIN repos r ON r.id = f.repo_id "
                       "WHERE f.path IN (?1 || '/__init__.py', 'src/' || ?1 || '/__init__.py', "
                       "'python/' || ?1 || '/__init__.py') "
                       "ORDER BY length(f.path), coalesce(r.stars, 0) DESC, r.id LIMIT 1");
  SqliteStatement files(corpus.handle(),
                        "SELECT path, blob_id FROM files WHERE repo_id = ? AND substr(path, 1, length(?2) + 1) = ?2 || '/' "
                        "AND path LIKE '%.py' ORDER BY path");
  std::vector<LibraryPackage> out;
  for (const auto& name : packages) {
    find.bind(1, name);
    if (!find.step()) {
      find.reset();
      continue;
    }
    LibraryPackage p;
    p.package = name;
    int64_t repo_id = find.column_int(0);
    p.repo = find.column_text(1);
    p.source_kind = find.column_text(2);
    p.location = find.column_text(3);
    p.commit_id = find.column_text(4);
    std::string init = find.column_text(5);
    p.dir = init.substr(0, init.size() - std::string("/__init__.py").size());
    find.reset();
    files.bind(1, repo_id).bind(2, p.dir);
    while (files.step()) p.files.emplace_back(files.column_text(0), files.column_text(1));
    files.reset();
    out.push_back(std::move(p));
  }
  return out;
}

std::map<int64_t, std::vector<std::string>> external_modules(const Corpus& corpus, const std::vector<int64_t>& ids) {
  SqliteStatement q(corpus.handle(), "SELECT external_modules FROM kernels WHERE id = ?");
  std::map<int64_t, std::vector<std::string>> out;
  for (int64_t id : ids) {
    q.bind(1, id);
    if (q.step()) {
      nlohmann::json names = nlohmann::json::parse(q.column_text(0), nullptr, false);
      if (names.is_array())
        for (const auto& n : names)
          if (n.is_string()) out[id].push_back(n.get<std::string>());
    }
    q.reset();
  }
  return out;
}

void attach_launches(const Corpus& read_only, std::vector<CheckKernel>& kernels) {
  SqliteStatement q(read_only.handle(),
                    "SELECT id, path, line, launcher, kind, callee, grid, grid_value, grid_env, options, args, complete, "
                    "expects_error FROM kernel_launches WHERE kernel_id=? ORDER BY path, line, id");
  auto parsed = [](const std::string& text, nlohmann::json fallback) {
    nlohmann::json v = nlohmann::json::parse(text, nullptr, false);
    return v.is_discarded() ? fallback : v;
  };
  for (auto& k : kernels) {
    q.bind(1, k.id);
    while (q.step()) {
      LaunchSite s;
      s.id = q.column_int(0);
      s.path = q.column_text(1);
      s.line = static_cast<int>(q.column_int(2));
      s.launcher = q.column_text(3);
      s.kind = q.column_text(4);
      s.callee = q.column_text(5);
      if (!q.column_is_null(6)) s.grid_text = q.column_text(6);
      if (!q.column_is_null(7)) s.grid = parsed(q.column_text(7), nullptr);
      s.grid_env = parsed(q.column_text(8), nlohmann::json::object());
      s.options = parsed(q.column_text(9), nlohmann::json::object());
      s.args = arguments_from_json(parsed(q.column_text(10), nlohmann::json::array()));
      s.complete = q.column_int(11) != 0;
      s.expects_error = q.column_int(12) != 0;
      k.launches.push_back(std::move(s));
    }
    q.reset();
  }
}

void store_signatures(Corpus& corpus, const std::vector<std::pair<CheckKernel, check::InferredSignature>>& inferred) {
  sqlite3* db = corpus.handle();
  SqliteTransaction tx(db);
  SqliteStatement put(db,
                      "INSERT OR REPLACE INTO kernel_signatures(kernel_id, signature, constexprs, guessed, origins, grid, "
                      "numels, options, autotune, notes, standalone_sha256, inferred_at, launch_id, launch_count) "
                      "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  std::string now = utc_now();
  for (const auto& [k, sig] : inferred) {
    put.bind(1, k.id).bind(2, sig.signature().dump()).bind(3, sig.constexprs().dump()).bind(4, sig.guessed().dump());
    put.bind(5, sig.origins().dump());
    bind_json(put, 6, sig.grid);
    put.bind(7, sig.numels.dump()).bind(8, sig.options.dump()).bind(9, sig.autotune.dump());
    put.bind(10, nlohmann::json(sig.notes).dump()).bind(11, k.standalone_sha256).bind(12, now);
    if (sig.launch_id) put.bind(13, sig.launch_id);
    else put.bind_null(13);
    put.bind(14, static_cast<int64_t>(sig.launch_count));
    put.run();
  }
  tx.commit();
}

IngestOutcome store_check_results(Corpus& corpus, const std::vector<check::CheckResultRow>& rows,
                                  const std::string& results_file) {
  sqlite3* db = corpus.handle();
  IngestOutcome outcome;
  SqliteTransaction tx(db);
  SqliteStatement kernel(db, "SELECT standalone_sha256 FROM kernels WHERE id=?");
  SqliteStatement add(db,
                      "INSERT INTO check_results(kernel_id, standalone_sha256, stage_requested, stage_reached, status, "
                      "error_class, message, compile_ms, n_regs, n_spills, shared_bytes, run_ms, arch, triton_version, "
                      "torch_version, driver_version, gpu, grid, constexprs, guessed, extra, results_file, checked_at, form, "
                      "rewrites) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  // A ported source lives beside the original, one per kernel and Triton version (008_ports.sql).
  SqliteStatement add_port(db,
                           "INSERT OR REPLACE INTO kernel_ports(kernel_id, triton_version, of_form, source, source_sha256, "
                           "original_sha256, rewrites, status, result_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)");
  SqliteStatement add_config(db, "INSERT INTO check_configs(result_id, kernel_id, config, time_ms, is_best, status, error_class, details) "
                             "VALUES (?,?,?,?,?,?,?,?)");
  std::string now = utc_now();
  for (const auto& r : rows) {
    kernel.bind(1, r.kernel_id);
    bool known = kernel.step();
    std::string sha = known ? kernel.column_text(0) : "";
    kernel.reset();
    if (!known) {
      outcome.unknown_kernels.push_back(r.kernel_id);
      continue;
    }
    add.bind(1, r.kernel_id).bind(2, sha).bind_optional(3, r.stage_requested).bind(4, r.stage_reached).bind(5, r.status);
    add.bind_optional(6, r.error_class).bind_optional(7, r.message);
    bind_real(add, 8, r.compile_ms);
    bind_int(add, 9, r.n_regs);
    bind_int(add, 10, r.n_spills);
    bind_int(add, 11, r.shared_bytes);
    bind_real(add, 12, r.run_ms);
    add.bind_optional(13, r.arch).bind_optional(14, r.triton_version).bind_optional(15, r.torch_version);
    add.bind_optional(16, r.driver_version).bind_optional(17, r.gpu);
    bind_json(add, 18, r.grid);
    bind_json(add, 19, r.constexprs);
    bind_json(add, 20, r.guessed);
    bind_json(add, 21, r.extra);
    add.bind(22, results_file).bind(23, now).bind(24, r.form);
    bind_json(add, 25, r.rewrites);
    add.run();
    int64_t result_id = sqlite3_last_insert_rowid(db);
    if (r.port.is_object()) {
      std::string source = r.port["source"].get<std::string>();
      add_port.bind(1, r.kernel_id).bind(2, r.triton_version).bind(3, r.port.value("of", std::string("standalone")));
      add_port.bind(4, source).bind(5, sha256_hex(source)).bind(6, sha);
      bind_json(add_port, 7, r.rewrites);
      add_port.bind(8, r.status).bind(9, result_id).bind(10, now);
      add_port.run();
    }
    ++outcome.results;
    for (const auto& c : r.configs) {
      add_config.bind(1, result_id).bind(2, r.kernel_id);
      bind_json(add_config, 3, c.config);
      bind_real(add_config, 4, c.time_ms);
      add_config.bind(5, c.is_best ? 1 : 0).bind_optional(6, c.status).bind_optional(7, c.error_class);
      add_config.bind(8, c.details.is_null() ? std::string("{}") : c.details.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
      add_config.run();
      ++outcome.configs;
    }
  }
  tx.commit();
  return outcome;
}

}  // namespace mine
