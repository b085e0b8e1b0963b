-- Discovery as a set of strategies (`mine crawl`): which ones found each repository, and what
-- --confirm's code search said of it.
-- Comma-separated, sorted set of strategies that have reported the repository over all crawls:
-- repo_search, code_search, topic, repos_file. NULL for local scans.
ALTER TABLE repos ADD COLUMN discovered_by TEXT;
-- --confirm: 1 when code search found a file with a kernel's search term in the repository,
-- 0 when it found none (then the repository was recorded, not cloned); NULL when not asked.
ALTER TABLE repos ADD COLUMN confirmed INTEGER;
