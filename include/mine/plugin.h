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
 * The version changes whenever a struct below changes layout or meaning. Version 2 added the
 * syntax tree (tree-sitter's own C API: TSTree and TSNode cross the boundary as they are), Python
 * functions and module statements with their nodes, name resolution through the imports, and
 * closure roots with a plugin's dependency labels: enough for mine's own Triton, Inductor,
 * numba and CUDA plugins, which reach the host through this header only. Version 3 added
 * python_files_calling (the other files of the repository that call a name) and a statement
 * root's extra_reads. Version 4 added repository_file_text and repository_paths_ending (any other
 * file of the repository by path, for languages whose units include each other's text).
 *
 * Nodes handed out live as long as the file's strings (until `extract` returns). A plugin that
 * calls ts_* functions on them uses the tree-sitter library `mine` itself runs with.
 */
#ifndef MINE_PLUGIN_H
#define MINE_PLUGIN_H

#include <stddef.h>
#include <stdint.h>
#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MINE_PLUGIN_ABI_VERSION 4u

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
  const char* kind; /* e.g. function | macro | constant | type | include | unresolved */
  const char* path; /* file the definition lives in; NULL when unknown or unresolved */
  int line;         /* 1-based line, 0 when unknown */
  const char* note; /* NULL, or why an unresolved name could not be resolved */
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
  const char* const* external_modules; /* NULL-terminated (or NULL): headers/modules the standalone uses from outside */
} mine_kernel;

/* Module-level statements of a Python file (definitions nested in module-level if/try blocks are
 * statements of their own; see core/python/module_model.h). */
typedef enum mine_statement_kind {
  MINE_STATEMENT_FUNCTION = 0,
  MINE_STATEMENT_CLASS = 1,
  MINE_STATEMENT_ASSIGNMENT = 2,
  MINE_STATEMENT_IMPORT = 3,
  MINE_STATEMENT_GUARDED = 4, /* a guarded block of imports and assignments, kept whole */
  MINE_STATEMENT_OTHER = 5
} mine_statement_kind;

typedef struct mine_python_statement {
  int kind; /* mine_statement_kind */
  TSNode node;
  int start_line; /* 1-based, decorators included */
  int end_line;
  int indent;     /* column of the first line */
} mine_python_statement;

/* A function definition anywhere in a Python file. */
typedef struct mine_python_function {
  const char* name;
  const char* qualname; /* `Cls.method`, `outer.<locals>.inner` */
  TSNode node;          /* decorated_definition when decorated, else function_definition */
  TSNode definition;    /* the function_definition */
  size_t decorator_count;
  int in_class;
  int in_function;
  int indent;
  int64_t statement;    /* index of the module statement it is, -1 when nested deeper */
} mine_python_function;

typedef struct mine_host mine_host;

/* Names the kind of a definition the closure pulls in (e.g. "jit_function"): statement
 * `statement` of `module`, which may be another file of the repository. NULL or "" keeps the
 * generic kind (function | class | constant | import). Must return a string that outlives the
 * call (a literal, or one the host handed out for `module`). */
typedef const char* (*mine_label_fn)(void* context, const mine_host* host, const mine_file* module,
                                     size_t statement);

typedef enum mine_root_kind {
  MINE_ROOT_FUNCTION = 0, /* `root` indexes python_function */
  MINE_ROOT_STATEMENT = 1 /* `root` indexes python_statement (e.g. `k = triton.jit(fn)`) */
} mine_root_kind;

/* A Python kernel whose dependency closure the host computes (same file and across the
 * repository). For a function root the host names it, takes its lines and source, and puts
 * "decorators" (resolved), "parameters" and, when they apply, "method" and "nested" into its
 * meta; for a statement root the plugin names it and the meta is the plugin's alone. */
typedef struct mine_python_kernel {
  int root_kind; /* mine_root_kind */
  size_t root;
  const char* name;      /* statement roots: required; function roots: NULL (the function's name) */
  const char* text;      /* the kernel's code in the standalone; NULL: the function at column 0 with its
                            decorators (staticmethod/classmethod dropped), or the statement dedented */
  const char* meta_json; /* a JSON object merged over the host's meta, or NULL */
  mine_label_fn label;   /* NULL: generic dependency kinds */
  void* label_context;
  /* Version 3. Statement roots: NULL, or a NULL-terminated list of module-level names of the file
   * the standalone must define although the root does not read them (a class that instantiations
   * pass the kernel, `ResNet(BasicBlock, ...)`); the closure pulls them in as it pulls in what the
   * root reads. */
  const char* const* extra_reads;
} mine_python_kernel;

/* What the host offers a plugin during `extract`. Functions return 0 on success, nonzero on a
 * bad argument (an index out of range, malformed meta JSON); they never abort the scan. */
struct mine_host {
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

