-- Kernels checked in another form than their verbatim standalone, and the Triton each check ran on.
--
-- check_results.form: which module the harness compiled for the row:
--   'standalone'  the kernel's standalone as stored (kernels.standalone);
--   'kernel_only' the @triton.jit function with only what its body uses (the standalone could not
--                 be imported: e.g. a 2024 Inductor header importing AttrsDescriptor);
--   'ported'      the standalone or kernel-only module rewritten onto the installed Triton by the
--                 table of moved APIs (kernels/harness/triton_ports.py), after a missing_name; or a
--                 CUDA standalone given back what the installed toolkit removed (a macro, CUB's
--                 operators; kernels/harness/cuda_kernel.py), before its first compile.
-- A ported Triton check is stored as two rows: the first outcome (its own form, then 'ported'
-- follows) and the ported one (a CUDA port is one row); check_latest therefore shows the ported outcome. rewrites: JSON list of
-- {move, old, new, count} applied for a 'ported' row, else [].
ALTER TABLE check_results ADD COLUMN form TEXT NOT NULL DEFAULT 'standalone';
ALTER TABLE check_results ADD COLUMN rewrites TEXT NOT NULL DEFAULT '[]';
-- Rows ingested before this column said the form in extra.module_checked.
UPDATE check_results SET form = 'kernel_only'
  WHERE json_valid(extra) AND json_extract(extra, '$.module_checked') = 'kernel_only';

-- The ported source of a kernel, stored beside the original (kernels.standalone never changes),
-- one per kernel and Triton version it was ported onto; re-ingesting replaces it.
CREATE TABLE kernel_ports (
  kernel_id       INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  triton_version  TEXT NOT NULL,   -- the installed Triton the rewrites target ('' when unknown)
  of_form         TEXT NOT NULL,   -- standalone | kernel_only: the module that was ported
  source          TEXT NOT NULL,
  source_sha256   TEXT NOT NULL,
  original_sha256 TEXT NOT NULL,   -- kernels.standalone_sha256 when the port was ingested
  rewrites        TEXT NOT NULL DEFAULT '[]',
  status          TEXT NOT NULL,   -- ok | fail: the check of the ported source
  result_id       INTEGER REFERENCES check_results(id) ON DELETE SET NULL,
  created_at      TEXT NOT NULL,
  PRIMARY KEY (kernel_id, triton_version)
);

-- Every form of every kernel a query or `mine export --form` can choose from: 'original' (the
-- standalone) and 'ported' (per Triton version). The kernel-only form of Inductor kernels is
-- computed by `mine export --form kernel-only`, not stored.
CREATE VIEW kernel_forms AS
  SELECT id AS kernel_id, 'original' AS form, NULL AS triton_version, standalone AS source FROM kernels
  UNION ALL
  SELECT kernel_id, 'ported', triton_version, source FROM kernel_ports;
