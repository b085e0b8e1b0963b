#!/usr/bin/env bash
# Fingerprint of what `mine scan` extracts from each repository, to check that a speed change
# left the results alone: per repo the kernel count, the self-contained count, a hash over
# (path, qualname, standalone sha256), one over every kernel's dependencies and meta, and one over
# every kernel_launches row, all columns, in id order.
# usage: bench/scan_fingerprint.sh [REPO.git ...] > before.txt; ...; diff before.txt after.txt
# MINE_SAME_FILE_ONLY=1 in the environment fingerprints the same-file closure instead.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MINE=${MINE:-$here/../build/mine}
repos=("$@")
if [ ${#repos[@]} -eq 0 ]; then
  for d in /work/.mirror/*/repo; do repos+=("$d"); done
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for repo in "${repos[@]}"; do
  name=$(basename "$(dirname "$repo")")
  [ "$name" = "." ] && name=$(basename "$repo")
  rm -f "$work/c.db"*
  "$MINE" scan "$repo" --db "$work/c.db" --quiet >/dev/null
  python3 - "$work/c.db" "$name" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT path, qualname, standalone, self_contained, standalone_sha256, meta, external_modules, id"
                  " FROM kernels ORDER BY path, qualname, source_sha256").fetchall()
main, deps = hashlib.sha256(), hashlib.sha256()
for path, qualname, standalone, contained, sha, meta, ext, kid in rows:
    assert hashlib.sha256(standalone.encode()).hexdigest() == sha, (path, qualname)
    main.update(f"{path}\0{qualname}\0{sha}\n".encode())
    deps.update(f"{path}\0{qualname}\0{contained}\0{meta}\0{ext}\n".encode())
    for d in db.execute("SELECT name, kind, path, start_line FROM kernel_deps WHERE kernel_id=? ORDER BY rowid", (kid,)):
        deps.update(repr(d).encode())
contained = sum(r[3] for r in rows)
launches = hashlib.sha256()
count = 0
for row in db.execute("SELECT * FROM kernel_launches ORDER BY id"):
    launches.update(repr(row).encode())
    count += 1
print(f"{sys.argv[2]} kernels={len(rows)} self_contained={contained} standalones={main.hexdigest()[:16]} deps={deps.hexdigest()[:16]}"
      f" launches={count}:{launches.hexdigest()[:16]}")
PY
done