  /* The file's Python syntax tree (parsed on first use), NULL when the file is not Python or
   * did not parse. Notebooks give the tree of their code cells. */
  const TSTree* (*python_tree)(const mine_file* file);
  /* Text of a node of that tree (not NUL-terminated). */
  const char* (*python_node_text)(const mine_file* file, TSNode node, size_t* length);
  /* Text of a node with `indent` columns removed from each line, so nested code reads as top level. */
  const char* (*python_dedented_text)(const mine_file* file, TSNode node, int indent);
  int (*python_function)(const mine_file* file, size_t function, mine_python_function* out);
  /* Decorator expression `d` of function `function` (a null node when out of range). */
  TSNode (*python_decorator_node)(const mine_file* file, size_t function, size_t d);
  /* The function's parameters as a JSON array of {name, annotation?, default?}. */
  const char* (*python_parameters)(const mine_file* file, size_t function);
  size_t (*python_statement_count)(const mine_file* file);
  int (*python_statement)(const mine_file* file, size_t statement, mine_python_statement* out);
  /* Module statements binding `name` in source order: writes up to `capacity` indices to
   * `statements` and returns how many there are. */
  size_t (*python_bindings)(const mine_file* file, const char* name, size_t* statements, size_t capacity);
  /* Dotted name an expression refers to through the file's imports (`tl.load` -> "triton.language.load",
   * `jit(...)` -> "triton.jit" after `from triton import jit`); NULL when its base is defined in the
   * file or unbound. */
  const char* (*python_qualified_name)(const mine_file* file, TSNode expression);

  /* Reports a Python kernel; the host computes its dependency closure exactly as for every plugin. */
  int (*report_python_kernel)(mine_sink* sink, const mine_file* file, const mine_python_kernel* kernel);
  /* Reports a kernel the plugin assembled itself (Python-embedded or non-Python languages). */
  int (*report_kernel)(mine_sink* sink, const mine_kernel* kernel);
  /* A problem local to this file; the scan goes on. */
  void (*report_problem)(mine_sink* sink, int line, const char* kind, const char* message);

  /* Version 3. Other Python files of the repository whose text calls `name` (`name(` or
   * `obj.name(`; whether the call there is this file's `name` is the plugin's to check through
   * that file's imports), in path order: writes up to `capacity` handles to `out` and returns how
   * many it wrote. The handles answer every Python function above (not report_*) and live as long
   * as `file`'s strings; a handle's file is parsed only when a function other than file_path and
   * file_text is asked of it, so reading the text first to rule a file out costs no parse.
   * 0 outside a repository scan. */
  size_t (*python_files_calling)(const mine_file* file, const char* name, const mine_file** out, size_t capacity);

  /* Version 4. The text of another file of the repository `file` belongs to (any file of its tree,
   * not only those a plugin reads: headers, say), by repository-relative path; NULL when the tree
   * has no such file, when it cannot be read or is not text, and outside a repository scan. The
   * text lives as long as `file`'s strings. */
  const char* (*repository_file_text)(const mine_file* file, const char* path, size_t* length);
  /* Version 4. Paths of the repository's files equal to `tail` or ending in "/" `tail`
   * ("llmc/common.h" finds "src/llmc/common.h"), in path order: writes up to `capacity` of them to
   * `out` and returns how many there are in all. Strings live as long as `file`'s. */
  size_t (*repository_paths_ending)(const mine_file* file, const char* tail, const char** out, size_t capacity);
};

typedef struct mine_plugin_info {
  uint32_t abi_version; /* MINE_PLUGIN_ABI_VERSION the plugin was built with */
  const char* name;     /* unique among plugins, [a-z0-9_-]+ */
  const char* version;
  const char* description;
  const char* const* file_suffixes; /* NULL-terminated, e.g. {".py", NULL} */
  const char* const* prefilters;    /* NULL-terminated RE2 patterns; a file is handed over only if one matches */
  /* Called once per file that passed the prefilter, possibly from several threads at once;
   * `context` is the field below. */
  void (*extract)(const mine_host* host, const mine_file* file, mine_sink* sink, void* context);
  void* context; /* the plugin's own state, handed back to `extract` and `claims` */
  /* Optional (NULL: never). Nonzero when the whole file is output of the tool this plugin reads
   * (code torch.compile generated, say): the host then hands the file to this plugin alone, so
   * one kernel is not stored twice under two plugins. Asked only when the prefilter matched;
   * must be cheap and must not report anything. */
  int (*claims)(const mine_host* host, const mine_file* file, void* context);
} mine_plugin_info;

typedef const mine_plugin_info* (*mine_plugin_entry_fn)(uint32_t host_abi);

/* Optional: what `mine crawl` asks GitHub for to find repositories holding this plugin's kernels.
 * It lives outside mine_plugin_info, behind a second optional entry point, so that adding it
 * changed no struct and needed no new ABI version. A plugin library may export
 *
 *     const mine_discovery_hints* mine_plugin_discovery(uint32_t host_abi);
 *
 * returning a static struct, or NULL for none. Every list is NULL-terminated, and may be NULL. */
typedef struct mine_discovery_hints {
  uint32_t abi_version;                        /* MINE_PLUGIN_ABI_VERSION the plugin was built with */
  const char* const* code_search_terms;        /* code search words, e.g. {"__global__", NULL} */
  const char* const* code_search_extensions;   /* without the dot, e.g. {"cu", "cuh", NULL}: each term
                                                  is searched in files of each; NULL: every file */
  const char* const* topics;                   /* GitHub topics, e.g. {"cuda-kernels", NULL} */
} mine_discovery_hints;

typedef const mine_discovery_hints* (*mine_plugin_discovery_fn)(uint32_t host_abi);

#ifdef __cplusplus
}
#endif

#endif /* MINE_PLUGIN_H */
