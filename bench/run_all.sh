#!/usr/bin/env bash
# Runs every CPU benchmark of bench/ in one go and keeps their tables in bench/results/latest/.
# Each benchmark measures mine and its baseline side by side in the same run. The GPU rows
# (mine check) come from bench/gpu_check_all.sh and kernels/harness/bench_throughput.py on a GPU
# machine; see bench/README.md.
# usage: bench/run_all.sh [--quick]     (--quick: one run each, smaller inputs)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out="$here/results/latest"
mkdir -p "$out"
if [ "${1:-}" = "--quick" ]; then export RUNS=1 TARGET_MB=20; fi
status=0
run() {  # $1 = name, rest = command
  local name=$1; shift
  echo "== $name: $*"
  if "$@" > "$out/$name.txt" 2>&1; then cat "$out/$name.txt"; else echo "(failed; see $out/$name.txt)"; status=1; fi
  echo
}
run scan "$here/scan.sh"
run inductor "$here/inductor.sh"
run dedup "$here/dedup.sh"
run crawl "$here/crawl.sh"
run crawl_overlap "$here/crawl_overlap.sh"
exit $status
