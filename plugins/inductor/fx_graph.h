#pragma once
#include <nlohmann/json.hpp>
#include <string_view>

namespace mine::inductor {

// Reads a graph's fx_graph_readable.py: each FX node (`add_4: "f32[..]" = torch.ops.aten...`)
// with the `# File: path:line in function, code: ...` comment above its group. Returns
// {"locations": [{file, line, function, code}], "nodes": {node: index into locations}}; nodes
// with no File comment are left out. Plain line reading: the file is generated, one node a line.
nlohmann::json read_fx_graph(std::string_view text);

}  // namespace mine::inductor
