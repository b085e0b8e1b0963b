#!/usr/bin/env bash
# valgrind memcheck (--leak-check=full) over `mine scan tests/fixtures`; prints the leak and error
# summaries. Exit status 0 only when nothing leaked and no error was reported. The soname synonym
# makes memcheck replace mimalloc's malloc (linked into mine when installed) as it does libc's.
#   bench/valgrind_scan.sh [MINE_BINARY]      (default build/mine; slow: minutes)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mine=${1:-$root/build/mine}
# Memcheck replaces glibc's malloc; a mine linked with mimalloc (the default where it is installed)
# frees through mimalloc's own operators, which memcheck reports as mismatched frees.
if ldd "$mine" | grep -q mimalloc; then
  echo "$mine is linked with mimalloc; memcheck needs glibc's allocator:" >&2
  echo "  cmake -S $root -B $root/build-memcheck -G Ninja -DMINE_MIMALLOC=OFF && ninja -C $root/build-memcheck mine" >&2
  echo "  bench/valgrind_scan.sh $root/build-memcheck/mine" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
set +e
valgrind --soname-synonyms=somalloc=libmimalloc.so.2 --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
  --suppressions="$root/bench/valgrind.supp" --error-exitcode=99 --num-callers=30 \
  "$mine" scan "$root/tests/fixtures" --db "$work/corpus.db" --jobs 2 > "$work/log" 2>&1
rc=$?
set -e
grep -E "file problems|kernels \(" "$work/log" | tail -2
grep -E "definitely lost|indirectly lost|possibly lost|still reachable|ERROR SUMMARY" "$work/log" | sed 's/^==[0-9]*== *//'
[ "$rc" -eq 0 ] || { echo "valgrind: exit $rc"; grep -B2 -A20 -m5 -E "Invalid|uninitialised|definitely lost in" "$work/log" | head -120; }
exit "$rc"
