-- Deduplication (issue 6): written by `mine dedup`, read by `mine export`.
--
-- What is hashed is a kernel's standalone module (what export writes), normalized by
-- core/dedup/code_normalizer: comments, docstrings and layout dropped (exact level), and local
-- identifiers renamed v0, v1, ... as well (alpha level). The near level is MinHash over 5-token
-- shingles of the exact stream with LSH banding and a verified estimated Jaccard >= threshold.
-- Levels nest: exact clusters lie inside alpha clusters, which lie inside near clusters.
--
-- A cluster's id is its representative's kernel id. The representative is the copy in the
-- repository with the most stars, then the oldest commit, then the lowest kernel id
-- (core/dedup/representative.h). A kernel without duplicates is its own one-member cluster.
-- IF NOT EXISTS: this file may run a second time on a corpus migrated before 003 existed, when
-- the migration counter took it for the third file.
CREATE TABLE IF NOT EXISTS kernel_dedup (
  kernel_id         INTEGER PRIMARY KEY REFERENCES kernels(id) ON DELETE CASCADE,
  standalone_sha256 TEXT NOT NULL,    -- of the text that was hashed; a changed kernel is rehashed
  params            TEXT NOT NULL,    -- normalizer + MinHash parameters the row was made with
  tokens            INTEGER NOT NULL, -- lexical tokens the MinHash signature was made from
  exact_hash        TEXT NOT NULL,    -- hex SHA-256 of the exact token stream
  alpha_hash        TEXT NOT NULL,    -- hex SHA-256 of the alpha-renamed token stream
  minhash           BLOB NOT NULL,    -- signature: perms x uint32, little-endian
  exact_cluster     INTEGER,          -- representative kernel id at each level (NULL until clustered)
  alpha_cluster     INTEGER,
  near_cluster      INTEGER,
  is_representative INTEGER NOT NULL DEFAULT 1  -- 1 when near_cluster = kernel_id
);
CREATE INDEX IF NOT EXISTS kernel_dedup_by_exact ON kernel_dedup(exact_hash);
CREATE INDEX IF NOT EXISTS kernel_dedup_by_near ON kernel_dedup(near_cluster);

-- One row per cluster with more than one member, per level ('exact' | 'alpha' | 'near').
CREATE TABLE IF NOT EXISTS dup_clusters (
  level      TEXT NOT NULL,
  cluster_id INTEGER NOT NULL,  -- the representative's kernel id
  size       INTEGER NOT NULL,
  repos      INTEGER NOT NULL,  -- distinct repositories among the members
  PRIMARY KEY (level, cluster_id)
);

-- Each `mine dedup` run and the parameters it clustered with.
CREATE TABLE IF NOT EXISTS dedup_runs (
  id             INTEGER PRIMARY KEY,
  ran_at         TEXT NOT NULL,
  params         TEXT NOT NULL,
  threshold      REAL NOT NULL,
  bands          INTEGER NOT NULL,
  rows_per_band  INTEGER NOT NULL,
  kernels        INTEGER NOT NULL,
  hashed         INTEGER NOT NULL,  -- kernels (re)hashed by this run; the rest kept their rows
  exact_removed  INTEGER NOT NULL,  -- kernels that are not their exact cluster's representative
  alpha_removed  INTEGER NOT NULL,
  near_removed   INTEGER NOT NULL
);
