#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mine {

// Which Python files of a repository call a name: `Name(` or `obj.Name(` in their text, read
// lexically (a mention in a string or comment counts too; whoever asks checks the call in the
// file's tree). Lets a plugin read the arguments a definition is called with in other files
// (`Block(64, 4)` in a training script) without parsing every file for every definition: the
// index is built once, on the first question, from every file's text.
class CallIndex {
 public:
  using ReadText = std::function<std::optional<std::string>(const std::string& path)>;
  explicit CallIndex(std::vector<std::string> python_paths) : paths_(std::move(python_paths)) {}

  // Paths, in the order given at construction, of the files whose text calls `name`. Safe from
  // several threads; the first question reads every file through `read` (files it cannot read
  // call nothing).
  std::vector<std::string> files_calling(const std::string& name, const ReadText& read) const;

  // The names `text` calls, each once.
  static std::vector<std::string> called_names(const std::string& text);

 private:
  std::vector<std::string> paths_;
  mutable std::once_flag built_;
  mutable std::unordered_map<std::string, std::vector<uint32_t>> callers_;  // name -> indices into paths_
};

}  // namespace mine
