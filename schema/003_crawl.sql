-- Crawl state of repositories discovered through the GitHub API (`mine crawl`).
-- repos.name is "owner/name" for crawled repositories.
ALTER TABLE repos ADD COLUMN clone_url TEXT;
ALTER TABLE repos ADD COLUMN stars INTEGER;
ALTER TABLE repos ADD COLUMN default_branch TEXT;
ALTER TABLE repos ADD COLUMN license TEXT;          -- SPDX id from the API, NULL when none
ALTER TABLE repos ADD COLUMN pushed_at TEXT;        -- as the API reported it at the last discovery
ALTER TABLE repos ADD COLUMN size_kb INTEGER;
ALTER TABLE repos ADD COLUMN fork INTEGER;
ALTER TABLE repos ADD COLUMN archived INTEGER;
-- 'discovered' | 'cloned' | 'mined' | 'failed'; NULL for local scans
ALTER TABLE repos ADD COLUMN crawl_state TEXT;
ALTER TABLE repos ADD COLUMN crawl_error TEXT;      -- the last failure, kept until a later success
ALTER TABLE repos ADD COLUMN cloned_commit TEXT;
ALTER TABLE repos ADD COLUMN mined_pushed_at TEXT;  -- pushed_at when commit_id was mined
ALTER TABLE repos ADD COLUMN mined_kernels INTEGER;
ALTER TABLE repos ADD COLUMN crawled_at TEXT;       -- last state change, UTC
CREATE INDEX repos_by_crawl_state ON repos(crawl_state);

-- ETags of API answers so a re-crawl asks with If-None-Match (304s are free of rate limit).
CREATE TABLE api_etags (
  url  TEXT PRIMARY KEY,
  etag TEXT NOT NULL,
  body TEXT NOT NULL
);
