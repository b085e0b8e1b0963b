-- Provenance that travels with every kernel: where its license comes from, and which
-- repository a local clone is. Columns are only added (schema/README: append-only).

-- Python files that declare another encoding (PEP 263: `# -*- coding: latin-1 -*-`) are
-- decoded and stored as UTF-8; this is what they were decoded from ('iso-8859-1', 'cp1252',
-- 'utf-8-sig' for a byte-order mark). NULL for plain UTF-8.
ALTER TABLE files ADD COLUMN encoding TEXT;

-- The license a scan read from the repository's own LICENSE*, LICENCE* or COPYING* file at
-- commit_id, as an SPDX id (NULL when none was found or none matched a known text well enough).
ALTER TABLE repos ADD COLUMN license_file TEXT;
ALTER TABLE repos ADD COLUMN license_file_path TEXT;        -- the file it was read from
ALTER TABLE repos ADD COLUMN license_file_confidence REAL;  -- Dice coefficient of the match, 0..1
-- Crawled repositories: 'api X, file Y' when the GitHub API's spdx_id and the file disagree.
ALTER TABLE repos ADD COLUMN license_disagreement TEXT;

-- The license of the kernel's file: its own SPDX-License-Identifier header, else the
-- repository's (the API's for crawled repositories, else the license file's).
ALTER TABLE kernels ADD COLUMN license TEXT;
-- 'spdx-header' | 'api' | 'file' | 'none'
ALTER TABLE kernels ADD COLUMN license_source TEXT;

-- A git repository scanned from a local clone whose origin remote is on GitHub is named
-- 'owner/name' like a crawled one; local_path keeps where it was read, origin_url the remote.
ALTER TABLE repos ADD COLUMN local_path TEXT;
ALTER TABLE repos ADD COLUMN origin_url TEXT;
