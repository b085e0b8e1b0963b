#include "core/plugin_loader/plugin_host.h"

#include <forward_list>

#include "core/error.h"
#include "plugins/python_definitions/python_definition.h"

// The opaque handles of the ABI. A file is either the one being scanned (`view`) or, inside a
// label callback, another module of the repository the closure reached (`module` only).
struct mine_file {
  const mine::FileView* view = nullptr;
  mutable const mine::PythonModule* module = nullptr;
  mutable bool parsed = false;
  mutable std::forward_list<std::string> strings;  // keeps handed-out strings alive; constructing it allocates nothing
  // Handles of other files handed out for this one (python_files_calling), alive as long as it.
  mutable std::forward_list<mine_file> others;
  // Such another file, read and parsed only when the plugin asks (`view` is then null).
  mine::OtherFile other;
  mutable std::optional<std::string> other_text;

  const mine::PythonModule* python() const {
    if (!parsed && (view || other.module)) {
      module = view ? view->python() : other.module();
      parsed = true;
    }
    return module;
  }
  const std::string& path() const { return view ? view->path() : module ? module->path() : other.path; }
  // Its text without parsing it: a parsed module's own, else read once.
  const std::string* text() const {
    if (view) return &view->text();
    if (module) return &module->tree().text();
    if (!other_text && other.text) other_text = other.text();
    return other_text ? &*other_text : nullptr;
  }
  const char* keep(std::string s) const {
    strings.push_front(std::move(s));
    return strings.front().c_str();
  }
};

struct mine_sink {
  mine::KernelSink* sink;
};

namespace mine {
namespace {

const FunctionSite* function_at(const mine_file* f, size_t i) {
  const PythonModule* m = f ? f->python() : nullptr;
  if (!m || i >= m->functions().size()) return nullptr;
  return &m->functions()[i];
}

const ModuleStatement* statement_at(const mine_file* f, size_t i) {
  const PythonModule* m = f ? f->python() : nullptr;
  if (!m || i >= m->statements().size()) return nullptr;
  return &m->statements()[i];
}

// Tree-sitter nodes of another tree must not be read against this module's text.
bool in_module(const PythonModule* m, TSNode n) {
  return m && !ts_node_is_null(n) && n.tree == m->tree().root().tree;
}

// A meta JSON object from the plugin, or an error string.
bool read_meta(const char* text, nlohmann::json& meta) {
  if (!text || !*text) return true;
  meta = nlohmann::json::parse(text, nullptr, false);
  return !meta.is_discarded() && meta.is_object();
}

int statement_kind(StatementKind k) {
  switch (k) {
    case StatementKind::Function: return MINE_STATEMENT_FUNCTION;
    case StatementKind::Class: return MINE_STATEMENT_CLASS;
    case StatementKind::Assignment: return MINE_STATEMENT_ASSIGNMENT;
    case StatementKind::Import: return MINE_STATEMENT_IMPORT;
    case StatementKind::Guarded: return MINE_STATEMENT_GUARDED;
    case StatementKind::Other: break;
  }
  return MINE_STATEMENT_OTHER;
}

std::string decorator_name(const PythonModule& m, TSNode d) {
  auto q = m.qualified_name(d);
  return q ? *q : m.text_of(d);
}

// The plugin's label callback as the closure's labeler; called for modules across the repository.
DependencyLabeler labeler_of(const mine_python_kernel& k) {
  if (!k.label) return {};
  mine_label_fn label = k.label;
  void* context = k.label_context;
  return [label, context](const PythonModule& m, const ModuleStatement& s) -> std::string {
    const auto& all = m.statements();
    if (all.empty() || &s < all.data() || &s >= all.data() + all.size()) return "";
    mine_file other;
    other.module = &m;
    other.parsed = true;
    const char* kind = label(context, &plugin_host(), &other, static_cast<size_t>(&s - all.data()));
    return kind ? kind : "";
  };
}

int report_python(mine_sink* sink, const mine_file* f, const mine_python_kernel* in) {
  nlohmann::json meta;
  if (!sink || !f || !f->view || !in || !read_meta(in->meta_json, meta)) return 1;
  const PythonModule* m = f->python();
  if (!m) return 1;
  try {
    DependencyLabeler labeler = labeler_of(*in);
    ExtractedKernel k;
    if (in->root_kind == MINE_ROOT_FUNCTION) {
      const FunctionSite* s = function_at(f, in->root);
      if (!s) return 1;
      k = kernel_from_function(*f->view, *s, in->text ? std::string(in->text) : definition_at_top_level(*m, *s),
                               labeler);
      nlohmann::json decorators = nlohmann::json::array();
      for (TSNode d : s->decorators) decorators.push_back(decorator_name(*m, d));
      k.meta["decorators"] = decorators;
    } else if (in->root_kind == MINE_ROOT_STATEMENT) {
      const ModuleStatement* s = statement_at(f, in->root);
      if (!s || !in->name || !*in->name) return 1;
      ClosureRoot root;
      root.text = in->text ? std::string(in->text) : m->dedented_text(s->node, s->indent);
      root.reads = s->reads;
      for (size_t i = 0; in->extra_reads && in->extra_reads[i]; ++i) root.reads.names.insert(in->extra_reads[i]);
      root.binds = s->binds;
      root.statement = s;
      root.pieces = {{s->node, s->indent, "", ""}};
      root.node = s->node;
      ClosureResult closure = f->view->close_over(root, labeler);
      k.name = in->name;
      k.qualname = k.name;
      k.start_line = s->start_line;
      k.end_line = s->end_line;
      k.source = root.text;
      k.standalone = std::move(closure.standalone);
      k.dependencies = std::move(closure.dependencies);
      k.external_modules = std::move(closure.external_modules);
      k.self_contained = closure.self_contained;
    } else {
      return 1;
    }
    if (meta.is_object()) k.meta.update(meta);
    sink->sink->kernel(std::move(k));
    return 0;
  } catch (const std::exception&) {
    return 1;  // an exception must not unwind through the plugin's C frames
  }
}

int report_assembled(mine_sink* sink, const mine_kernel* in) {
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
      k.dependencies.push_back({d.name, d.kind ? d.kind : "unknown", d.path ? d.path : "", d.line, d.note ? d.note : ""});
    }
    for (size_t i = 0; in->external_modules && in->external_modules[i]; ++i) k.external_modules.insert(in->external_modules[i]);
    sink->sink->kernel(std::move(k));
    return 0;
  } catch (const std::exception&) {
    return 1;
  }
}

