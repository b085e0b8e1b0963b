-- `mine check`: inferred launch signatures and what compiling and running each kernel showed.

-- The signature `mine check --emit` wrote for a kernel (replaced at every emit).
-- signature: JSON object parameter -> Triton type ("*fp32", "i32", "constexpr"), in parameter order.
-- constexprs: JSON object parameter -> value. guessed: JSON array of the parameters whose type or
-- value mine guessed (from code use, names or fallbacks) rather than read from an annotation, a
-- default, an autotune config, a heuristic or Inductor's triton_meta. origins: JSON object
-- parameter -> {origin, why}. grid: JSON [g0, g1, g2] or NULL; numels: JSON object (Inductor).
CREATE TABLE kernel_signatures (
  kernel_id   INTEGER PRIMARY KEY REFERENCES kernels(id) ON DELETE CASCADE,
  signature   TEXT NOT NULL,
  constexprs  TEXT NOT NULL DEFAULT '{}',
  guessed     TEXT NOT NULL DEFAULT '[]',
  origins     TEXT NOT NULL DEFAULT '{}',
  grid        TEXT,
  numels      TEXT NOT NULL DEFAULT '{}',
  options     TEXT NOT NULL DEFAULT '{}',  -- num_warps / num_stages of the first autotune config
  autotune    TEXT NOT NULL DEFAULT '[]',  -- the kernel's own autotune configs: [{num_warps, num_stages, constexprs}]
  notes       TEXT NOT NULL DEFAULT '[]',  -- why parts could not be inferred
  standalone_sha256 TEXT NOT NULL,         -- of the module the signature was inferred from
  inferred_at TEXT NOT NULL
);

-- One row per kernel per ingested check; earlier checks are kept (other GPUs, other versions).
-- stage_reached: import | compile | load | run, or worker_start when no worker could start for
-- the kernel; status: ok | fail.
-- error_class (NULL when ok): syntax | missing_name | type_error | unsupported_op |
--   resource_limit | illegal_address | timeout | crash | other.
CREATE TABLE check_results (
  id                INTEGER PRIMARY KEY,
  kernel_id         INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  standalone_sha256 TEXT,              -- the kernel's standalone when the results were ingested
  stage_requested   TEXT,
  stage_reached     TEXT NOT NULL,
  status            TEXT NOT NULL,
  error_class       TEXT,
  message           TEXT,
  compile_ms        REAL,
  n_regs            INTEGER,
  n_spills          INTEGER,
  shared_bytes      INTEGER,
  run_ms            REAL,
  arch              TEXT,              -- e.g. sm_90
  triton_version    TEXT,
  torch_version     TEXT,
  driver_version    TEXT,
  gpu               TEXT,              -- GPU name; NULL for compile-only checks without one
  grid              TEXT,              -- JSON, as launched
  constexprs        TEXT,              -- JSON, as compiled
  guessed           TEXT,              -- JSON array, as the harness reports it
  extra             TEXT NOT NULL DEFAULT '{}',  -- every other field of the result row
  results_file      TEXT,              -- where the row was ingested from
  checked_at        TEXT NOT NULL      -- UTC time of ingestion
);
CREATE INDEX check_results_by_kernel ON check_results(kernel_id, id);

-- The newest check of each kernel.
CREATE VIEW check_latest AS
  SELECT r.* FROM check_results r
  WHERE r.id = (SELECT max(id) FROM check_results WHERE kernel_id = r.kernel_id);

-- Autotune timings (`run_bundle.py --autotune`): every candidate config of a check, its median
-- time (NULL when it failed) and the fastest marked is_best.
CREATE TABLE check_configs (
  id        INTEGER PRIMARY KEY,
  result_id INTEGER NOT NULL REFERENCES check_results(id) ON DELETE CASCADE,
  kernel_id INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  config    TEXT NOT NULL,   -- JSON: {constexprs, options} as the harness ran it
  time_ms   REAL,
  is_best   INTEGER NOT NULL DEFAULT 0,
  status      TEXT,          -- ok | fail, as the harness reported the config
  error_class TEXT,          -- why a config failed (e.g. resource_limit for too much shared memory)
  details     TEXT NOT NULL DEFAULT '{}'  -- JSON: compile_ms, n_regs, n_spills, run_ms, message
);
CREATE INDEX check_configs_by_kernel ON check_configs(kernel_id);
