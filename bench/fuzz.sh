#!/usr/bin/env bash
# Runs one libFuzzer target for SECONDS and prints what it did:
#   bench/fuzz.sh TARGET SECONDS [extra libFuzzer flags...]
# TARGET: fuzz_python_module | fuzz_inductor_reader | fuzz_github_response | fuzz_declarative_plugin
# Builds build-fuzz/ first when needed (clang-14, -DMINE_FUZZ=ON, ASan+UBSan). The corpus grows in
# build-fuzz/corpus/TARGET (seeded from tests/fuzz/seeds/TARGET); crashes land in
# build-fuzz/crashes/TARGET/. A crash becomes a regression: copy the input to
# tests/fuzz/regressions/TARGET/, which the normal build replays in CTest (fuzz_replay.TARGET).
# Environment: MINE_FUZZ_BUILD (build folder, default build-fuzz), MINE_FUZZ_JOBS (build jobs, 2).
set -euo pipefail
target=${1:?usage: bench/fuzz.sh TARGET SECONDS [libFuzzer flags...]}
seconds=${2:?usage: bench/fuzz.sh TARGET SECONDS [libFuzzer flags...]}
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MINE_FUZZ_BUILD:-$root/build-fuzz}
seeds=$root/tests/fuzz/seeds/$target
[ -d "$seeds" ] || { echo "no such target: $target (no $seeds)" >&2; exit 2; }

if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINE_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 "${launcher[@]}" >/dev/null
fi
cmake --build "$build" --target "$target" -j "${MINE_FUZZ_JOBS:-2}" >/dev/null

corpus=$build/corpus/$target
crashes=$build/crashes/$target
mkdir -p "$corpus" "$crashes"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# -timeout: an input taking longer counts as a finding (hang); -rss_limit_mb: so does a blow-up.
# Leak detection is off: targets keep per-process caches (static plugins) that are not leaks.
dict=()
[ -f "$root/tests/fuzz/dicts/$target.dict" ] && dict=(-dict="$root/tests/fuzz/dicts/$target.dict")
export LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
set +e
"$build/tests/fuzz/$target" "$corpus" "$seeds" -max_total_time="$seconds" -timeout=25 -rss_limit_mb=2048 \
  -max_len=65536 -detect_leaks=0 -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
# Values of the last report line (fork mode prints "#EXECS: cov: C ft: F ... exec/s N" instead of
# the final stats).
last() { grep -oE "$1" "$log" | tail -1 | grep -oE '[0-9]+$' || true; }
execs=$(last 'stat::number_of_executed_units: *[0-9]+')
rate=$(last 'stat::average_exec_per_sec: *[0-9]+')
[ -n "$execs" ] || execs=$(grep -oE '#[0-9]+: cov' "$log" | tail -1 | grep -oE '[0-9]+' || true)
[ -n "$rate" ] || { [ -n "$execs" ] && rate=$((execs / seconds)); }
cov=$(last 'cov: [0-9]+')
ft=$(last 'ft: [0-9]+')
found=$(find "$crashes" -type f | wc -l)
echo "fuzz: target=$target seconds=$seconds executions=${execs:-?} exec_per_s=${rate:-?} coverage=${cov:-?} features=${ft:-?} findings=$found exit=$rc"
[ "$found" -eq 0 ] || find "$crashes" -type f | sed 's/^/  finding: /'
exit "$rc"
