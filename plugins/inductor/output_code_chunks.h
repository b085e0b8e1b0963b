#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "plugins/inductor/output_code.h"

namespace mine::inductor {

// A piece of an output-code module's kernel region that parses on its own: the comments above a
// `name = async_compile.triton(` line at column 0, the call, and what follows up to the next
// call's comments (the first piece is the module's header). Kernel statements repeat across
// graphs, models and runs, so pieces of identical text are parsed once.
struct CodeChunk {
  size_t begin = 0, end = 0;
  int first_line = 1;  // of `begin` in the file
};

// Split of [0, region_end) at the comment blocks above the kernel calls, found in the text. A
// split inside a string literal (a kernel source whose lines look like the calls) shows as a
// piece that is not clean Python; readers then parse the whole file.
std::vector<CodeChunk> split_kernel_region(std::string_view text, size_t region_end);

// The kernel calls of one piece, lines relative to it; `clean` when it parsed without errors.
struct ChunkReading {
  bool clean = false;
  std::vector<KernelCall> calls;
};

// Readings of pieces by their exact text, shared by the scanner's threads; bounded, it starts
// over when full.
class ChunkReadings {
 public:
  explicit ChunkReadings(size_t max_bytes = 64u << 20) : max_bytes_(max_bytes) {}
  std::shared_ptr<const ChunkReading> read(std::string_view chunk);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const ChunkReading>> readings_;
  size_t bytes_ = 0;
  size_t max_bytes_;
};

// Every kernel call of the region [0, region_end), with file lines, read piece by piece; nullopt
// when a piece is not clean Python (then nothing is known and the caller parses the whole file).
std::optional<std::vector<KernelCall>> read_kernel_region(std::string_view text, size_t region_end,
                                                          ChunkReadings& readings);

}  // namespace mine::inductor
