#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mine {

// Where in a file's text a launch's call can be. Every `k[grid](...)` spans a `]` that the call's
// `(` follows, and every `k.run(...)` a `run` that it follows (blanks, line continuations and
// comments between them allowed, as Python allows them). A subtree of the syntax tree that spans
// no such place holds no launch, so the launch finder skips it instead of visiting every node of
// the file (most of a file is kernels and helpers without a launch). Marks may be false alarms
// (a `]` in a string): those only cost a visit.
class LaunchMarks {
 public:
  explicit LaunchMarks(const std::string& text);
  // True when a mark lies in the bytes [start, end).
  bool spans(uint32_t start, uint32_t end) const;
  const std::vector<uint32_t>& offsets() const { return offsets_; }

 private:
  std::vector<uint32_t> offsets_;  // ascending
};

}  // namespace mine
