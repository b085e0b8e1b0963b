-- Kernels PyTorch Inductor generated (plugin 'inductor'). Inductor emits the same kernel for many
-- graphs and models, so a kernel and the places it appears are kept apart:
--
-- * kernels: one row per distinct kernel module (same source_sha256) within a repository. Its
--   path, qualname, lines and meta are those of its first occurrence in path order that sits in
--   a graph (else its first occurrence), so the row keeps its id across rescans of the same tree.
--   source and standalone are both the generated module: it is complete by itself.
--   meta: graph, category, decorator, parameters, signature (parameter -> Triton type, as in
--   triton_meta; 2024-era index keys mapped to parameter names), constants, size_hints (list or
--   dict, as written), aten_ops, source_nodes, node_mapping, pytorch_code, kernel_path,
--   source_origin.
-- * kernel_occurrences: one row per place a kernel appears: each async_compile.triton(...) of an
--   output_code.py or cached output-code module, and each one-kernel torchinductor cache file.
--   Count occurrences for per-graph or per-model numbers, kernels for distinct kernels.
--
-- An old-layout kernel whose source is only in its '# kernel path:' cache file takes that file
-- when the scanned tree holds it (matched on its last two path parts, 'ab/<hash>.py') or when it
-- is under $MINE_INDUCTOR_CACHE; otherwise its occurrence has kernel_id NULL and source_origin
-- 'missing', and scan_errors gets a 'missing_source' row naming the path.
-- The inductor plugin's scan_errors kinds: missing_source, unreadable_kernel (a call the syntax
-- tree lost, e.g. a truncated file), not_python, no_kernel, unknown_decorator, bad_meta.
CREATE TABLE kernel_occurrences (
  id            INTEGER PRIMARY KEY,
  kernel_id     INTEGER REFERENCES kernels(id) ON DELETE CASCADE,  -- NULL when the source is missing
  repo_id       INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  path          TEXT NOT NULL,      -- file of the occurrence
  graph         TEXT,               -- e.g. 'model__0_inference_0.0' (the debug folder's name); NULL for cache kernel files
  name          TEXT NOT NULL,      -- the @triton.jit function
  qualname      TEXT NOT NULL,      -- the variable output_code.py binds it to (the name, in cache files)
  start_line    INTEGER NOT NULL,
  end_line      INTEGER NOT NULL,
  category      TEXT,               -- pointwise | reduction | persistent_reduction | template | foreach | ...; NULL if unknown
  source_origin TEXT NOT NULL,      -- 'inline' | 'cache_file' (in the tree) | 'cache_dir' ($MINE_INDUCTOR_CACHE) | 'cache_module' | 'missing'
  kernel_path   TEXT,               -- the '# kernel path:' comment as written
  aten_ops      TEXT NOT NULL DEFAULT '[]',  -- JSON array, e.g. ["aten.add", "aten.native_layer_norm"]
  source_nodes  TEXT NOT NULL DEFAULT '[]',  -- JSON array of FX source node names
  pytorch_code  TEXT NOT NULL DEFAULT '[]',  -- JSON array of {file, line, function, code} from fx_graph_readable.py
  meta          TEXT NOT NULL DEFAULT '{}'   -- this occurrence's full plugin meta
);
CREATE INDEX kernel_occurrences_by_kernel ON kernel_occurrences(kernel_id);
CREATE INDEX kernel_occurrences_by_repo_graph ON kernel_occurrences(repo_id, graph);
