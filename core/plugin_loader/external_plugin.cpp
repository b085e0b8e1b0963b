#include "core/plugin_loader/external_plugin.h"

#include <dlfcn.h>

#include <deque>

#include "core/error.h"
#include "plugins/python_definitions/python_definition.h"

// The opaque handles of the ABI: what one extract call sees and where its reports go.
struct mine_file {
  const mine::FileView* view;
  std::deque<std::string> strings;  // keeps handed-out strings alive until extract returns
  const char* keep(std::string s) { return strings.emplace_back(std::move(s)).c_str(); }
};

struct mine_sink {
  mine::KernelSink* sink;
};

namespace mine {
namespace {

const FunctionSite* function_at(const mine_file* f, size_t i) {
  if (!f || !f->view->python() || i >= f->view->python()->functions().size()) return nullptr;
  return &f->view->python()->functions()[i];
}

// A meta JSON object from the plugin, or an error string.
bool read_meta(const char* text, nlohmann::json& meta) {
  if (!text || !*text) return true;
  meta = nlohmann::json::parse(text, nullptr, false);
  return !meta.is_discarded() && meta.is_object();
}

const mine_host kHost = {
    MINE_PLUGIN_ABI_VERSION,
    [](const mine_file* f) -> const char* { return f ? f->view->path().c_str() : ""; },
    [](const mine_file* f, size_t* length) -> const char* {
      if (length) *length = f ? f->view->text().size() : 0;
      return f ? f->view->text().c_str() : "";
    },
    [](const mine_file* f) -> size_t { return f && f->view->python() ? f->view->python()->functions().size() : 0; },
    [](const mine_file* f, size_t i) -> const char* {
      const FunctionSite* s = function_at(f, i);
      return s ? s->qualname.c_str() : nullptr;
    },
    [](const mine_file* f, size_t i) -> int {
      const FunctionSite* s = function_at(f, i);
      return s ? first_line(s->node) : 0;
    },
    [](const mine_file* f, size_t i) -> size_t {
      const FunctionSite* s = function_at(f, i);
      return s ? s->decorators.size() : 0;
    },
    [](const mine_file* f, size_t i, size_t d) -> const char* {
      const FunctionSite* s = function_at(f, i);
      if (!s || d >= s->decorators.size()) return nullptr;
      const PythonModule& m = *f->view->python();
      auto q = m.qualified_name(s->decorators[d]);
      return const_cast<mine_file*>(f)->keep(q ? *q : m.text_of(s->decorators[d]));
    },
    [](mine_sink* sink, const mine_file* f, size_t i, const char* meta_json) -> int {
      const FunctionSite* s = function_at(f, i);
      nlohmann::json meta;
      if (!sink || !s || !read_meta(meta_json, meta)) return 1;
      try {
        const PythonModule& m = *f->view->python();
        ExtractedKernel k = kernel_from_function(*f->view, *s, definition_at_top_level(m, *s), {});
        nlohmann::json decorators = nlohmann::json::array();
        for (TSNode d : s->decorators) {
          auto q = m.qualified_name(d);
          decorators.push_back(q ? *q : m.text_of(d));
        }
        k.meta["decorators"] = decorators;
        if (meta.is_object()) k.meta.update(meta);
        sink->sink->kernel(std::move(k));
        return 0;
      } catch (const std::exception&) {
        return 1;  // an exception must not unwind through the plugin's C frames
      }
    },
    [](mine_sink* sink, const mine_kernel* in) -> int {
      nlohmann::json meta;
      if (!sink || !in || !in->name || !in->source || !read_meta(in->meta_json, meta)) return 1;
      try {
        ExtractedKernel k;
        k.name = in->name;
        k.qualname = in->qualname ? in->qualname : in->name;
        k.start_line = in->start_line;
        k.end_line = in->end_line;
        k.source = in->source;
        k.standalone = in->standalone ? in->standalone : in->source;
        k.self_contained = in->self_contained != 0;
        if (meta.is_object()) k.meta = meta;
        for (size_t i = 0; in->dependencies && i < in->dependency_count; ++i) {
          const mine_dependency& d = in->dependencies[i];
          if (!d.name) return 1;
          k.dependencies.push_back({d.name, d.kind ? d.kind : "unknown", "", d.line, ""});
        }
        sink->sink->kernel(std::move(k));
        return 0;
      } catch (const std::exception&) {
        return 1;
      }
    },
    [](mine_sink* sink, int line, const char* kind, const char* message) {
      if (!sink) return;
      try {
        sink->sink->problem(line, kind ? kind : "plugin", message ? message : "");
      } catch (const std::exception&) {
      }
    },
};

std::vector<std::string> strings_of(const char* const* list) {
  std::vector<std::string> out;
  for (size_t i = 0; list && list[i]; ++i) out.emplace_back(list[i]);
  return out;
}

}  // namespace

const mine_host& plugin_host() { return kHost; }

ExternalPlugin::ExternalPlugin(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) throw Error("cannot load plugin " + library + ": " + dlerror());
  auto entry = reinterpret_cast<mine_plugin_entry_fn>(dlsym(handle, "mine_plugin_entry"));
  if (!entry) {
    dlclose(handle);
    throw Error(library + " is not a mine plugin: it exports no mine_plugin_entry");
  }
  info_ = entry(MINE_PLUGIN_ABI_VERSION);
  if (!info_) throw Error("plugin " + library + " refused this mine's plugin ABI " + std::to_string(MINE_PLUGIN_ABI_VERSION));
  if (info_->abi_version != MINE_PLUGIN_ABI_VERSION)
    throw Error("plugin " + library + " was built for mine plugin ABI " + std::to_string(info_->abi_version) +
                ", but this mine speaks ABI " + std::to_string(MINE_PLUGIN_ABI_VERSION) +
                "; rebuild it against this mine's include/mine/plugin.h");
  if (!info_->name || !*info_->name || !info_->extract)
    throw Error("plugin " + library + " gave no name or no extract function");
  suffixes_ = strings_of(info_->file_suffixes);
  prefilters_ = strings_of(info_->prefilters);
}

void ExternalPlugin::extract(const FileView& file, KernelSink& sink) const {
  mine_file f{&file, {}};
  mine_sink s{&sink};
  info_->extract(&kHost, &f, &s);
}

}  // namespace mine
