#include "core/check/bundle_libraries.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/scan/source_tree.h"

namespace fs = std::filesystem;

namespace mine::check {

nlohmann::json write_bundle_libraries(const std::string& bundle_dir, const std::vector<LibraryPackage>& packages,
                                      std::vector<std::string>& problems) {
  nlohmann::json copied = nlohmann::json::object();
  const fs::path lib = fs::path(bundle_dir) / "lib";
  for (const auto& p : packages) {
    std::unique_ptr<SourceTree> tree;
    try {
      std::error_code ec;
      if (p.location.empty() || !fs::exists(p.location, ec)) {
        problems.push_back(p.package + ": " + p.repo + " is no longer at " + (p.location.empty() ? "a known place" : p.location));
        continue;
      }
      // The commit the corpus mined, not whatever the repository holds now.
      tree = p.source_kind == "git" ? open_git_tree(p.location, p.commit_id.empty() ? "HEAD" : p.commit_id)
                                    : open_source_tree(p.location);
    } catch (const Error& e) {
      problems.push_back(p.package + ": " + e.what());
      continue;
    }
    std::unique_ptr<BlobReader> reader = tree->reader();
    size_t written = 0;
    const size_t strip = p.dir.size() - p.package.size();  // "src/pkg/x.py" -> "pkg/x.py"
    for (const auto& [path, blob_id] : p.files) {
      SourceEntry entry{path, blob_id, -1};
      std::string content;
      std::string why = reader->read(entry, 8 << 20, content);
      if (!why.empty()) {
        problems.push_back(p.repo + "/" + path + ": " + why);
        continue;
      }
      fs::path out = lib / path.substr(strip);
      std::error_code ec;
      fs::create_directories(out.parent_path(), ec);
      std::ofstream f(out, std::ios::binary | std::ios::trunc);
      f << content;
      f.close();
      if (!f) throw Error::in(out.string(), "cannot write");
      ++written;
    }
    if (written == 0) continue;
    copied[p.package] = {{"repo", p.repo}, {"commit", p.commit_id}, {"dir", p.dir}, {"files", written}};
  }
  if (copied.empty()) return nullptr;
  return {{"path", "lib"}, {"packages", copied}};
}

}  // namespace mine::check
