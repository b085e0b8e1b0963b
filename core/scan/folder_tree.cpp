#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "core/error.h"
#include "core/sha256.h"
#include "core/scan/source_tree.h"

namespace fs = std::filesystem;

namespace mine {
namespace {

class FolderBlobReader : public BlobReader {
 public:
  explicit FolderBlobReader(fs::path root) : root_(std::move(root)) {}

  std::string read(SourceEntry& entry, int64_t max_bytes, std::string& content) override {
    fs::path p = root_ / entry.path;
    std::error_code ec;
    auto size = fs::file_size(p, ec);
    if (ec) return "cannot stat: " + ec.message();
    entry.size = static_cast<int64_t>(size);
    if (static_cast<int64_t>(size) > max_bytes) return "too_large";
    std::ifstream in(p, std::ios::binary);
    if (!in) return "cannot open for reading";
    content.resize(size);
    in.read(content.data(), static_cast<std::streamsize>(size));
    if (static_cast<size_t>(in.gcount()) != size) return "short read";
    entry.blob_id = git_blob_id(content);
    return "";
  }

  // The id `git hash-object` gives, so folder and git scans of the same file agree. OpenSSL's
  // SHA-1 uses the CPU's SHA extensions; libgit2's collision-detecting SHA-1 was an eighth of the
  // instructions of a torch_compile_debug folder scan (every .py file is hashed).
  static std::string git_blob_id(const std::string& content) {
    std::string header = "blob " + std::to_string(content.size());
    header.push_back('\0');
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha1(), nullptr) != 1 ||
        EVP_DigestUpdate(ctx.get(), header.data(), header.size()) != 1 ||
        EVP_DigestUpdate(ctx.get(), content.data(), content.size()) != 1 ||
        EVP_DigestFinal_ex(ctx.get(), digest, &length) != 1)
      throw Error("SHA-1 failed");
    return hex_encode(digest, length);
  }

 private:
  fs::path root_;
};

class FolderTree : public SourceTree {
 public:
  explicit FolderTree(fs::path root) : root_(std::move(root)) {}
  std::string kind() const override { return "folder"; }
  std::string location() const override { return root_.string(); }

  std::vector<SourceEntry> list(const std::function<bool(std::string_view)>& wanted) const override {
    std::vector<SourceEntry> out;
    std::error_code ec;
    if (fs::is_regular_file(root_, ec)) {
      std::string name = root_.filename().string();
      if (wanted(name)) out.push_back({name, "", -1});
      return out;
    }
    fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec), end;
    if (ec) throw Error::in(root_.string(), "cannot list folder: " + ec.message());
    for (; it != end; it.increment(ec)) {
      if (ec) break;
      const auto& e = *it;
      // Symlinks are never followed: they can point outside the tree or loop.
      if (e.is_symlink(ec)) {
        if (e.is_directory(ec)) it.disable_recursion_pending();
        continue;
      }
      std::string name = e.path().filename().string();
      if (e.is_directory(ec)) {
        if (name == ".git" || name == "__pycache__" || name == "node_modules") it.disable_recursion_pending();
        continue;
      }
      if (!e.is_regular_file(ec)) continue;
      std::string rel = e.path().lexically_relative(root_).generic_string();
      if (wanted(rel)) out.push_back({rel, "", -1});
    }
    std::sort(out.begin(), out.end(), [](const SourceEntry& a, const SourceEntry& b) { return a.path < b.path; });
    return out;
  }

  std::unique_ptr<BlobReader> reader() const override {
    std::error_code ec;
    return std::make_unique<FolderBlobReader>(fs::is_regular_file(root_, ec) ? root_.parent_path() : root_);
  }

 private:
  fs::path root_;
};

}  // namespace

std::unique_ptr<SourceTree> open_folder_tree(const std::string& path) {
  std::error_code ec;
  fs::path root = fs::absolute(path, ec).lexically_normal();
  if (ec) throw Error::in(path, ec.message());
  if (!root.empty() && root.filename().empty()) root = root.parent_path();
  return std::make_unique<FolderTree>(root);
}

}  // namespace mine
