#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mine {

class CudaSource;

// Finds the repository file a `#include "x.h"` names and parses it once. No build files say where
// a compiler looked, so the candidates are the ones a compiler run from the usual places would
// find: next to the including file, under each of its ancestor folders (an `-I` at the root or at
// a package folder), else the file elsewhere in the repository whose path ends in the name and
// shares the most folders with the includer.
class IncludeResolver {
 public:
  using ReadFile = std::function<std::optional<std::string_view>(const std::string& path)>;
  using PathsEnding = std::function<std::vector<std::string>(const std::string& tail)>;
  IncludeResolver(ReadFile read, PathsEnding paths_ending);
  ~IncludeResolver();

  struct Header {
    std::string path;  // repository-relative
    const CudaSource* source = nullptr;
  };
  // The header `name` (as written between the quotes) included from `includer`, or none.
  std::optional<Header> resolve(const std::string& name, const std::string& includer);

 private:
  const CudaSource* parsed(const std::string& path, std::string_view text);

  ReadFile read_;
  PathsEnding paths_ending_;
  std::map<std::string, std::shared_ptr<const CudaSource>> parsed_;  // by path
  std::map<std::pair<std::string, std::string>, std::optional<Header>> resolved_;
  size_t bytes_ = 0;  // text parsed so far: a bound on what one file's units may pull in
};

// The parse of `text`, the file at `path`: the same object for every caller that asks while it is
// kept (by path and text), so a header scanned for its own kernels and included by other units is
// parsed once. Safe from several threads.
std::shared_ptr<const CudaSource> shared_parse(const std::string& path, std::string_view text);

// `a/./b/../c.h` -> `a/c.h`; none when it climbs above the root.
std::optional<std::string> normalized_path(const std::string& path);

}  // namespace mine
