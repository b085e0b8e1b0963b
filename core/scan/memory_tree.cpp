#include "core/scan/memory_tree.h"

#include "core/sha256.h"

namespace mine {
namespace {

using Files = std::map<std::string, std::string>;

class MemoryReader : public BlobReader {
 public:
  explicit MemoryReader(const Files& files) : files_(files) {}
  std::string read(SourceEntry& entry, int64_t max_bytes, std::string& content) override {
    auto it = files_.find(entry.path);
    if (it == files_.end()) return "no such file";
    entry.size = static_cast<int64_t>(it->second.size());
    if (entry.size > max_bytes) return "too_large";
    content = it->second;
    entry.blob_id = sha256_hex(content);
    return "";
  }

 private:
  const Files& files_;
};

class MemoryTree : public SourceTree {
 public:
  MemoryTree(std::string location, Files files) : location_(std::move(location)), files_(std::move(files)) {}
  std::string kind() const override { return "folder"; }
  std::string location() const override { return location_; }
  std::vector<SourceEntry> list(const std::function<bool(std::string_view)>& wanted) const override {
    std::vector<SourceEntry> out;
    for (const auto& [path, text] : files_)
      if (wanted(path)) out.push_back({path, "", static_cast<int64_t>(text.size())});
    return out;
  }
  std::unique_ptr<BlobReader> reader() const override { return std::make_unique<MemoryReader>(files_); }

 private:
  std::string location_;
  Files files_;
};

}  // namespace

std::unique_ptr<SourceTree> memory_tree(std::string location, Files files) {
  return std::make_unique<MemoryTree>(std::move(location), std::move(files));
}

}  // namespace mine
