#include "plugins/sdk/report_kernel.h"

namespace mine::sdk {

int report_assembled_kernel(const mine_host* host, mine_sink* sink, const ExtractedKernel& k) {
  std::vector<mine_dependency> deps;
  for (const auto& d : k.dependencies)
    deps.push_back({d.name.c_str(), d.kind.c_str(), d.path.empty() ? nullptr : d.path.c_str(), d.start_line,
                    d.note.empty() ? nullptr : d.note.c_str()});
  std::vector<const char*> externals;
  for (const auto& e : k.external_modules) externals.push_back(e.c_str());
  externals.push_back(nullptr);
  std::string meta = k.meta.dump();
  mine_kernel out{k.name.c_str(), k.qualname.c_str(), k.start_line, k.end_line, k.source.c_str(),
                  k.standalone.c_str(), k.self_contained ? 1 : 0, meta.c_str(), deps.data(), deps.size(),
                  externals.data()};
  return host->report_kernel(sink, &out);
}

}  // namespace mine::sdk
