#include "plugins/inductor/output_code_chunks.h"

#include <algorithm>

#include "core/python/syntax_tree.h"

namespace mine::inductor {
namespace {

size_t line_start(std::string_view text, size_t at) {
  size_t nl = at == 0 ? std::string_view::npos : text.rfind('\n', at - 1);
  return nl == std::string_view::npos ? 0 : nl + 1;
}

// Where the comment block right above the line at `ls` starts: column-0 `#` lines and blank lines.
size_t comments_above(std::string_view text, size_t ls, size_t floor) {
  while (ls > floor) {
    size_t prev = line_start(text, ls - 1);
    std::string_view line = text.substr(prev, ls - 1 - prev);
    bool blank = line.find_first_not_of(" \t\r") == std::string_view::npos;
    if (!blank && line.front() != '#') break;
    ls = prev;
  }
  return ls;
}

}  // namespace

std::vector<CodeChunk> split_kernel_region(std::string_view text, size_t region_end) {
  region_end = std::min(region_end, text.size());
  std::vector<size_t> starts;
  size_t floor = 0;
  for (size_t ls : kernel_binding_lines(text, region_end)) {
    size_t start = comments_above(text, ls, floor);
    if (start > 0 && (starts.empty() || start > starts.back())) starts.push_back(start);
    floor = ls + 1;
  }
  std::vector<CodeChunk> chunks;
  size_t begin = 0;
  int line = 1;
  starts.push_back(region_end);
  for (size_t end : starts) {
    if (end <= begin) continue;
    chunks.push_back({begin, end, line});
    line += static_cast<int>(std::count(text.begin() + static_cast<long>(begin), text.begin() + static_cast<long>(end), '\n'));
    begin = end;
  }
  return chunks;
}

std::shared_ptr<const ChunkReading> ChunkReadings::read(std::string_view chunk) {
  std::string key(chunk);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = readings_.find(key);
    if (found != readings_.end()) return found->second;
  }
  auto reading = std::make_shared<ChunkReading>();
  auto tree = SyntaxTree::parse(key);
  reading->clean = ts_node_is_null(first_syntax_error(tree->root()));
  if (reading->clean) reading->calls = find_kernel_calls(*tree);
  std::lock_guard<std::mutex> lock(mutex_);
  if (bytes_ + key.size() > max_bytes_) {
    readings_.clear();
    bytes_ = 0;
  }
  size_t size = key.size();
  if (readings_.emplace(std::move(key), reading).second) bytes_ += size;
  return reading;
}

std::optional<std::vector<KernelCall>> read_kernel_region(std::string_view text, size_t region_end,
                                                          ChunkReadings& readings) {
  std::vector<KernelCall> calls;
  for (const CodeChunk& c : split_kernel_region(text, region_end)) {
    auto reading = readings.read(text.substr(c.begin, c.end - c.begin));
    if (!reading->clean) return std::nullopt;
    for (KernelCall call : reading->calls) {
      int shift = c.first_line - 1;
      call.start_line += shift;
      call.end_line += shift;
      if (call.source_line) call.source_line += shift;
      calls.push_back(std::move(call));
    }
  }
  return calls;
}

}  // namespace mine::inductor
