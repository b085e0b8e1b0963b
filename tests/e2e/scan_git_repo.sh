#!/usr/bin/env bash
# End to end through the real binary: build a git repository, scan it straight from the
# object database, re-scan (no duplicates), change it (kernels added and removed), and check
# that `mine query` refuses writes and leaves the corpus as it was.
set -euo pipefail
: "${MINE:?set MINE to the mine binary}" "${MINE_FIXTURES_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$MINE" query "$1" --db "$work/corpus.db" --format csv | tail -n +2; }

repo="$work/repo"
mkdir -p "$repo/pkg"
cp "$MINE_FIXTURES_DIR"/triton/basic_helpers.py "$MINE_FIXTURES_DIR"/triton/autotune_stack.py "$repo/pkg/"
git -C "$repo" init -q -b trunk
git -C "$repo" -c user.email=t@example.invalid -c user.name=t add -A
git -C "$repo" -c user.email=t@example.invalid -c user.name=t commit -qm one
head1=$(git -C "$repo" rev-parse HEAD)
# An uncommitted file must not be seen: the scan reads the commit, not the work tree.
cp "$MINE_FIXTURES_DIR"/triton/shadowed_jit.py "$repo/pkg/uncommitted.py"

"$MINE" scan "$repo" --db "$work/corpus.db" --quiet
[ "$(q 'SELECT count(*) FROM kernels')" = 3 ] || fail "expected 3 kernels, got $(q 'SELECT count(*) FROM kernels')"
[ "$(q 'SELECT commit_id FROM repos')" = "$head1" ] || fail "commit id not recorded"
[ "$(q "SELECT count(*) FROM kernels WHERE path='pkg/uncommitted.py'")" = 0 ] || fail "read the work tree"
ids_before=$(q 'SELECT id FROM kernels ORDER BY id')

"$MINE" scan "$repo" --db "$work/corpus.db" --quiet
[ "$(q 'SELECT count(*) FROM kernels')" = 3 ] || fail "re-scan duplicated kernels"
[ "$(q 'SELECT id FROM kernels ORDER BY id')" = "$ids_before" ] || fail "re-scan changed kernel ids"
[ "$(q 'SELECT count(*) FROM repos')" = 1 ] || fail "re-scan duplicated the repo"

# A bare clone is scanned the same way.
git clone -q --bare "$repo" "$work/bare.git"
"$MINE" scan "$work/bare.git" --db "$work/bare.db" --quiet
[ "$("$MINE" query 'SELECT count(*) FROM kernels' --db "$work/bare.db" --format csv | tail -1)" = 3 ] || fail "bare scan"

# New commit: one file removed, one added.
git -C "$repo" rm -q pkg/autotune_stack.py
cp "$MINE_FIXTURES_DIR"/triton/functional_form.py "$repo/pkg/"
git -C "$repo" add pkg/functional_form.py
git -C "$repo" -c user.email=t@example.invalid -c user.name=t commit -qm two
"$MINE" scan "$repo" --db "$work/corpus.db" --quiet
[ "$(q "SELECT group_concat(name, '|') FROM (SELECT name FROM kernels ORDER BY name)")" = "_mean_square|relu_kernel|rms_norm_kernel" ] \
  || fail "after second commit: $(q 'SELECT group_concat(name) FROM kernels')"
[ "$(q 'SELECT count(*) FROM kernel_deps WHERE kernel_id NOT IN (SELECT id FROM kernels)')" = 0 ] || fail "orphan deps"

# Read-only query: writes, pragmas and attach are refused and change nothing.
before=$(q 'SELECT count(*) FROM kernels')
for sql in "DELETE FROM kernels" "DROP TABLE kernels" "PRAGMA user_version=99" \
           "ATTACH DATABASE '$work/x.db' AS x" "SELECT 1; DELETE FROM kernels"; do
  if "$MINE" query "$sql" --db "$work/corpus.db" >/dev/null 2>"$work/err"; then fail "query accepted: $sql"; fi
  grep -qiE "read-only|one SQL statement|refused" "$work/err" || fail "unclear error for '$sql': $(cat "$work/err")"
done
[ "$(q 'SELECT count(*) FROM kernels')" = "$before" ] || fail "a refused query changed the corpus"
[ ! -e "$work/x.db" ] || fail "ATTACH created a file"

# Output formats.
"$MINE" query "SELECT name, start_line FROM kernels ORDER BY name" --db "$work/corpus.db" --format json \
  | python3 -c 'import json,sys; rows=json.load(sys.stdin); assert rows[0]["name"]=="_mean_square" and isinstance(rows[0]["start_line"], int), rows'
"$MINE" query "SELECT name FROM kernels" --db "$work/corpus.db" | grep -q "(3 rows)" || fail "table format"

# Missing inputs fail clearly and store nothing.
if "$MINE" scan "$work/does-not-exist" --db "$work/corpus.db" 2>"$work/err"; then fail "scan of a missing path succeeded"; fi
grep -q "does-not-exist" "$work/err" || fail "error does not name the path"
echo "scan_git_repo: ok"
