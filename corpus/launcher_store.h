#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "corpus/corpus.h"

namespace mine {

// The function that launches a kernel in its repository, as `mine export --with-launcher` and
// chat prompts use it.
struct KernelLauncher {
  std::string name;        // qualname of the launcher (`Attention.forward`)
  std::string source;      // its definition as written
  std::string standalone;  // launcher + kernel + everything both need
  bool self_contained = false;
  std::string path;
  int line = 0;            // of the launch
};

// One launcher per kernel that has one: the launch `mine check` followed when there is one
// (kernel_signatures.launch_id), else the first by file and line.
std::map<int64_t, KernelLauncher> kernel_launchers(const Corpus& corpus);

}  // namespace mine
