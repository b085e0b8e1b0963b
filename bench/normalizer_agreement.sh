#!/usr/bin/env bash
# Checks dedup's token normalizer against the tree-sitter one on real code (see
# bench/normalizer_agreement.cpp): every distinct standalone of a corpus, or the given files.
# usage: bench/normalizer_agreement.sh CORPUS.db        (PLUGIN=triton: that plugin's kernels)
#        bench/normalizer_agreement.sh FILE.py...
# Exits 1 when any text comes out differently (a bug); declined texts are only counted.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${BUILD:-$root/build}
[ -f "$build/libmine_core.a" ] || { echo "build mine_core first: cmake --build $build"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -std=c++20 -O2 -I"$root" "$here/normalizer_agreement.cpp" -o "$work/agree" \
  "$build/libmine_core.a" "$build/libts_python.a" -Wl,-Bstatic -ltree-sitter -Wl,-Bdynamic -lcrypto -lsqlite3 -pthread
if [ $# -eq 1 ] && [[ "$1" == *.db ]]; then
  "$work/agree" --db "$1"
else
  "$work/agree" "$@"
fi
