#pragma once
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mine {

// Which Python files of a repository call a name: `Name(` or `obj.Name(` in their text, read
// lexically (a mention in a string or comment counts too; whoever asks checks the call in the
// file's tree). Lets a plugin read the arguments a definition is called with in other files
// (`Block(64, 4)` in a training script) without parsing every file for every definition.
//
// The scan hands over each file's text as its workers read it (record); the first question takes
// those and reads only the files not recorded yet. Reading every file a second time was a
// quarter of a scan of a repository of many large files (unsloth: 1.9 G instructions, mostly
// inflating blobs). Either way each file's calls are taken once, from the text `read` gives.
class CallIndex {
 public:
  using ReadText = std::function<std::optional<std::string>(const std::string& path)>;
  explicit CallIndex(std::vector<std::string> python_paths);

  // The calls of `path`'s text, `text` being what `read` would give for it. Safe from several
  // threads; ignored once the index is built or for a path it does not hold.
  void record(const std::string& path, std::string_view text);

  // Paths, in the order given at construction, of the files whose text calls `name`. Safe from
  // several threads; the first question reads, through `read`, every file not recorded (files it
  // cannot read call nothing), and every thread that asks while those are read reads its share
  // of them, each through its own `read`, instead of waiting for the first.
  std::vector<std::string> files_calling(const std::string& name, const ReadText& read) const;

  // The names `text` calls, each once, in the order first called.
  static std::vector<std::string> called_names(std::string_view text);

 private:
  // The names `text` calls, each once, in no particular order (views into `text`).
  static std::vector<std::string_view> names_called(std::string_view text);
  void add(uint32_t file, const std::vector<std::string_view>& names) const;  // with mutex_ held
  // Reads the files not recorded, beside any other thread doing the same, until the index is built.
  void build(const ReadText& read) const;

  std::vector<std::string> paths_;
  std::unordered_map<std::string_view, uint32_t> index_of_;  // views into paths_
  mutable std::mutex mutex_;
  mutable std::vector<char> taken_;  // by file: its calls are in callers_ (or being read for it)
  mutable bool built_ = false;
  mutable size_t next_unread_ = 0;  // files before it are taken
  mutable size_t reading_ = 0;      // files taken by the build and being read
  mutable std::condition_variable read_done_;  // reading_ fell to 0, or the index is built
  mutable std::unordered_map<std::string, std::vector<uint32_t>> callers_;  // name -> indices into paths_
};

}  // namespace mine
