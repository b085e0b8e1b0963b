#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/python/dependency_closure.h"
#include "core/python/module_model.h"

namespace mine {

// A kernel as a plugin reports it.
struct ExtractedKernel {
  std::string name;
  std::string qualname;
  int start_line = 0;
  int end_line = 0;
  std::string source;      // the definition as written
  std::string standalone;  // a module that defines the kernel and everything it needs
  std::vector<Dependency> dependencies;
  std::set<std::string> external_modules;
  bool self_contained = true;
  nlohmann::json meta = nlohmann::json::object();  // plugin-specific, stored as kernels.meta
};

// Another file of the repository, as a plugin may read it beside the one being scanned.
struct OtherFile {
  std::string path;
  std::function<std::optional<std::string>()> text;  // read on each call
  std::function<const PythonModule*()> module;       // parsed once, on the first call; nullptr when it does not analyse
};

// What a plugin sees of one file. The core parses each file once and owns the closure
// machinery, so that improving dependency resolution improves every plugin at once.
class FileView {
 public:
  virtual ~FileView() = default;
  virtual const std::string& path() const = 0;  // repository-relative
  virtual const std::string& text() const = 0;
  virtual const PythonModule* python() const = 0;  // nullptr when the file is not Python
  // Dependency closure of `root` within the repository, and its standalone module.
  virtual ClosureResult close_over(const ClosureRoot& root, const DependencyLabeler& labeler) const = 0;
  // Other Python files of the repository whose text calls `name`, at most `limit` of them in path
  // order; none outside a repository scan. Each is parsed only when its module is asked for:
  // callers often rule most of them out by their text first (json.load is not a build's load).
  virtual std::vector<OtherFile> files_calling(const std::string& name, size_t limit) const {
    (void)name;
    (void)limit;
    return {};
  }
  // The text of any other file of the tree (a header, say), by path; none when the tree has no
  // such readable text file, and outside a repository scan.
  virtual std::optional<std::string> repository_file(const std::string& path) const {
    (void)path;
    return std::nullopt;
  }
  // Paths of the tree's files equal to `tail` or ending in "/" + `tail`, in path order.
  virtual std::vector<std::string> repository_paths_ending(const std::string& tail) const {
    (void)tail;
    return {};
  }
};

// Where a plugin reports what it found.
class KernelSink {
 public:
  virtual ~KernelSink() = default;
  virtual void kernel(ExtractedKernel kernel) = 0;
  // A problem local to one file (stored in scan_errors; the scan goes on).
  virtual void problem(int line, const std::string& kind, const std::string& message) = 0;
};

// What `mine crawl` searches GitHub for to find repositories with a plugin's kernels
// (include/mine/plugin.h: mine_discovery_hints).
struct DiscoveryHints {
  std::vector<std::string> code_search_terms;       // e.g. "triton.jit"
  std::vector<std::string> code_search_extensions;  // e.g. "py", "ipynb"; empty: every file
  std::vector<std::string> topics;                  // e.g. "triton"
};

// An extractor as the scanner drives it: finds kernels of one language or framework in a file.
// Plugins, built-in or loaded, are written against include/mine/plugin.h and reach the scanner
// through CAbiPlugin (core/plugin_loader/plugin_host.h); declarative plugins through
// DeclarativePlugin. FileView and KernelSink are the host's side of that boundary.
class ExtractorPlugin {
 public:
  virtual ~ExtractorPlugin() = default;
  virtual std::string name() const = 0;
  virtual std::string version() const { return "1"; }
  virtual std::string description() const = 0;
  // File name endings the plugin reads, e.g. ".py".
  virtual std::vector<std::string> file_suffixes() const = 0;
  // RE2 patterns; a file is parsed and handed to the plugin only if one of them matches its text.
  virtual std::vector<std::string> prefilter_patterns() const = 0;
  // True when the whole file is output of the tool this plugin reads (e.g. code torch.compile
  // generated): the scanner then hands it to this plugin alone, so the same kernel is not stored
  // twice under two plugins. Asked only of plugins whose prefilter matched; should be cheap.
  virtual bool claims(const FileView& /*file*/) const { return false; }
  virtual void extract(const FileView& file, KernelSink& sink) const = 0;
  // Terms and topics repository discovery searches for; none by default.
  virtual DiscoveryHints discovery_hints() const { return {}; }
};

}  // namespace mine
