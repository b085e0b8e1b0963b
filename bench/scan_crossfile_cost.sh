#!/usr/bin/env bash
# What cross-file resolution costs: `mine scan` with cross-file closure against the same binary
# with MINE_SAME_FILE_ONLY=1 (same-file closure), interleaved run by run, best of $RUNS each.
# usage: bench/scan_crossfile_cost.sh REPO.git ...   (target: cross-file at most 1.5x same-file)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MINE=${MINE:-$here/../build/mine}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf "%-32s %10s %8s %10s %8s %7s\n" repo "cross s" "RSS MB" "same s" "RSS MB" ratio
for repo in "$@"; do
  name=$(basename "$(dirname "$repo")")
  [ "$name" = "." ] && name=$(basename "$repo")
  best_c="" best_s="" rss_c="" rss_s=""
  for _ in $(seq "$runs"); do
    for mode in 0 1; do
      rm -f "$work/c.db"*
      MINE_SAME_FILE_ONLY=$mode /usr/bin/time -o "$work/time" -f "%e %M" "$MINE" scan "$repo" --db "$work/c.db" --quiet >/dev/null
      read -r secs rss < <(tail -1 "$work/time")
      if [ "$mode" = 0 ]; then
        if [ -z "$best_c" ] || awk "BEGIN{exit !($secs < $best_c)}"; then best_c=$secs; rss_c=$rss; fi
      else
        if [ -z "$best_s" ] || awk "BEGIN{exit !($secs < $best_s)}"; then best_s=$secs; rss_s=$rss; fi
      fi
    done
  done
  awk -v n="$name" -v c="$best_c" -v rc="$rss_c" -v s="$best_s" -v rs="$rss_s" 'BEGIN{
    if (s < 0.001) s = 0.001;
    printf "%-32s %10.2f %8.0f %10.2f %8.0f %6.2fx\n", n, c, rc/1024, s, rs/1024, c/s}'
done
