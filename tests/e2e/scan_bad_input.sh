#!/usr/bin/env bash
# Bad files never stop a scan: each is reported with its path and kind, the rest is mined.
set -euo pipefail
: "${MINE:?}" "${MINE_FIXTURES_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
src="$work/src"
mkdir -p "$src/sub"
cp "$MINE_FIXTURES_DIR/triton/basic_helpers.py" "$src/good.py"
printf 'import triton\n\x00\x00\x00binary' > "$src/binary.py"
printf 'import triton\nname = "\xff\xfe bad utf-8"\n' > "$src/latin1.py"
printf 'import triton\nimport triton.language as tl\n\n@triton.jit\ndef broken(x_ptr):\n    tl.store(x_ptr, 1 +* 2)\n\n@triton.jit\ndef fine(x_ptr):\n    tl.store(x_ptr, 1.0)\n' > "$src/syntax.py"
: > "$src/empty.py"
head -c $((3 * 1024 * 1024)) /dev/zero | tr '\0' 'a' > "$src/huge.py"
ln -s /etc/passwd "$src/sub/link.py"
ln -s "$src" "$src/sub/loop"

"$MINE" scan "$src" --db "$work/c.db" --max-file-size 2 > "$work/out" 2>&1 || fail "scan failed: $(cat "$work/out")"
q() { "$MINE" query "$1" --db "$work/c.db" --format csv | tail -n +2; }
kinds=$(q "SELECT path || ':' || kind FROM scan_errors ORDER BY path, kind" | tr '\n' ' ')
for want in "binary.py:binary" "huge.py:too_large" "latin1.py:encoding" "syntax.py:syntax"; do
  [[ " $kinds " == *" $want "* ]] || fail "missing problem $want in: $kinds"
done
[ "$(q "SELECT count(*) FROM kernels WHERE path='good.py'")" = 2 ] || fail "good file not mined"
[ "$(q "SELECT count(*) FROM kernels WHERE name='fine'")" = 1 ] || fail "kernel after a syntax error lost"
[ "$(q "SELECT count(*) FROM files WHERE path LIKE 'sub/%'")" = 0 ] || fail "followed a symlink"
[ "$(q "SELECT line FROM scan_errors WHERE path='latin1.py'")" = 2 ] || fail "encoding error line"
grep -q "file problems" "$work/out" || fail "summary does not count problems"
echo "scan_bad_input: ok"
