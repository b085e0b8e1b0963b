#pragma once
#include <set>
#include <string>
#include <vector>

#include "core/plugin.h"

struct TSQuery;

namespace mine {

// A plugin made of a tree-sitter query over Python and a JSON manifest, compiled by nothing:
//
//   {"name": "helion", "version": "1", "description": "...",
//    "query": "helion.scm",            // next to the manifest
//    "kernel_capture": "kernel",       // capture on the function (decorated or not) that is a kernel
//    "decorator_capture": "decorator", // optional: capture on a decorator expression, which must
//    "resolves_to": ["helion.kernel"], //   resolve through the file's imports to one of these
//    "prefilter": ["helion"],          // RE2 patterns; default: none (every .py file)
//    "code_search": ["helion.kernel"], // optional: words `mine crawl` asks GitHub code search for
//    "topics": ["helion"]}             // optional: GitHub topics `mine crawl` searches
//
// The core applies the same dependency closure as for every other Python plugin.
class DeclarativePlugin : public ExtractorPlugin {
 public:
  // Reads and checks the manifest and compiles the query; throws mine::Error saying what is wrong.
  explicit DeclarativePlugin(const std::string& manifest_path);
  ~DeclarativePlugin() override;
  DeclarativePlugin(const DeclarativePlugin&) = delete;
  DeclarativePlugin& operator=(const DeclarativePlugin&) = delete;

  std::string name() const override { return name_; }
  std::string version() const override { return version_; }
  std::string description() const override { return description_; }
  std::vector<std::string> file_suffixes() const override { return {".py"}; }
  std::vector<std::string> prefilter_patterns() const override { return prefilters_; }
  void extract(const FileView& file, KernelSink& sink) const override;
  DiscoveryHints discovery_hints() const override { return hints_; }

 private:
  std::string name_, version_, description_;
  DiscoveryHints hints_;
  std::vector<std::string> prefilters_;
  std::set<std::string> resolves_to_;
  TSQuery* query_ = nullptr;
  uint32_t kernel_capture_ = 0;
  int decorator_capture_ = -1;
};

}  // namespace mine
