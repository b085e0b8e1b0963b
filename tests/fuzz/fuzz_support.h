#pragma once
// Pieces the fuzz targets share: splitting one input into several named files, a FileView over
// an in-memory repository, and a sink that insists on what the corpus needs of a kernel record.
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/plugin.h"
#include "core/repo/module_index.h"
#include "core/repo/repository_closure.h"
#include "core/scan/text_checks.h"

namespace mine::fuzz {

// A fuzzer-found violation of an invariant: abort so that libFuzzer records the input.
[[noreturn]] inline void violated(const std::string& what) {
  std::fprintf(stderr, "fuzz invariant violated: %s\n", what.c_str());
  std::abort();
}

struct Part {
  std::string name;
  std::string text;
};

// Splits `data` at lines "#--- NAME" (the marker line is dropped). Text before the first marker
// is a part named `first_name`. At most `max_parts` parts; the rest stays in the last one.
inline std::vector<Part> split_parts(std::string_view data, const std::string& first_name, size_t max_parts = 8) {
  std::vector<Part> parts{{first_name, ""}};
  size_t pos = 0;
  while (pos <= data.size()) {
    size_t eol = data.find('\n', pos);
    std::string_view line = data.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
    if (line.rfind("#--- ", 0) == 0 && parts.size() < max_parts) {
      parts.push_back({std::string(line.substr(5)), ""});
    } else {
      parts.back().text.append(line);
      if (eol != std::string_view::npos) parts.back().text.push_back('\n');
    }
    if (eol == std::string_view::npos) break;
    pos = eol + 1;
  }
  return parts;
}

// The scanner hands plugins only text that is neither binary nor invalid UTF-8.
inline bool scannable(std::string_view text) { return !looks_binary(text) && first_invalid_utf8(text) == std::string::npos; }

// Everything a kernel record carries into the corpus must serialise: JSON text is stored.
inline void require_storable(const ExtractedKernel& k) {
  try {
    (void)k.meta.dump();
    nlohmann::json names = k.external_modules;
    (void)names.dump();
    nlohmann::json fields = {k.name, k.qualname, k.source, k.standalone};
    (void)fields.dump();
  } catch (const nlohmann::json::exception& e) {
    violated(std::string("kernel record cannot be stored as JSON: ") + e.what());
  }
  if (k.start_line < 0 || (k.end_line > 0 && k.end_line < k.start_line)) violated("kernel lines out of order: " + k.name);
}

class CheckingSink : public KernelSink {
 public:
  void kernel(ExtractedKernel k) override {
    require_storable(k);
    kernels.push_back(std::move(k));
  }
  void problem(int line, const std::string& kind, const std::string& message) override {
    if (kind.empty()) violated("problem without a kind: " + message);
    ++problems;
  }
  std::vector<ExtractedKernel> kernels;
  int problems = 0;
};

// A FileView onto one file of an in-memory repository, closing over the whole repository.
class MemoryFileView : public FileView {
 public:
  MemoryFileView(const std::string& path, const std::string& text, const PythonModule* module, const Repository& repo)
      : path_(path), text_(text), module_(module), repo_(repo) {}
  const std::string& path() const override { return path_; }
  const std::string& text() const override { return text_; }
  const PythonModule* python() const override { return module_; }
  ClosureResult close_over(const ClosureRoot& root, const DependencyLabeler& labeler) const override {
    return RepositoryClosure(repo_, *module_, labeler).compute(root);
  }

 private:
  const std::string& path_;
  const std::string& text_;
  const PythonModule* module_;
  const Repository& repo_;
};

// Parsed files of one input, as the scanner would see them.
struct MemoryRepository {
  explicit MemoryRepository(const std::vector<Part>& parts) : index(paths_of(parts)) {
    for (const auto& p : parts) {
      if (!scannable(p.text)) continue;
      try {
        modules[p.name] = PythonModule::build(p.name, p.text);
      } catch (const Error&) {
        // Nested too deep to analyse: the scanner reports it and importers see nothing.
      }
    }
    repo.index = &index;
    repo.module = [this](const std::string& path) -> const PythonModule* {
      auto it = modules.find(path);
      return it == modules.end() ? nullptr : it->second.get();
    };
    repo.never_inline = {"triton", "torch"};
    repo.cache = make_resolution_cache();
  }
  static std::vector<std::string> paths_of(const std::vector<Part>& parts) {
    std::vector<std::string> out;
    for (const auto& p : parts) out.push_back(p.name);
    return out;
  }
  ModuleIndex index;
  std::map<std::string, std::unique_ptr<PythonModule>> modules;
  Repository repo;
};

}  // namespace mine::fuzz
