#!/usr/bin/env bash
# The GPU-machine proof run for `mine check`'s harness; writes logs and results under $OUT.
#   OUT=/some/dir bash kernels/harness/gpu_check.sh [ref] [inductor] [bench] [tests] [autotune]
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/mine-gpu-check}
mkdir -p "$OUT"
SHARED=${MINE_SHARED_DIR:-../shared}
[ -d "$SHARED/fixtures" ] || SHARED=shared
# Where the fixture is not beside the checkout, bundles made from it here travel instead.
PREBUILT=build-harness/bundles
make_ind() {  # make_ind OUT_DIR [--variants N]
  if [ -d "$SHARED/fixtures/inductor" ]; then
    python3 $H/bundle_from_inductor.py "$SHARED/fixtures/inductor" "$@"
  elif [ "${2:-}" = --variants ]; then cp -r $PREBUILT/bench "$1"
  else cp -r $PREBUILT/ind "$1"; fi
}
steps=${*:-ref inductor bench tests}
H=kernels/harness
T=$(mktemp -d)

{ nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
  python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
  nproc; } > "$OUT/env.txt" 2>&1

for s in $steps; do case $s in
ref)
  python3 kernels/reference/run_reference.py --markdown > "$OUT/reference_torch.md" 2> "$OUT/reference_torch.err"
  echo "run_reference rc=$?" >> "$OUT/reference_torch.md"
  python3 kernels/reference/make_bundle.py "$T/ref"
  python3 $H/run_bundle.py "$T/ref" --out "$OUT/reference.jsonl" --jobs 7 --stage run 2> "$OUT/reference_bundle.err"
  echo "run_bundle rc=$?" >> "$OUT/reference_bundle.err" ;;
inductor)
  make_ind "$T/ind"
  python3 $H/run_bundle.py "$T/ind" --out "$OUT/inductor.jsonl" --jobs 16 --stage run 2> "$OUT/inductor_bundle.err"
  echo "run_bundle rc=$?" >> "$OUT/inductor_bundle.err" ;;
autotune)
  python3 kernels/reference/make_bundle.py "$T/ref"
  python3 $H/run_bundle.py "$T/ref" --out "$OUT/reference_autotune.jsonl" --jobs 7 --stage run --autotune 2> "$OUT/reference_autotune.err"
  echo "run_bundle rc=$?" >> "$OUT/reference_autotune.err" ;;
bench)
  make_ind "$T/bench" --variants 8
  python3 $H/bench_throughput.py "$T/bench" --jobs 16 --naive ${NAIVE:-24} --report "$OUT/throughput.md" --keep "$OUT" > "$OUT/throughput.log" 2>&1 ;;
bench-plain)
  python3 kernels/reference/make_bundle.py "$T/refbench" --variants 12
  python3 $H/bench_throughput.py "$T/refbench" --jobs 16 --naive ${NAIVE:-24} --report "$OUT/throughput_plain.md" > "$OUT/throughput_plain.log" 2>&1 ;;
tests)
  make_ind "$T/ind-tests"
  MINE_INDUCTOR_BUNDLE="$T/ind-tests" python3 -m unittest discover -s tests/harness -v > "$OUT/unittest.log" 2>&1
  echo "unittest rc=$?" >> "$OUT/unittest.log" ;;
esac; done
rm -rf "$T"
