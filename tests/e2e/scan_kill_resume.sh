#!/usr/bin/env bash
# A scan killed with SIGKILL at arbitrary moments leaves the corpus either as it was or fully
# updated, never half-written; re-running completes it. Delays come from a fixed seed.
set -euo pipefail
: "${MINE:?}" "${MINE_FIXTURES_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$MINE" query "$1" --db "$work/c.db" --format csv | tail -n +2; }

# Enough files that a scan takes a while: 400 copies of the fixtures in subpackages.
make_tree() {  # $1 = folder, $2 = copies
  for i in $(seq "$2"); do
    mkdir -p "$1/pkg$i"
    cp "$MINE_FIXTURES_DIR"/triton/*.py "$1/pkg$i/"
  done
}
make_tree "$work/src" 40
"$MINE" scan "$work/src" --db "$work/c.db" --quiet --jobs 1
first=$(q "SELECT count(*) FROM kernels")
[ "$first" -gt 0 ] || fail "no kernels in the first scan"

make_tree "$work/src" 400  # the second scan adds 360 packages
RANDOM=20261122
for attempt in $(seq 20); do
  "$MINE" scan "$work/src" --db "$work/c.db" --quiet --jobs 1 &
  pid=$!
  sleep "0.$(printf '%02d' $((RANDOM % 60)))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ "$(sqlite3 "$work/c.db" 'PRAGMA integrity_check')" = ok ] \
    || fail "integrity check failed after kill $attempt"
  now=$(q "SELECT count(*) FROM kernels")
  if [ "$now" != "$first" ] && [ "$now" != "$((first * 10))" ]; then
    fail "half-written corpus after kill $attempt: $now kernels (expected $first or $((first * 10)))"
  fi
done
"$MINE" scan "$work/src" --db "$work/c.db" --quiet
[ "$(q 'SELECT count(*) FROM kernels')" = "$((first * 10))" ] || fail "re-run did not complete the scan"
[ "$(q 'SELECT count(*) FROM (SELECT path, qualname FROM kernels GROUP BY path, qualname, source_sha256 HAVING count(*) > 1)')" = 0 ] \
  || fail "duplicates after kills"
echo "scan_kill_resume: ok"
