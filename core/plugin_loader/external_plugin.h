#pragma once
#include <memory>
#include <string>

#include "core/plugin.h"
#include "include/mine/plugin.h"

namespace mine {

// An extractor living in a shared library, speaking include/mine/plugin.h. The library stays
// loaded for the life of the process: the plugin's static strings and code must outlive every
// use of this object.
class ExternalPlugin : public ExtractorPlugin {
 public:
  // Loads `library` and checks its ABI; throws mine::Error naming both versions on a mismatch.
  explicit ExternalPlugin(const std::string& library);

  std::string name() const override { return info_->name; }
  std::string version() const override { return info_->version ? info_->version : "?"; }
  std::string description() const override { return info_->description ? info_->description : ""; }
  std::vector<std::string> file_suffixes() const override { return suffixes_; }
  std::vector<std::string> prefilter_patterns() const override { return prefilters_; }
  void extract(const FileView& file, KernelSink& sink) const override;

 private:
  const mine_plugin_info* info_ = nullptr;
  std::vector<std::string> suffixes_, prefilters_;
};

// The host side of the C ABI, shared with anything else that drives a mine_plugin_info.
const mine_host& plugin_host();

}  // namespace mine
