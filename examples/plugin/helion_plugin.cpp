// Helion kernels (`@helion.kernel`, `@helion.kernel(config=...)`, any import alias) as an external
// mine plugin. It only decides which functions are kernels; mine resolves the decorators through
// the file's imports and computes each kernel's dependency closure.
#include <mine/plugin.h>

#include <cstring>
#include <string>

namespace {

const char* const kSuffixes[] = {".py", nullptr};
const char* const kPrefilters[] = {"helion", nullptr};

void extract(const mine_host* host, const mine_file* file, mine_sink* sink, void* context) {
  (void)context;
  size_t functions = host->python_function_count(file);
  for (size_t f = 0; f < functions; ++f) {
    size_t decorators = host->python_decorator_count(file, f);
    for (size_t d = 0; d < decorators; ++d) {
      const char* name = host->python_decorator(file, f, d);
      if (!name || std::strcmp(name, "helion.kernel") != 0) continue;
      std::string meta = std::string("{\"dsl\": \"helion\", \"decorator_index\": ") + std::to_string(d) + "}";
      mine_python_kernel kernel = {MINE_ROOT_FUNCTION, f, nullptr, nullptr, meta.c_str(), nullptr, nullptr, nullptr};
      if (host->report_python_kernel(sink, file, &kernel) != 0)
        host->report_problem(sink, host->python_function_line(file, f), "plugin", "mine refused the kernel report");
      break;
    }
  }
}

const mine_plugin_info kInfo = {
    MINE_PLUGIN_ABI_VERSION,
    "helion",
    "0.1",
    "Helion @helion.kernel functions (example external plugin)",
    kSuffixes,
    kPrefilters,
    extract,
    nullptr,
};

}  // namespace

extern "C" MINE_PLUGIN_EXPORT const mine_plugin_info* mine_plugin_entry(uint32_t host_abi) {
  // Returning the info either way lets the host name both versions when they differ.
  (void)host_abi;
  return &kInfo;
}
