#!/usr/bin/env bash
# Scan throughput of `mine scan` against a plain-Python `ast` baseline (bench/baseline_scan.py)
# on the same bare git repositories, side by side in one run. Prints a table and the ratios.
# Beside them, the ceiling: tree-sitter alone parsing the files the scan parses (build/parse_only,
# same cores); "of parse" is the scan's parsed MB/s as a share of that raw parse rate.
# usage: bench/scan.sh [REPO.git ...]   (default: the repositories fetched under /work/.mirror)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MINE=${MINE:-$here/../build/mine}
PARSE_ONLY=${PARSE_ONLY:-$here/../build/parse_only}
[ -x "$MINE" ] || { echo "build mine first (cmake --build build)"; exit 1; }
[ -x "$PARSE_ONLY" ] || { echo "build parse_only first (cmake --build build --target parse_only)"; exit 1; }
repos=("$@")
if [ ${#repos[@]} -eq 0 ]; then
  for d in /work/.mirror/*/repo; do repos+=("$d"); done
fi
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Best of $runs wall-clock seconds and the peak RSS (KB) of that run.
measure() {
  local best="" best_rss="" out
  for _ in $(seq "$runs"); do
    rm -f "$work/c.db"*
    /usr/bin/time -o "$work/time" -f "%e %M" "$@" >"$work/stdout" 2>/dev/null
    read -r secs rss < <(tail -1 "$work/time")
    if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs; best_rss=$rss; fi
  done
  echo "$best $best_rss"
}

# Best of $runs parse-only seconds (the parse phase alone) and its file and byte counts.
parse_only() {
  local best="" line
  for _ in $(seq "$runs"); do
    line=$("$PARSE_ONLY" "$1")
    read -r pf pb ps < <(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(d["files"], d["bytes"], d["parse_s"])' "$line")
    if [ -z "$best" ] || awk "BEGIN{exit !($ps < $best)}"; then best=$ps; fi
  done
  echo "$pf $pb $best"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
printf "%-32s %7s %8s %8s | %9s %9s %9s %7s | %7s %6s %9s %9s %8s | %9s %9s %7s | %6s\n" repo files MB parsedMB \
  "mine s" "MB/s" "parsedMB/s" "RSS MB" "p.files" "p.MB" "parse s" "parseMB/s" "of parse" "python s" "MB/s" "RSS MB" ratio
tot_mine=0; tot_py=0; tot_parse=0
for repo in "${repos[@]}"; do
  name=$(basename "$(dirname "$repo")")
  [ "$name" = "." ] && name=$(basename "$repo")
  python3 "$here/baseline_scan.py" "$repo" > "$work/base.json"
  read -r files bytes pbytes pykernels < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["files"], d["bytes"], d["parsed_bytes"], d["kernels"])' "$work/base.json")
  read -r m_s m_rss < <(measure "$MINE" scan "$repo" --db "$work/c.db" --quiet)
  read -r p_s p_rss < <(measure python3 "$here/baseline_scan.py" "$repo")
  read -r po_files po_bytes po_s < <(parse_only "$repo")
  mkernels=$("$MINE" scan "$repo" --db "$work/k.db" --quiet >/dev/null; "$MINE" query "SELECT count(*) FROM kernels" --db "$work/k.db" --format csv | tail -1); rm -f "$work/k.db"*
  # "of parse": the scan's MB/s over the parse_only files' bytes, as a share of parse_only's.
  awk -v n="$name" -v f="$files" -v b="$bytes" -v pb="$pbytes" -v ms="$m_s" -v mr="$m_rss" -v ps="$p_s" -v pr="$p_rss" \
      -v of="$po_files" -v ob="$po_bytes" -v os="$po_s" 'BEGIN{
    mb=b/1048576; pmb=pb/1048576; omb=ob/1048576; if (ms<0.001) ms=0.001; if (ps<0.001) ps=0.001; if (os<0.0001) os=0.0001;
    printf "%-32s %7d %8.2f %8.2f | %9.3f %9.1f %9.1f %7.1f | %7d %6.2f %9.3f %9.1f %7.0f%% | %9.3f %9.1f %7.1f | %5.1fx\n", n, f, mb, pmb, ms, mb/ms, pmb/ms, mr/1024, of, omb, os, omb/os, 100*os/ms, ps, mb/ps, pr/1024, ps/ms}'
  echo "    kernels: mine $mkernels, python baseline $pykernels"
  tot_mine=$(awk -v a="$tot_mine" -v b="$m_s" 'BEGIN{print a+b}'); tot_py=$(awk -v a="$tot_py" -v b="$p_s" 'BEGIN{print a+b}')
  tot_parse=$(awk -v a="$tot_parse" -v b="$po_s" 'BEGIN{print a+b}')
done
awk -v m="$tot_mine" -v p="$tot_py" -v o="$tot_parse" -v c="$(nproc)" 'BEGIN{printf "total: mine %.2f s, python %.2f s, mine is %.1fx faster; parse alone %.2f s, the scan runs at %.0f%% of the parse rate (%d cores, best of runs)\n", m, p, p/m, o, 100*o/m, c}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
