#include "core/plugin_loader/declarative_plugin.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"
#include "plugins/python_definitions/python_definition.h"

namespace fs = std::filesystem;

namespace mine {
namespace {

// A manifest or query is a few kilobytes; the cap keeps a path to /dev/zero or a huge file from
// exhausting memory.
constexpr std::streamsize kMaxPluginFileBytes = 1 << 20;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error("cannot read " + p.string());
  std::string text(static_cast<size_t>(kMaxPluginFileBytes) + 1, '\0');
  in.read(text.data(), kMaxPluginFileBytes + 1);
  if (in.bad()) throw Error("cannot read " + p.string());
  if (in.gcount() > kMaxPluginFileBytes) throw Error(p.string() + ": larger than 1 MB; not a plugin file");
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::string required_string(const nlohmann::json& m, const char* key, const std::string& where) {
  if (!m.contains(key) || !m[key].is_string() || m[key].get<std::string>().empty())
    throw Error(where + ": manifest needs a non-empty string \"" + key + "\"");
  return m[key].get<std::string>();
}

// An optional string field: `fallback` when absent, an error when of another type (a manifest
// saying "version": 2 is refused with a message, not with a JSON library exception).
std::string optional_string(const nlohmann::json& m, const char* key, const std::string& fallback,
                            const std::string& where) {
  if (!m.contains(key)) return fallback;
  if (!m[key].is_string()) throw Error(where + ": \"" + std::string(key) + "\" must be a string");
  return m[key].get<std::string>();
}

std::vector<std::string> string_list(const nlohmann::json& m, const char* key, const std::string& where) {
  std::vector<std::string> out;
  if (!m.contains(key)) return out;
  if (!m[key].is_array()) throw Error(where + ": \"" + std::string(key) + "\" must be a list of strings");
  for (const auto& v : m[key]) {
    if (!v.is_string()) throw Error(where + ": \"" + std::string(key) + "\" must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

const char* query_error_name(TSQueryError e) {
  switch (e) {
    case TSQueryErrorSyntax: return "syntax error";
    case TSQueryErrorNodeType: return "unknown node type";
    case TSQueryErrorField: return "unknown field";
    case TSQueryErrorCapture: return "unknown capture";
    case TSQueryErrorStructure: return "impossible pattern";
    default: return "error";
  }
}

}  // namespace

DeclarativePlugin::DeclarativePlugin(const std::string& manifest_path) {
  const std::string& where = manifest_path;
  nlohmann::json m = nlohmann::json::parse(read_text(manifest_path), nullptr, false);
  if (m.is_discarded() || !m.is_object()) throw Error(where + ": not a JSON object");
  name_ = required_string(m, "name", where);
  version_ = optional_string(m, "version", "1", where);
  description_ = optional_string(m, "description", "declarative plugin " + name_, where);
  prefilters_ = string_list(m, "prefilter", where);
  for (auto& r : string_list(m, "resolves_to", where)) resolves_to_.insert(r);
  hints_.code_search_terms = string_list(m, "code_search", where);
  hints_.topics = string_list(m, "topics", where);
  if (!hints_.code_search_terms.empty()) hints_.code_search_extensions = {"py", "ipynb"};  // what it reads
  std::string kernel_capture = required_string(m, "kernel_capture", where);
  std::string decorator_capture = optional_string(m, "decorator_capture", "", where);
  if (!resolves_to_.empty() && decorator_capture.empty())
    throw Error(where + ": \"resolves_to\" needs a \"decorator_capture\" to check");

  fs::path query_path = fs::path(manifest_path).parent_path() / required_string(m, "query", where);
  std::string source = read_text(query_path);
  uint32_t offset = 0;
  TSQueryError error = TSQueryErrorNone;
  query_ = ts_query_new(tree_sitter_python(), source.data(), static_cast<uint32_t>(source.size()), &offset, &error);
  if (!query_)
    throw Error(query_path.string() + ": " + query_error_name(error) + " at byte " + std::to_string(offset));

  bool found_kernel = false;
  std::string captures;
  for (uint32_t i = 0; i < ts_query_capture_count(query_); ++i) {
    uint32_t length = 0;
    const char* name = ts_query_capture_name_for_id(query_, i, &length);  // sets length: read it after
    std::string capture(name, length);
    captures += " @" + capture;
    if (capture == kernel_capture) {
      kernel_capture_ = i;
      found_kernel = true;
    }
    if (capture == decorator_capture) decorator_capture_ = static_cast<int>(i);
  }
  if (!found_kernel) {
    ts_query_delete(query_);
    throw Error(query_path.string() + ": the query has no capture @" + kernel_capture + " (kernel_capture); it has" + captures);
  }
  if (!decorator_capture.empty() && decorator_capture_ < 0) {
    ts_query_delete(query_);
    throw Error(query_path.string() + ": the query has no capture @" + decorator_capture + " (decorator_capture)");
  }
}

DeclarativePlugin::~DeclarativePlugin() {
  if (query_) ts_query_delete(query_);
}

void DeclarativePlugin::extract(const FileView& file, KernelSink& sink) const {
  const PythonModule* m = file.python();
  if (!m) return;
  std::map<uint32_t, const FunctionSite*> sites;  // by start byte of the node or its definition
  for (const auto& s : m->functions()) {
    sites.emplace(ts_node_start_byte(s.node), &s);
    sites.emplace(ts_node_start_byte(s.definition), &s);
  }
  std::set<const FunctionSite*> reported;
  TSQueryCursor* cursor = ts_query_cursor_new();
  ts_query_cursor_exec(cursor, query_, m->tree().root());
  TSQueryMatch match;
  while (ts_query_cursor_next_match(cursor, &match)) {
    const FunctionSite* site = nullptr;
    bool decorator_ok = decorator_capture_ < 0;
    for (uint16_t i = 0; i < match.capture_count; ++i) {
      const TSQueryCapture& c = match.captures[i];
      if (c.index == kernel_capture_) {
        auto found = sites.find(ts_node_start_byte(c.node));
        if (found != sites.end()) site = found->second;
      } else if (static_cast<int>(c.index) == decorator_capture_) {
        auto q = m->qualified_name(c.node);
        decorator_ok = decorator_ok || (q && (resolves_to_.empty() || resolves_to_.count(*q)));
      }
    }
    if (!site || !decorator_ok || !reported.insert(site).second) continue;
    try {
      ExtractedKernel k = kernel_from_function(file, *site, definition_at_top_level(*m, *site), {});
      k.meta["declarative"] = name_;
      sink.kernel(std::move(k));
    } catch (...) {
      ts_query_cursor_delete(cursor);
      throw;
    }
  }
  ts_query_cursor_delete(cursor);
}

}  // namespace mine
