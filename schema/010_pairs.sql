-- PyTorch -> Triton pairs: a torch_module kernel (an nn.Module the torch_module plugin mined)
-- compiled by Inductor in the harness's inductor stage, as `mine check --ingest` records it.
-- The Triton kernels Inductor generated are ordinary kernels rows of the inductor plugin, stored
-- under a repository of their own named 'inductor:<source repository>' (one per source
-- repository, its files the pairs' output code at '<module path>/<class>/graph<N>.py'), so they
-- are deduplicated and queried like every kernel; module_pair_kernels links them to their pair.
CREATE TABLE module_pairs (
  id                 INTEGER PRIMARY KEY,
  module_id          INTEGER NOT NULL UNIQUE REFERENCES kernels(id) ON DELETE CASCADE,  -- the newest check that compiled
  module_sha256      TEXT NOT NULL,     -- the module's standalone_sha256 when it was checked
  generated_repo_id  INTEGER REFERENCES repos(id) ON DELETE SET NULL,
  output_code        TEXT NOT NULL,     -- JSON array: Inductor's output code per graph, each with its call() wrapper
  output_code_sha256 TEXT NOT NULL,     -- of the graphs joined as the export writes them
  inputs             TEXT NOT NULL DEFAULT '{}',  -- JSON {init: {name: repr}, forward: [{name, shape, dtype}]} as run
  eager_ok           INTEGER NOT NULL,
  compiled_ok        INTEGER NOT NULL,
  outputs_match      INTEGER NOT NULL,  -- 1 when compiled outputs equal eager ones within the dtype tolerance
  max_abs_error      REAL,
  tolerances         TEXT NOT NULL DEFAULT '{}',  -- JSON dtype -> [rtol, atol]
  deduce             TEXT NOT NULL DEFAULT '[]',  -- JSON: the input corrections the deducer made
  torch_version      TEXT,
  triton_version     TEXT,
  gpu                TEXT,
  results_file       TEXT,
  checked_at         TEXT NOT NULL
);

CREATE TABLE module_pair_kernels (
  pair_id   INTEGER NOT NULL REFERENCES module_pairs(id) ON DELETE CASCADE,
  kernel_id INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  PRIMARY KEY (pair_id, kernel_id)
);
CREATE INDEX module_pair_kernels_by_kernel ON module_pair_kernels(kernel_id);
