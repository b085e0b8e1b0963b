#!/usr/bin/env bash
# Ingest speed of the inductor plugin: replicates the torch_compile_debug fixture
# (../shared/fixtures/inductor) under different graph names until the folder holds at least
# TARGET_MB (default 50), then times `mine scan` on it with 2 parser threads pinned to 2 cores.
# Prints a table: folder MB/s (what the issue's target counts) and .py MB/s (what mine reads).
# UNIQUE=1 renames every kernel per copy (triton_poi_fused_x -> triton_poi_r7_fused_x), so that no
# kernel source or kernel statement repeats and nothing is read from mine's per-process caches:
# the worst case, every kernel new.
# usage: bench/inductor.sh   env: MINE (binary), TARGET_MB, RUNS (best of, default 3), JOBS (default 2), UNIQUE
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
MINE=${MINE:-$here/../build/mine}
FIXTURE=${FIXTURE:-$here/../../shared/fixtures/inductor}
[ -x "$MINE" ] || { echo "build mine first (cmake --build build), or set MINE"; exit 1; }
[ -d "$FIXTURE" ] || { echo "no fixture at $FIXTURE (set FIXTURE)"; exit 1; }
target_mb=${TARGET_MB:-50}
runs=${RUNS:-3}
jobs=${JOBS:-2}
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT

# One copy per run folder, every graph folder renamed: model__0_inference_0.0 -> model__0_inference_0.0_r7.
src_runs=("$FIXTURE"/torch_compile_debug/run_*)
mkdir -p "$work/debug/torch_compile_debug"
copies=0
while [ "$(du -sb "$work/debug" 2>/dev/null | cut -f1 || echo 0)" -lt $((target_mb * 1048576)) ]; do
  copies=$((copies + 1))
  for run in "${src_runs[@]}"; do
    dst="$work/debug/torch_compile_debug/$(basename "$run")_r$copies"
    cp -r "$run" "$dst"
    chmod -R u+w "$dst"
    for g in "$dst"/torchinductor/*/; do mv "$g" "${g%/}_r$copies"; done
    if [ "${UNIQUE:-0}" = 1 ]; then
      find "$dst" -name output_code.py -exec sed -i "s/triton_\(poi\|per\|red\|tem\)_/triton_\1_r${copies}_/g" {} +
    fi
  done
done
folder_bytes=$(du -sb "$work/debug" | cut -f1)
py_bytes=$(find "$work/debug" -name '*.py' -printf '%s\n' | awk '{s+=$1} END{print s}')
files=$(find "$work/debug" -type f | wc -l)

pin=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then pin=(taskset -c 0,1); fi
# Wall seconds, and CPU seconds (user+sys): on a busy shared machine the CPU time still says
# what the scan would take on 2 idle cores (cpu/2 with perfect scaling).
best=""; best_cpu=""
TIMEFORMAT="%R %U %S"
for _ in $(seq "$runs"); do
  rm -f "$work/c.db"*
  out=$( { time "${pin[@]}" "$MINE" scan "$work/debug" --db "$work/c.db" --jobs "$jobs" --quiet >/dev/null; } 2>&1 | tail -1)
  read -r secs user sys <<<"$out"
  if [ -z "$best" ] || awk "BEGIN{exit !($secs < $best)}"; then best=$secs; best_cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}'); fi
done
q() { "$MINE" query "$1" --db "$work/c.db" --format csv | tail -1; }
occurrences=$(q "SELECT count(*) FROM kernel_occurrences")
distinct=$(q "SELECT count(*) FROM kernels WHERE plugin = 'inductor'")
graphs=$(q "SELECT count(DISTINCT graph) FROM kernel_occurrences")

printf "%7s %6s %9s %7s %7s %11s %9s %7s %8s %7s %9s %12s\n" copies files "folder MB" "py MB" graphs occurrences distinct "wall s" "MB/s" "cpu s" "py MB/s" "MB/s@2 idle"
awk -v c="$copies" -v f="$files" -v fb="$folder_bytes" -v pb="$py_bytes" -v g="$graphs" -v o="$occurrences" -v d="$distinct" \
    -v s="$best" -v cpu="$best_cpu" 'BEGIN{
  if (s < 0.001) s = 0.001; if (cpu < 0.001) cpu = 0.001;
  printf "%7d %6d %9.1f %7.1f %7d %11d %9d %7.2f %8.1f %7.2f %9.1f %12.1f\n", c, f, fb/1048576, pb/1048576, g, o, d, s, fb/1048576/s, cpu, pb/1048576/s, fb/1048576/(cpu/2)}'
echo "(best of $runs runs by wall time, --jobs $jobs${pin:+, pinned to cores 0,1}$([ "${UNIQUE:-0}" = 1 ] && echo ", UNIQUE=1: every kernel renamed per copy"); $(nproc) cores here, load $(cut -d' ' -f1-3 /proc/loadavg))"
echo "MB/s counts the whole debug folder; py MB/s the .py files mine reads; MB/s@2 idle = folder MB / (cpu s / 2)."
