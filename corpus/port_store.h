#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "corpus/corpus.h"

namespace mine {

// The ported source of each kernel that has one (kernel_ports, schema/008_ports.sql): the port
// made for the newest Triton version, and only while the kernel's standalone is still the one
// that was ported (a rescan that changed it makes the port stale). Empty on corpora without
// the table.
std::map<int64_t, std::string> current_ports(const Corpus& corpus);

}  // namespace mine
