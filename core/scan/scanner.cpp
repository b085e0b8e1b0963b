#include "core/scan/scanner.h"

#include "core/repo/root_package.h"
#include "core/repo/call_index.h"

#include "core/license/license_detector.h"
#include "core/scan/prefilter.h"
#include "core/scan/repo_license.h"
#include "core/scan/source_encoding.h"

#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <functional>
#include <cstdlib>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <thread>

#include "core/error.h"
#include "core/notebook/notebook_reader.h"
#include "core/launch/launch_finder.h"
#include "core/repo/module_cache.h"
#include "core/repo/module_index.h"
#include "core/repo/repository_closure.h"
#include "core/scan/text_checks.h"
#include "plugins/python_definitions/python_definition.h"
#include "plugins/registry.h"

namespace mine {

namespace {

bool has_suffix(std::string_view path, const std::string& suffix) {
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const std::string kNotebook = ".ipynb";

// Plugins that read Python read notebooks too: their code cells are Python.
bool accepts(const ExtractorPlugin& p, std::string_view path) {
  for (const auto& s : p.file_suffixes())
    if (has_suffix(path, s) || (s == ".py" && has_suffix(path, kNotebook))) return true;
  return false;
}

// Why a file's bytes are not source text, or empty when they are; a Python file declaring
// another encoding (PEP 263) is decoded to UTF-8 in place.
std::string unusable(const std::string& path, std::string& content) {
  if (looks_binary(content)) return "binary";
  if (has_suffix(path, ".py")) return decode_python_source(content).error.empty() ? "" : "encoding";
  if (first_invalid_utf8(content) != std::string::npos) return "encoding";
  return "";
}

// What a plugin sees of a file: the closure reaches into every file of the tree. The file is
// parsed only when a plugin asks for it, so plugins that read text (Inductor's FX graphs) never
// pay for a parse.
class RepositoryFileView : public FileView {
 public:
  using Parse = std::function<const PythonModule*()>;
  RepositoryFileView(const std::string& path, const std::string& text, Parse parse, const Repository& repo)
      : path_(path), text_(text), parse_(std::move(parse)), repo_(repo) {}
  const std::string& path() const override { return path_; }
  const std::string& text() const override { return text_; }
  const PythonModule* python() const override {
    if (!parsed_) {
      module_ = parse_ ? parse_() : nullptr;
      parsed_ = true;
    }
    return module_;
  }
  ClosureResult close_over(const ClosureRoot& root, const DependencyLabeler& labeler) const override {
    return RepositoryClosure(repo_, *python(), labeler).compute(root);
  }
  std::optional<std::string> repository_file(const std::string& path) const override {
    if (!repo_.file_text) return std::nullopt;
    return repo_.file_text(path);
  }
  std::vector<std::string> repository_paths_ending(const std::string& tail) const override {
    if (!repo_.paths_ending) return {};
    return repo_.paths_ending(tail);
  }
  std::vector<OtherFile> files_calling(const std::string& name, size_t limit) const override {
    std::vector<OtherFile> out;
    if (!repo_.files_calling || !repo_.module || !repo_.file_text) return out;
    for (const std::string& path : repo_.files_calling(name)) {
      if (out.size() >= limit) break;
      if (path == path_) continue;
      const Repository& repo = repo_;
      out.push_back({path, [&repo, path] { return repo.file_text(path); }, [&repo, path] { return repo.module(path); }});
    }
    return out;
  }

 private:
  const std::string& path_;
  const std::string& text_;
  Parse parse_;
  mutable const PythonModule* module_ = nullptr;
  mutable bool parsed_ = false;
  const Repository& repo_;
};

// Why the closure could not resolve a name, and which inlined names were renamed, go into the
// kernel's meta (kernel_deps has no column for them); notebook kernels get their cell.
void annotate(ExtractedKernel& k, const NotebookModule* notebook) {
  nlohmann::json unresolved = nlohmann::json::array(), renamed = nlohmann::json::object();
  for (const auto& d : k.dependencies) {
    if (d.note.rfind("renamed to ", 0) == 0)
      renamed[d.path + ":" + d.name] = d.note.substr(11);
    else if (d.kind == "unresolved" || (d.kind == "import" && !d.note.empty()))
      unresolved.push_back({{"name", d.name}, {"why", d.note}});
  }
  if (!unresolved.empty()) k.meta["unresolved"] = unresolved;
  if (!renamed.empty()) k.meta["renamed"] = renamed;
  if (notebook) {
    auto [cell, line] = notebook->locate(k.start_line);
    k.meta["notebook"] = {{"cell", cell}, {"line", line}};
  }
}

class CollectingSink : public KernelSink {
 public:
  CollectingSink(std::string plugin, std::string path, std::vector<KernelRecord>& kernels,
                 std::vector<ScanProblem>& problems, const NotebookModule* notebook)
      : plugin_(std::move(plugin)), path_(std::move(path)), kernels_(kernels), problems_(problems), notebook_(notebook) {}
  void kernel(ExtractedKernel k) override {
    annotate(k, notebook_);
    // meta is stored as JSON text. Text a plugin read out of a hostile file that JSON cannot hold
    // (invalid UTF-8) costs that kernel, with a problem on its file, never the whole scan.
    // The text made here is the one stored (RepoWriter dumps the meta only when it is missing).
    std::string meta_text;
    try {
      meta_text = k.meta.dump();
    } catch (const nlohmann::json::exception& e) {
      problems_.push_back({path_, k.start_line, "plugin",
                           plugin_ + ": kernel " + k.name + " skipped: its metadata cannot be stored: " + e.what()});
      return;
    }
    kernels_.push_back({plugin_, path_, std::move(k), "", std::move(meta_text)});
  }
  void problem(int line, const std::string& kind, const std::string& message) override {
    problems_.push_back({path_, line, kind, plugin_ + ": " + message});
  }

 private:
  std::string plugin_, path_;
  std::vector<KernelRecord>& kernels_;
  std::vector<ScanProblem>& problems_;
  const NotebookModule* notebook_;
};

// How far extraction may run ahead of delivery, by what the extracted, undelivered files hold
// (held_bytes): a few MB of standalones at any time. Counting files instead (64 at most) held a
// worker back behind a slow file, such as the one whose plugin builds the call index over every
// file of the tree, while most of the files after it held nothing at all (unsloth: one worker
// idle for 0.25 s of a 0.65 s scan). The file count only bounds the bookkeeping.
constexpr size_t kBytesAhead = 16 << 20;
constexpr size_t kFilesAhead = 4096;
constexpr size_t kDeliveryBatch = 8;

// What a file's outcome holds until it is stored, roughly: its texts (standalones and launcher
// texts of tens of KB; the rest is small beside them).
size_t held_bytes(const ScannedFile& f) {
  size_t bytes = sizeof(ScannedFile);
  for (const auto& k : f.kernels)
    bytes += sizeof(KernelRecord) + k.kernel.source.size() + k.kernel.standalone.size() + k.meta_text.size() +
             k.kernel.dependencies.size() * sizeof(Dependency);
  for (const auto& l : f.launches) bytes += sizeof(LaunchSite) + l.launcher_source.size() + l.launcher_standalone.size();
  for (const auto& p : f.problems) bytes += sizeof(ScanProblem) + p.message.size();
  return bytes;
}

}  // namespace

std::vector<const ExtractorPlugin*> all_plugins() {
  std::vector<const ExtractorPlugin*> out;
  for (const auto& p : builtin_plugins()) out.push_back(p.get());
  return out;
}

Scanner::Scanner(std::vector<const ExtractorPlugin*> plugins, ScanOptions options)
    : plugins_(std::move(plugins)), options_(std::move(options)) {
  for (const auto* p : plugins_) {
    auto f = std::make_unique<Prefilter>(p->prefilter_patterns());
    if (!f->ok()) throw Error("plugin " + p->name() + ": bad prefilter pattern: " + f->error());
    prefilters_.push_back(std::move(f));
  }
  // Lets a benchmark compare against same-file closures with the very same binary.
  if (const char* same = std::getenv("MINE_SAME_FILE_ONLY"); same && std::string(same) == "1") options_.cross_file = false;
  if (options_.jobs <= 0) options_.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Scanner::~Scanner() = default;

RepoSnapshot snapshot_header(const SourceTree& tree, const std::string& repo_name) {
  RepoSnapshot snap;
  snap.name = repo_name;
  snap.source_kind = tree.kind();
  snap.location = tree.location();
  snap.commit_id = tree.commit_id();
  snap.license = detect_repo_license(tree);
  return snap;
}

namespace {

// Each launcher once, as a runnable unit: its definition at top level and its closure across the
// repository (which reaches the kernel it launches).
void attach_launchers(const PythonModule& module, const FileView& view, std::vector<LaunchSite>& launches) {
  std::map<std::string, std::pair<std::string, ClosureResult>> done;
  for (auto& l : launches) {
    if (l.launcher.empty()) continue;
    auto it = done.find(l.launcher);
    if (it == done.end()) {
      const FunctionSite* site = nullptr;
      for (const auto& f : module.functions())
        if (f.qualname == l.launcher) site = &f;
      if (!site) continue;
      std::string definition = definition_at_top_level(module, *site);
      ClosureResult closure = view.close_over(function_root(module, *site, definition), {});
      it = done.emplace(l.launcher, std::make_pair(module.dedented_text(site->node, site->indent), std::move(closure))).first;
    }
    l.launcher_source = it->second.first;
    l.launcher_standalone = it->second.second.standalone;
    l.launcher_self_contained = it->second.second.self_contained;
  }
}

}  // namespace

RepoSnapshot Scanner::extract(const SourceTree& tree, const std::string& repo_name) const {
  RepoSnapshot snap = snapshot_header(tree, repo_name);
  extract(tree, repo_name, [&](ScannedFile&& f) {
    snap.files.push_back(std::move(f.file));
    for (auto& k : f.kernels) snap.kernels.push_back(std::move(k));
    for (auto& p : f.problems) snap.problems.push_back(std::move(p));
    for (auto& l : f.launches) snap.launches.push_back(std::move(l));
  });
  return snap;
}

void Scanner::extract(const SourceTree& tree, const std::string& repo_name,
                      const std::function<void(ScannedFile&&)>& deliver, const std::function<void()>& finish) const {
  auto wanted = [&](std::string_view path) {
    if (has_suffix(path, ".py")) return true;  // every module, for imports between files
    for (const auto* p : plugins_)
      if (accepts(*p, path)) return true;
    return false;
  };
  // Every file of the tree is listed; those no plugin reads are only there to be read by path
  // (a header a CUDA unit includes), never extracted.
  // What the tree lists without asking (names it refuses to read, recorded as such) stays an entry.
  std::vector<SourceEntry> entries, others;
  std::unordered_set<std::string> unwanted;
  for (auto& e : tree.list([&](std::string_view path) {
         if (!wanted(path)) unwanted.emplace(path);
         return true;
       }))
    (unwanted.count(e.path) ? others : entries).push_back(std::move(e));
  unwanted.clear();
  std::vector<ScannedFile> outcomes(entries.size());
  // Files by their last path component, for paths_ending.
  std::unordered_map<std::string, std::vector<std::string>> paths_named;
  std::unordered_map<std::string, const SourceEntry*> any_entry;
  for (const auto* list : {&entries, &others})
    for (const auto& e : *list) {
      size_t slash = e.path.rfind('/');
      paths_named[slash == std::string::npos ? e.path : e.path.substr(slash + 1)].push_back(e.path);
      any_entry.emplace(e.path, &e);
    }
  for (auto& [name, list] : paths_named) std::sort(list.begin(), list.end());

  std::vector<std::string> paths;
  std::unordered_map<std::string, size_t> entry_of;
  for (size_t i = 0; i < entries.size(); ++i) {
    paths.push_back(entries[i].path);
    entry_of.emplace(entries[i].path, i);
  }
  ModuleIndex index(paths);
  if (entry_of.count("__init__.py") && options_.cross_file) {
    // The root is a package: the names its own files import it by, from its packaging files.
    std::unique_ptr<BlobReader> reader = tree.reader();
    index.set_root_package_names(root_package_names(
        [&](const std::string& path) -> std::optional<std::string> {
          auto found = any_entry.find(path);
          if (found == any_entry.end()) return std::nullopt;
          SourceEntry entry = *found->second;
          std::string content;
          if (!reader->read(entry, 1 << 20, content).empty()) return std::nullopt;
          return content;
        },
        repo_name));
  }
  ModuleIndex no_other_files({});  // same-file mode: every import leads out of the tree
  std::vector<std::string> python_paths;
  for (const auto& p : paths)
    if (has_suffix(p, ".py")) python_paths.push_back(p);
  CallIndex calls(std::move(python_paths));
  // Texts the call index read for its first question before the workers came to their files
  // (decoded, with the encoding they were decoded from), handed to the worker that comes: each
  // file is then read from git once. Up to kKeptTextBytes at a time; past that a worker reads
  // the file again.
  struct KeptText {
    std::string text, encoding;
    std::string blob_id;  // what the read filled in
    int64_t size = -1;
  };
  constexpr size_t kKeptTextBytes = 40 << 20;
  std::mutex kept_mutex;
  std::unordered_map<size_t, KeptText> kept_texts;  // by entry
  std::vector<char> started(entries.size(), 0);     // by entry: a worker has taken it
  size_t kept_bytes = 0;
  // Released by the last worker to finish (see worker_then_release).
  auto module_cache = std::make_unique<ModuleCache>();
  ModuleCache& modules = *module_cache;

  auto process = [&](BlobReader& reader, size_t at, SourceEntry& entry, ScannedFile& out, const Repository& repo) {
    std::optional<KeptText> kept;
    {
      std::lock_guard<std::mutex> lock(kept_mutex);
      started[at] = 1;
      if (auto found = kept_texts.find(at); found != kept_texts.end()) {
        kept = std::move(found->second);
        kept_bytes -= kept->text.size();
        kept_texts.erase(found);
      }
    }
    std::string content;
    std::string failure;
    if (kept) {
      content = std::move(kept->text);
      entry.blob_id = kept->blob_id;
      entry.size = kept->size;
    } else {
      failure = reader.read(entry, options_.max_file_bytes, content);
    }
    out.file = {entry.path, entry.blob_id, std::max<int64_t>(entry.size, 0), false, 0, ""};
    auto problem = [&](int line, const std::string& kind, const std::string& message) {
      out.problems.push_back({entry.path, line, kind, message});
    };
    if (failure == "too_large") {
      problem(0, "too_large", "file is " + std::to_string(entry.size) + " bytes, over the limit of " +
                                  std::to_string(options_.max_file_bytes) + " (--max-file-size)");
      return;
    }
    if (!failure.empty()) return problem(0, "unreadable", failure);
    if (content.empty()) return;
    if (kept) {
      out.file.encoding = kept->encoding;  // read, checked and decoded as below, for the call index
    } else if (looks_binary(content)) {
      return problem(0, "binary", "file holds NUL bytes; not source text");
    } else if (has_suffix(entry.path, ".py")) {
      // Python files may declare another encoding (PEP 263); stored and parsed as UTF-8.
      DecodedSource decoded = decode_python_source(content);
      if (!decoded.error.empty()) {
        int line = decoded.error_offset == std::string::npos ? 0 : line_of_offset(content, decoded.error_offset);
        return problem(line, "encoding", decoded.error + "; file skipped");
      }
      out.file.encoding = decoded.encoding;
      // The text the call index would read again for the first plugin that asks it.
      if (options_.cross_file) calls.record(entry.path, content);
    } else if (size_t bad = first_invalid_utf8(content); bad != std::string::npos) {
      return problem(line_of_offset(content, bad), "encoding", "invalid UTF-8 at byte " + std::to_string(bad) + "; file skipped");
    }

    std::vector<size_t> chosen;
    for (size_t i = 0; i < plugins_.size(); ++i)
      if (accepts(*plugins_[i], entry.path) && prefilters_[i]->matches(content)) chosen.push_back(i);
    if (chosen.empty()) return;
    out.file.parsed = true;

    std::unique_ptr<PythonModule> own;  // notebooks are no importable module: not cached
    std::unique_ptr<NotebookModule> notebook;
    std::string build_error;
    bool failed = false;
    if (has_suffix(entry.path, kNotebook)) {
      try {
        notebook = std::make_unique<NotebookModule>(read_notebook(content));
      } catch (const Error& e) {
        return problem(0, "syntax", e.what());
      }
    }
    // Parses on first use; reports an unusable parse once, and syntax errors where they are.
    auto parse = [&]() -> const PythonModule* {
      const PythonModule* module = nullptr;
      if (notebook) {
        try {
          own = PythonModule::build(entry.path, notebook->text);
          module = own.get();
        } catch (const Error& e) {
          build_error = e.what();
        }
      } else if (has_suffix(entry.path, ".py")) {
        module = modules.get(entry.path, [&] { return std::optional<std::string>(content); }, &build_error);
      }
      if (!build_error.empty()) {
        failed = true;
        problem(0, "syntax", build_error);
        return nullptr;
      }
      if (!module) return nullptr;
      TSNode err = first_syntax_error(module->tree().root());
      if (!ts_node_is_null(err)) {
        int line = first_line(err);
        std::string where = "line " + std::to_string(line);
        if (notebook) {
          auto [cell, cell_line] = notebook->locate(line);
          where = "cell " + std::to_string(cell) + " line " + std::to_string(cell_line);
        }
        problem(line, "syntax", "syntax error at " + where + "; kernels outside it are still extracted");
      }
      return module;
    };
    const std::string& text = notebook ? notebook->text : content;
    RepositoryFileView view(entry.path, text, parse, repo);
    // Generated code that one plugin claims (Inductor's cache files hold @triton.jit kernels too)
    // is read by that plugin alone: one kernel, one row.
    std::optional<size_t> claimant;
    for (size_t i : chosen) {
      try {
        if (plugins_[i]->claims(view)) claimant = i;
      } catch (const std::exception& e) {
        problem(0, "plugin", plugins_[i]->name() + " failed: " + e.what());
      }
      if (claimant) break;
    }
    if (claimant) chosen = {*claimant};
    for (size_t i : chosen) {
      if (failed) break;
      CollectingSink sink(plugins_[i]->name(), entry.path, out.kernels, out.problems, notebook.get());
      try {
        plugins_[i]->extract(view, sink);
      } catch (const std::exception& e) {
        problem(0, "plugin", plugins_[i]->name() + " failed: " + e.what());
      }
    }
    out.file.kernel_count = static_cast<int>(out.kernels.size());
    // Launch sites: the kernels of this or other files, as this file calls them.
    // Notebooks too: a tutorial launches its kernels in a later cell (lines are the joined cells').
    if (!failed && (notebook || has_suffix(entry.path, ".py")) && may_hold_launches(text)) {
      if (const PythonModule* module = view.python()) {
        try {
          out.launches = find_launches(*module, repo.index, repo.module);
          attach_launchers(*module, view, out.launches);
        } catch (const std::exception& e) {
          problem(0, "internal", std::string("launch sites: ") + e.what());
        }
      }
    }
    // A file's own SPDX tag overrides the repository's license for its kernels.
    if (!out.kernels.empty())
      if (auto tag = spdx_header(content))
        for (auto& k : out.kernels) k.spdx_header = *tag;
  };

  // Imported files that did not pass the prefilter are read and parsed here, on demand.
  auto repository_for = [&](BlobReader& reader) {
    Repository repo;
    repo.index = options_.cross_file ? &index : &no_other_files;
    repo.never_inline = options_.never_inline;
    repo.cache = make_resolution_cache();
    // Any file of the tree as usable text: a module the closure imports, a header a unit includes.
    auto read = [&](const std::string& path) -> std::optional<std::string> {
      auto found = any_entry.find(path);
      if (found == any_entry.end()) return std::nullopt;
      SourceEntry entry = *found->second;  // a copy: reading fills it in
      std::string content;
      if (!reader.read(entry, options_.max_file_bytes, content).empty() || !unusable(path, content).empty())
        return std::nullopt;
      return content;
    };
    repo.module = [&, read](const std::string& path) -> const PythonModule* {
      if (entry_of.find(path) == entry_of.end()) return nullptr;
      return modules.get(path, [&] { return read(path); });
    };
    // What `read` gives for a Python file, kept for the worker yet to come to it.
    auto read_for_calls = [&](const std::string& path) -> std::optional<std::string> {
      auto found = entry_of.find(path);
      if (found == entry_of.end()) return std::nullopt;
      SourceEntry entry = entries[found->second];
      std::string content;
      if (!reader.read(entry, options_.max_file_bytes, content).empty() || looks_binary(content)) return std::nullopt;
      DecodedSource decoded = decode_python_source(content);  // the index holds Python files only
      if (!decoded.error.empty()) return std::nullopt;
      std::lock_guard<std::mutex> lock(kept_mutex);
      if (!started[found->second] && kept_bytes + content.size() <= kKeptTextBytes) {
        kept_texts[found->second] = {content, decoded.encoding, entry.blob_id, entry.size};
        kept_bytes += content.size();
      }
      return content;
    };
    if (options_.cross_file)
      repo.files_calling = [&calls, read_for_calls](const std::string& name) {
        return calls.files_calling(name, read_for_calls);
      };
    if (options_.cross_file) {
      repo.file_text = read;
      repo.paths_ending = [&](const std::string& tail) {
        std::vector<std::string> out;
        size_t slash = tail.rfind('/');
        auto found = paths_named.find(slash == std::string::npos ? tail : tail.substr(slash + 1));
        if (found == paths_named.end()) return out;
        for (const auto& p : found->second)
          if (p == tail || (p.size() > tail.size() && p.compare(p.size() - tail.size(), tail.size(), tail) == 0 &&
                            p[p.size() - tail.size() - 1] == '/'))
            out.push_back(p);
        return out;
      };
    }
    return repo;
  };

  // Workers take files in order and mark them ready; this thread delivers them in order. It is
  // woken for a run of kDeliveryBatch ready files, or for whatever is ready once every file is
  // taken or a worker waits for room: a wake-up per file cost thousands of context switches on
  // trees of many small files.
  const size_t n = entries.size();
  std::mutex mutex;
  std::condition_variable file_ready, room;
  std::vector<char> ready(n, 0);
  std::vector<size_t> held(n, 0);  // by file, once ready: held_bytes of its outcome
  size_t taken = 0, delivered = 0, waiting_for_room = 0;
  size_t held_ahead = 0;  // held by the files ready and not delivered
  bool deliverer_waiting = false, stop = false;
  auto deliverable = [&] {  // with the mutex held
    if (delivered >= n || !ready[delivered]) return false;
    if (taken >= n || waiting_for_room > 0) return true;
    size_t run = 1;
    while (run < kDeliveryBatch && delivered + run < n && ready[delivered + run]) ++run;
    return run >= kDeliveryBatch;
  };
  auto wake_deliverer = [&] {  // with the mutex held
    if (deliverer_waiting && deliverable()) file_ready.notify_one();
  };
  auto take = [&]() -> size_t {  // the next file to extract, or n when there is none
    std::unique_lock<std::mutex> lock(mutex);
    if (stop || taken >= n) return n;
    size_t i = taken++;
    if (taken == n) wake_deliverer();
    // The next file to deliver always goes ahead: delivery waits for it.
    auto room_for_i = [&] { return i <= delivered || (i < delivered + kFilesAhead && held_ahead <= kBytesAhead); };
    if (!room_for_i()) {
      ++waiting_for_room;
      wake_deliverer();
      room.wait(lock, [&] { return stop || room_for_i(); });
      --waiting_for_room;
    }
    return stop ? n : i;
  };
  auto done = [&](size_t i) {
    size_t bytes = held_bytes(outcomes[i]);
    std::lock_guard<std::mutex> lock(mutex);
    ready[i] = 1;
    held[i] = bytes;
    held_ahead += bytes;
    wake_deliverer();
  };
  auto worker = [&] {
    std::unique_ptr<BlobReader> reader;
    try {
      reader = tree.reader();
    } catch (const std::exception& e) {
      // Unlikely (the tree opened fine); record it on every file this worker would have taken.
      for (size_t i = take(); i < n; i = take()) {
        outcomes[i].problems.push_back({entries[i].path, 0, "unreadable", e.what()});
        done(i);
      }
      return;
    }
    Repository repo = repository_for(*reader);
    for (size_t i = take(); i < n; i = take()) {
      try {
        // A copy: reading fills in size and blob id, while other workers may copy entries[i]
        // to load this file as another kernel's cross-file module (a data race ThreadSanitizer
        // found on folder scans).
        SourceEntry entry = entries[i];
        process(*reader, i, entry, outcomes[i], repo);
      } catch (const std::exception& e) {
        outcomes[i].problems.push_back({entries[i].path, 0, "internal", e.what()});
      }
      done(i);
    }
  };
  // Freeing a repository's parse trees takes tens of ms: the last worker to finish does it (no
  // worker uses them any more, and what was extracted owns its texts) while the calling thread
  // stores the last files and commits.
  std::atomic<size_t> running{0};
  auto worker_then_release = [&] {
    worker();
    if (--running == 0) module_cache.reset();
  };
  size_t threads = std::min<size_t>(static_cast<size_t>(options_.jobs), n);
  std::vector<std::thread> pool;
  running = threads;
  for (size_t t = 0; t < threads; ++t) pool.emplace_back(worker_then_release);
  auto join = [&] {
    for (auto& t : pool) t.join();
  };
  try {
    for (size_t d = 0; d < n; ++d) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        if (!ready[d]) {  // else the rest of a run, delivered without waiting
          deliverer_waiting = true;
          file_ready.wait(lock, deliverable);
          deliverer_waiting = false;
        }
      }
      ScannedFile file = std::move(outcomes[d]);
      if (options_.log)
        for (const auto& p : file.problems)
          options_.log(repo_name + ": " + p.path + (p.line ? ":" + std::to_string(p.line) : "") + ": " + p.kind + ": " + p.message);
      deliver(std::move(file));
      {
        std::lock_guard<std::mutex> lock(mutex);
        delivered = d + 1;
        held_ahead -= held[d];
        if (waiting_for_room) room.notify_all();
      }
    }
    if (finish) finish();
  } catch (...) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      stop = true;
      room.notify_all();
    }
    join();
    throw;
  }
  join();
}

}  // namespace mine
