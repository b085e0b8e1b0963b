#pragma once
#include "core/plugin.h"
#include "include/mine/plugin.h"

namespace mine {

// The host side of include/mine/plugin.h: what every plugin, built-in or loaded, is offered.
const mine_host& plugin_host();

// An extractor speaking the C ABI, whether compiled into mine or loaded from a library: the one
// adapter between mine_plugin_info and the scanner. `info` must outlive this object.
class CAbiPlugin : public ExtractorPlugin {
 public:
  // Throws mine::Error when `info` was built for another ABI (naming both versions and `origin`)
  // or lacks a name or an extract function.
  // `hints` (optional, may be NULL) must outlive this object too; one built for another ABI is
  // refused the same way.
  CAbiPlugin(const mine_plugin_info* info, const std::string& origin, const mine_discovery_hints* hints = nullptr);

  std::string name() const override { return info_->name; }
  std::string version() const override { return info_->version ? info_->version : "?"; }
  std::string description() const override { return info_->description ? info_->description : ""; }
  std::vector<std::string> file_suffixes() const override { return suffixes_; }
  std::vector<std::string> prefilter_patterns() const override { return prefilters_; }
  bool claims(const FileView& file) const override;
  void extract(const FileView& file, KernelSink& sink) const override;
  DiscoveryHints discovery_hints() const override { return hints_; }

 private:
  const mine_plugin_info* info_;
  DiscoveryHints hints_;
  std::vector<std::string> suffixes_, prefilters_;
};

}  // namespace mine
