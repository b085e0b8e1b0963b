#pragma once
// What the inductor plugin hands the corpus besides ordinary kernels. Extraction sees one file at
// a time, but a kernel's PyTorch code lives in its graph's fx_graph_readable.py and an old-layout
// kernel's source in a cache file elsewhere in the tree; corpus/inductor_store.cpp joins them
// once the whole tree is extracted. Both sides read these names from here.

namespace mine::inductor {

inline constexpr const char* kPlugin = "inductor";

// meta[kRecord] tells a record's kind: absent for a kernel with its source; kMissing for a kernel
// whose source was neither inline nor found (empty source; meta.kernel_path names the file);
// kFxGraph for a graph's fx_graph_readable.py summary (never a kernels row).
inline constexpr const char* kRecord = "record";
inline constexpr const char* kMissing = "missing";
inline constexpr const char* kFxGraph = "fx_graph";

// kFxGraph records: meta.locations = [{file, line, function, code}], meta.nodes = {fx node: index}.
// Kernel records: meta.node_mapping = {source node: [fx nodes]}; the store fills meta.pytorch_code
// with the locations of those nodes, taken from the fx graph in the same folder.

}  // namespace mine::inductor
