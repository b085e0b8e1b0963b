#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "include/mine/plugin.h"
#include "plugins/sdk/python_file.h"

namespace mine::sdk {

// What a Python-kernel plugin tells the host about one file: kernels (a function or a module
// statement as the root of the closure, with the plugin's meta) and problems, each with a line.
class FileReports {
 public:
  // `plugin` names the plugin in the host's refusals; `label` names the kinds of the
  // definitions the closure pulls in (NULL: generic kinds).
  FileReports(const PythonFile& file, mine_sink* sink, std::string plugin, mine_label_fn label)
      : file_(file), sink_(sink), plugin_(std::move(plugin)), label_(label) {}

  // `extra_reads`: names of the file the standalone must define besides what the root reads
  // (statement roots; mine_python_kernel's extra_reads).
  void kernel(int root_kind, size_t root, const char* name, const nlohmann::json& meta, int line,
              const std::vector<std::string>& extra_reads = {}) const {
    std::string meta_text = meta.dump();
    std::vector<const char*> extra;
    for (const auto& e : extra_reads) extra.push_back(e.c_str());
    extra.push_back(nullptr);
    mine_python_kernel k{root_kind, root, name, nullptr, meta_text.c_str(), label_, nullptr, extra.data()};
    if (file_.host()->report_python_kernel(sink_, file_.handle(), &k) != 0)
      problem(line, "plugin", "mine refused a " + plugin_ + " kernel report");
  }

  void problem(int line, const std::string& kind, const std::string& message) const {
    file_.host()->report_problem(sink_, line, kind.c_str(), message.c_str());
  }

 private:
  const PythonFile& file_;
  mine_sink* sink_;
  std::string plugin_;
  mine_label_fn label_;
};

}  // namespace mine::sdk
