-- Foundation schema. Public interface: columns are only ever added, never renamed or removed.

-- One row per scanned input: a git repository (local or crawled) or a plain folder.
CREATE TABLE repos (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL UNIQUE,   -- "owner/name" for crawled repos, the absolute path for local scans
  source_kind TEXT NOT NULL,          -- 'git' | 'folder'
  location    TEXT,                   -- where it was read from (path or clone URL)
  commit_id   TEXT,                   -- commit whose tree was mined (NULL for folders)
  scanned_at  TEXT                    -- UTC, ISO 8601
);

-- Every file the scan looked at that passed the path filter (.py, .ipynb, ...).
CREATE TABLE files (
  id           INTEGER PRIMARY KEY,
  repo_id      INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  path         TEXT NOT NULL,         -- relative to the repository root, '/' separated
  blob_id      TEXT NOT NULL,         -- git blob id (computed the way `git hash-object` does for folders)
  size         INTEGER NOT NULL,
  parsed       INTEGER NOT NULL,      -- 1 if the prefilter let it through to the parser
  kernel_count INTEGER NOT NULL DEFAULT 0,
  UNIQUE (repo_id, path)
);

CREATE TABLE kernels (
  id                INTEGER PRIMARY KEY,
  plugin            TEXT NOT NULL,    -- extractor plugin name, e.g. 'triton'
  name              TEXT NOT NULL,    -- the kernel's own name
  qualname          TEXT NOT NULL,    -- dotted name within its file, e.g. 'Ops.rms_norm_kernel'
  repo              TEXT NOT NULL,    -- repos.name
  repo_id           INTEGER NOT NULL REFERENCES repos(id) ON DELETE CASCADE,
  path              TEXT NOT NULL,
  start_line        INTEGER NOT NULL, -- 1-based, first decorator line included
  end_line          INTEGER NOT NULL,
  source            TEXT NOT NULL,    -- the kernel's definition as written
  standalone        TEXT NOT NULL,    -- a self-contained module: imports, helpers, the kernel
  source_sha256     TEXT NOT NULL,
  standalone_sha256 TEXT NOT NULL,
  self_contained    INTEGER NOT NULL, -- 1 when every name the kernel reaches was resolved
  external_modules  TEXT NOT NULL DEFAULT '[]', -- JSON array of third-party modules the standalone imports
  meta              TEXT NOT NULL DEFAULT '{}', -- plugin-specific JSON
  commit_id         TEXT,
  UNIQUE (repo_id, path, qualname, source_sha256)
);
CREATE INDEX kernels_by_standalone ON kernels(standalone_sha256);
CREATE INDEX kernels_by_name ON kernels(name);

-- Everything a kernel's standalone pulls in, and every name that could not be resolved.
-- kind: 'function' | 'jit_function' | 'class' | 'constant' | 'import' | 'unresolved'
CREATE TABLE kernel_deps (
  kernel_id  INTEGER NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
  name       TEXT NOT NULL,
  kind       TEXT NOT NULL,
  path       TEXT,                    -- file the definition came from (NULL for unresolved)
  start_line INTEGER
);
CREATE INDEX kernel_deps_by_kernel ON kernel_deps(kernel_id);

CREATE TABLE scans (
  id            INTEGER PRIMARY KEY,
  started_at    TEXT NOT NULL,
  finished_at   TEXT,
  command       TEXT NOT NULL,        -- 'scan' | 'crawl'
  inputs        TEXT NOT NULL,        -- JSON array
  files_seen    INTEGER NOT NULL DEFAULT 0,
  files_parsed  INTEGER NOT NULL DEFAULT 0,
  kernels_found INTEGER NOT NULL DEFAULT 0,
  errors        INTEGER NOT NULL DEFAULT 0
);

-- Per-file problems met while scanning; the scan goes on past each of them.
-- kind: 'unreadable' | 'binary' | 'encoding' | 'syntax' | 'too_large' | 'empty' | 'plugin'
CREATE TABLE scan_errors (
  id      INTEGER PRIMARY KEY,
  scan_id INTEGER REFERENCES scans(id) ON DELETE SET NULL,
  repo    TEXT NOT NULL,
  path    TEXT NOT NULL,
  line    INTEGER,
  kind    TEXT NOT NULL,
  message TEXT NOT NULL
);
