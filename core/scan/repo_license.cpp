#include "core/scan/repo_license.h"

#include <algorithm>

#include "core/license/license_detector.h"

namespace mine {
namespace {

constexpr int64_t kMaxLicenseBytes = 1 << 20;  // the longest SPDX texts are ~40 KB

}  // namespace

RepoLicense detect_repo_license(const SourceTree& tree) {
  RepoLicense out;
  std::vector<SourceEntry> candidates = tree.list([](std::string_view path) { return is_license_file_name(path); });
  std::stable_sort(candidates.begin(), candidates.end(), [](const SourceEntry& a, const SourceEntry& b) {
    return std::make_pair(license_file_rank(a.path), a.path) < std::make_pair(license_file_rank(b.path), b.path);
  });
  auto reader = tree.reader();
  for (auto& entry : candidates) {
    std::string text;
    if (!reader->read(entry, kMaxLicenseBytes, text).empty()) continue;  // unreadable: try the next
    LicenseMatch match = license_detector().detect(text);
    if (out.path.empty() || !match.spdx_id.empty()) {
      out.path = entry.path;
      out.confidence = match.confidence;
    }
    if (!match.spdx_id.empty()) {
      out.spdx_id = match.spdx_id;
      break;
    }
  }
  return out;
}

}  // namespace mine
