/* mine external plugin ABI.
 *
 * A plugin is a shared library exporting one C function:
 *
 *     const mine_plugin_info* mine_plugin_entry(uint32_t host_abi);
 *
 * The host passes the ABI version it speaks (MINE_PLUGIN_ABI_VERSION of its own header); the
 * plugin returns a static description of itself carrying the version it was built against, or
 * NULL to refuse the host. The host refuses a plugin whose version differs from its own and says
 * which two versions met. Everything crossing the boundary is C: plain structs, NUL-terminated
 * UTF-8 strings, function pointers; no C++ types, no exceptions, no ownership transfer. Strings
 * the host hands out live until the plugin's `extract` call returns; strings the plugin hands in
 * are copied before the host callback returns.
 *
 * The version changes whenever a struct below changes layout or meaning.
 */
#ifndef MINE_PLUGIN_H
#define MINE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MINE_PLUGIN_ABI_VERSION 1u

#if defined(_WIN32)
#define MINE_PLUGIN_EXPORT __declspec(dllexport)
#else
#define MINE_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/* The file being scanned, as the host parsed it (opaque). */
typedef struct mine_file mine_file;
/* Where the plugin reports what it found in that file (opaque). */
typedef struct mine_sink mine_sink;

/* A dependency of a kernel the plugin builds itself (non-Python languages). */
typedef struct mine_dependency {
  const char* name;
  const char* kind; /* e.g. function | macro | constant | type | include */
  int line;         /* 1-based line in the same file, 0 when unknown */
} mine_dependency;

/* A kernel the plugin builds itself: it supplies the standalone source. */
typedef struct mine_kernel {
  const char* name;
  const char* qualname;   /* NULL: same as name */
  int start_line;         /* 1-based, inclusive */
  int end_line;
  const char* source;     /* the definition as written */
  const char* standalone; /* a unit that defines the kernel and all it needs; NULL: same as source */
  int self_contained;     /* nonzero when standalone needs nothing from the repository */
  const char* meta_json;  /* a JSON object or NULL */
  const mine_dependency* dependencies;
  size_t dependency_count;
} mine_kernel;

/* What the host offers a plugin during `extract`. Functions return 0 on success, nonzero on a
 * bad argument (an index out of range, malformed meta JSON); they never abort the scan. */
typedef struct mine_host {
  uint32_t abi_version;

  const char* (*file_path)(const mine_file* file); /* repository-relative */
  const char* (*file_text)(const mine_file* file, size_t* length);

  /* Python files: the functions the host found (module level, methods, nested), 0 otherwise. */
  size_t (*python_function_count)(const mine_file* file);
  const char* (*python_function_qualname)(const mine_file* file, size_t function);
  int (*python_function_line)(const mine_file* file, size_t function);
  size_t (*python_decorator_count)(const mine_file* file, size_t function);
  /* Decorator `d` of function `function`, top to bottom, resolved through the file's imports
   * (`@hl.kernel(...)` with `import helion.language as hl` gives "helion.language.kernel");
   * the decorator's text when it names nothing imported. */
  const char* (*python_decorator)(const mine_file* file, size_t function, size_t d);

  /* Reports Python function `function` as a kernel; the host computes its dependency closure
   * (same file and across the repository) exactly as for built-in plugins. */
  int (*report_python_kernel)(mine_sink* sink, const mine_file* file, size_t function, const char* meta_json);
  /* Reports a kernel the plugin assembled itself. */
  int (*report_kernel)(mine_sink* sink, const mine_kernel* kernel);
  /* A problem local to this file; the scan goes on. */
  void (*report_problem)(mine_sink* sink, int line, const char* kind, const char* message);
} mine_host;

typedef struct mine_plugin_info {
  uint32_t abi_version; /* MINE_PLUGIN_ABI_VERSION the plugin was built with */
  const char* name;     /* unique among plugins, [a-z0-9_-]+ */
  const char* version;
  const char* description;
  const char* const* file_suffixes; /* NULL-terminated, e.g. {".py", NULL} */
  const char* const* prefilters;    /* NULL-terminated RE2 patterns; a file is handed over only if one matches */
  /* Called once per file that passed the prefilter, possibly from several threads at once. */
  void (*extract)(const mine_host* host, const mine_file* file, mine_sink* sink);
} mine_plugin_info;

typedef const mine_plugin_info* (*mine_plugin_entry_fn)(uint32_t host_abi);

#ifdef __cplusplus
}
#endif

#endif /* MINE_PLUGIN_H */
