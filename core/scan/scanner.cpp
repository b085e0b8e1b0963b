#include "core/scan/scanner.h"

#include <re2/re2.h>

#include <atomic>
#include <thread>

#include "core/error.h"
#include "core/python/dependency_closure.h"
#include "core/scan/text_checks.h"
#include "plugins/registry.h"

namespace mine {

struct Scanner::Prefilter {
  explicit Prefilter(const std::string& pattern) : re(pattern) {}
  RE2 re;
};

namespace {

bool has_suffix(std::string_view path, const std::string& suffix) {
  return path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class SameFileView : public FileView {
 public:
  SameFileView(const std::string& path, const std::string& text, const PythonModule* module)
      : path_(path), text_(text), module_(module) {}
  const std::string& path() const override { return path_; }
  const std::string& text() const override { return text_; }
  const PythonModule* python() const override { return module_; }
  ClosureResult close_over(const ClosureRoot& root, const DependencyLabeler& labeler) const override {
    return DependencyClosure(*module_, labeler).compute(root);
  }

 private:
  const std::string& path_;
  const std::string& text_;
  const PythonModule* module_;
};

class CollectingSink : public KernelSink {
 public:
  CollectingSink(std::string plugin, std::string path, std::vector<KernelRecord>& kernels,
                 std::vector<ScanProblem>& problems)
      : plugin_(std::move(plugin)), path_(std::move(path)), kernels_(kernels), problems_(problems) {}
  void kernel(ExtractedKernel k) override { kernels_.push_back({plugin_, path_, std::move(k)}); }
  void problem(int line, const std::string& kind, const std::string& message) override {
    problems_.push_back({path_, line, kind, plugin_ + ": " + message});
  }

 private:
  std::string plugin_, path_;
  std::vector<KernelRecord>& kernels_;
  std::vector<ScanProblem>& problems_;
};

struct FileOutcome {
  FileRecord file;
  std::vector<KernelRecord> kernels;
  std::vector<ScanProblem> problems;
};

}  // namespace

std::vector<const ExtractorPlugin*> all_plugins() {
  std::vector<const ExtractorPlugin*> out;
  for (const auto& p : builtin_plugins()) out.push_back(p.get());
  return out;
}

Scanner::Scanner(std::vector<const ExtractorPlugin*> plugins, ScanOptions options)
    : plugins_(std::move(plugins)), options_(std::move(options)) {
  for (const auto* p : plugins_) {
    std::string joined;
    for (const auto& pattern : p->prefilter_patterns()) joined += (joined.empty() ? "" : "|") + ("(?:" + pattern + ")");
    auto f = std::make_unique<Prefilter>(joined.empty() ? std::string("") : joined);
    if (!f->re.ok()) throw Error("plugin " + p->name() + ": bad prefilter pattern: " + f->re.error());
    prefilters_.push_back(std::move(f));
  }
  if (options_.jobs <= 0) options_.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

Scanner::~Scanner() = default;

RepoSnapshot Scanner::extract(const SourceTree& tree, const std::string& repo_name) const {
  auto wanted = [&](std::string_view path) {
    for (const auto* p : plugins_)
      for (const auto& s : p->file_suffixes())
        if (has_suffix(path, s)) return true;
    return false;
  };
  std::vector<SourceEntry> entries = tree.list(wanted);
  std::vector<FileOutcome> outcomes(entries.size());
  std::atomic<size_t> next{0};

  auto process = [&](BlobReader& reader, SourceEntry& entry, FileOutcome& out) {
    std::string content;
    std::string failure = reader.read(entry, options_.max_file_bytes, content);
    out.file = {entry.path, entry.blob_id, std::max<int64_t>(entry.size, 0), false, 0};
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
    if (looks_binary(content)) return problem(0, "binary", "file holds NUL bytes; not source text");
    size_t bad = first_invalid_utf8(content);
    if (bad != std::string::npos)
      return problem(line_of_offset(content, bad), "encoding",
                     "invalid UTF-8 at byte " + std::to_string(bad) + "; file skipped");

    std::vector<size_t> chosen;
    for (size_t i = 0; i < plugins_.size(); ++i) {
      bool suffix_ok = false;
      for (const auto& s : plugins_[i]->file_suffixes()) suffix_ok = suffix_ok || has_suffix(entry.path, s);
      if (suffix_ok && RE2::PartialMatch(content, prefilters_[i]->re)) chosen.push_back(i);
    }
    if (chosen.empty()) return;
    out.file.parsed = true;

    std::unique_ptr<PythonModule> module;
    if (has_suffix(entry.path, ".py")) {
      try {
        module = PythonModule::build(entry.path, content);
      } catch (const Error& e) {
        return problem(0, "syntax", e.what());
      }
      TSNode err = first_syntax_error(module->tree().root());
      if (!ts_node_is_null(err))
        problem(first_line(err), "syntax",
                "syntax error at line " + std::to_string(first_line(err)) + "; kernels outside it are still extracted");
    }
    SameFileView view(entry.path, content, module.get());
    for (size_t i : chosen) {
      CollectingSink sink(plugins_[i]->name(), entry.path, out.kernels, out.problems);
      try {
        plugins_[i]->extract(view, sink);
      } catch (const std::exception& e) {
        problem(0, "plugin", plugins_[i]->name() + " failed: " + e.what());
      }
    }
    out.file.kernel_count = static_cast<int>(out.kernels.size());
  };

  auto worker = [&] {
    std::unique_ptr<BlobReader> reader;
    try {
      reader = tree.reader();
    } catch (const std::exception& e) {
      // Unlikely (the tree opened fine); record it on every file this worker would have taken.
      for (size_t i = next++; i < entries.size(); i = next++)
        outcomes[i].problems.push_back({entries[i].path, 0, "unreadable", e.what()});
      return;
    }
    for (size_t i = next++; i < entries.size(); i = next++) {
      try {
        process(*reader, entries[i], outcomes[i]);
      } catch (const std::exception& e) {
        outcomes[i].problems.push_back({entries[i].path, 0, "internal", e.what()});
      }
    }
  };
  size_t threads = std::min<size_t>(static_cast<size_t>(options_.jobs), std::max<size_t>(entries.size(), 1));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  RepoSnapshot snap;
  snap.name = repo_name;
  snap.source_kind = tree.kind();
  snap.location = tree.location();
  snap.commit_id = tree.commit_id();
  for (auto& o : outcomes) {
    snap.files.push_back(std::move(o.file));
    for (auto& k : o.kernels) snap.kernels.push_back(std::move(k));
    for (auto& p : o.problems) {
      if (options_.log) options_.log(repo_name + ": " + p.path + (p.line ? ":" + std::to_string(p.line) : "") + ": " + p.kind + ": " + p.message);
      snap.problems.push_back(std::move(p));
    }
  }
  return snap;
}

}  // namespace mine