const mine_host kHost = {
    MINE_PLUGIN_ABI_VERSION,
    [](const mine_file* f) -> const char* {
      if (!f) return "";
      return f->path().c_str();
    },
    [](const mine_file* f, size_t* length) -> const char* {
      const std::string* text = f ? f->text() : nullptr;
      if (length) *length = text ? text->size() : 0;
      return text ? text->c_str() : "";
    },
    [](const mine_file* f) -> size_t { return f && f->python() ? f->python()->functions().size() : 0; },
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
      return f->keep(decorator_name(*f->python(), s->decorators[d]));
    },
    [](const mine_file* f) -> const TSTree* {
      const PythonModule* m = f ? f->python() : nullptr;
      return m ? m->tree().root().tree : nullptr;
    },
    [](const mine_file* f, TSNode n, size_t* length) -> const char* {
      const PythonModule* m = f ? f->python() : nullptr;
      if (!in_module(m, n)) {
        if (length) *length = 0;
        return "";
      }
      std::string_view t = m->tree().text_of(n);
      if (length) *length = t.size();
      return t.data();
    },
    [](const mine_file* f, TSNode n, int indent) -> const char* {
      const PythonModule* m = f ? f->python() : nullptr;
      return in_module(m, n) ? f->keep(m->dedented_text(n, indent)) : "";
    },
    [](const mine_file* f, size_t i, mine_python_function* out) -> int {
      const FunctionSite* s = function_at(f, i);
      if (!s || !out) return 1;
      const auto& statements = f->python()->statements();
      out->name = s->name.c_str();
      out->qualname = s->qualname.c_str();
      out->node = s->node;
      out->definition = s->definition;
      out->decorator_count = s->decorators.size();
      out->in_class = s->in_class;
      out->in_function = s->in_function;
      out->indent = s->indent;
      out->statement = s->statement ? static_cast<int64_t>(s->statement - statements.data()) : -1;
      return 0;
    },
    [](const mine_file* f, size_t i, size_t d) -> TSNode {
      const FunctionSite* s = function_at(f, i);
      return s && d < s->decorators.size() ? s->decorators[d] : TSNode{};
    },
    [](const mine_file* f, size_t i) -> const char* {
      const FunctionSite* s = function_at(f, i);
      return s ? f->keep(parameters_of(*f->python(), s->definition).dump()) : "[]";
    },
    [](const mine_file* f) -> size_t { return f && f->python() ? f->python()->statements().size() : 0; },
    [](const mine_file* f, size_t i, mine_python_statement* out) -> int {
      const ModuleStatement* s = statement_at(f, i);
      if (!s || !out) return 1;
      out->kind = statement_kind(s->kind);
      out->node = s->node;
      out->start_line = s->start_line;
      out->end_line = s->end_line;
      out->indent = s->indent;
      return 0;
    },
    [](const mine_file* f, const char* name, size_t* out, size_t capacity) -> size_t {
      const PythonModule* m = f ? f->python() : nullptr;
      if (!m || !name) return 0;
      auto found = m->bindings_of(name);
      for (size_t i = 0; i < found.size() && i < capacity && out; ++i)
        out[i] = static_cast<size_t>(found[i] - m->statements().data());
      return found.size();
    },
    [](const mine_file* f, TSNode n) -> const char* {
      const PythonModule* m = f ? f->python() : nullptr;
      if (!in_module(m, n)) return nullptr;
      auto q = m->qualified_name(n);
      return q ? f->keep(std::move(*q)) : nullptr;
    },
    report_python,
    report_assembled,
    [](mine_sink* sink, int line, const char* kind, const char* message) {
      if (!sink) return;
      try {
        sink->sink->problem(line, kind ? kind : "plugin", message ? message : "");
      } catch (const std::exception&) {
      }
    },
    [](const mine_file* f, const char* name, const mine_file** out, size_t capacity) -> size_t {
      if (!f || !f->view || !name || !out || capacity == 0) return 0;
      try {
        size_t n = 0;
        for (OtherFile& other : f->view->files_calling(name, capacity)) {
          f->others.emplace_front();
          f->others.front().other = std::move(other);
          out[n++] = &f->others.front();
        }
        return n;
      } catch (const std::exception&) {
        return 0;  // an exception must not unwind through the plugin's C frames
      }
    },
    [](const mine_file* f, const char* path, size_t* length) -> const char* {
      if (length) *length = 0;
      if (!f || !f->view || !path) return nullptr;
      try {
        auto text = f->view->repository_file(path);
        if (!text) return nullptr;
        if (length) *length = text->size();
        return f->keep(std::move(*text));
      } catch (const std::exception&) {
        return nullptr;
      }
    },
    [](const mine_file* f, const char* tail, const char** out, size_t capacity) -> size_t {
      if (!f || !f->view || !tail) return 0;
      try {
        auto paths = f->view->repository_paths_ending(tail);
        for (size_t i = 0; i < paths.size() && i < capacity && out; ++i) out[i] = f->keep(paths[i]);
        return paths.size();
      } catch (const std::exception&) {
        return 0;
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

CAbiPlugin::CAbiPlugin(const mine_plugin_info* info, const std::string& origin, const mine_discovery_hints* hints)
    : info_(info) {
  // abi_version is the first field in every version: read nothing else before it matches.
  if (info_->abi_version != MINE_PLUGIN_ABI_VERSION)
    throw Error("plugin " + origin + " was built for mine plugin ABI " + std::to_string(info_->abi_version) +
                ", but this mine speaks ABI " + std::to_string(MINE_PLUGIN_ABI_VERSION) +
                "; rebuild it against this mine's include/mine/plugin.h");
  if (!info_->name || !*info_->name || !info_->extract)
    throw Error("plugin " + origin + " gave no name or no extract function");
  suffixes_ = strings_of(info_->file_suffixes);
  prefilters_ = strings_of(info_->prefilters);
  if (hints) {
    if (hints->abi_version != MINE_PLUGIN_ABI_VERSION)
      throw Error("plugin " + origin + " declares discovery hints for mine plugin ABI " +
                  std::to_string(hints->abi_version) + ", but this mine speaks ABI " +
                  std::to_string(MINE_PLUGIN_ABI_VERSION));
    hints_.code_search_terms = strings_of(hints->code_search_terms);
    hints_.code_search_extensions = strings_of(hints->code_search_extensions);
    hints_.topics = strings_of(hints->topics);
  }
}

bool CAbiPlugin::claims(const FileView& file) const {
  if (!info_->claims) return false;
  mine_file f;
  f.view = &file;
  return info_->claims(&kHost, &f, info_->context) != 0;
}

void CAbiPlugin::extract(const FileView& file, KernelSink& sink) const {
  mine_file f;
  f.view = &file;
  mine_sink s{&sink};
  info_->extract(&kHost, &f, &s, info_->context);
}

}  // namespace mine
