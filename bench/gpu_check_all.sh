#!/usr/bin/env bash
# On a GPU machine: compile every kernel of a bundle emitted from real repositories, then run
# the Inductor-fixture + reference bundle on every GPU, and summarise pass rates by error class
# and per-GPU throughput. Used for bench/results/check_real_repos.md and check_multi_gpu.md.
# usage: bench/gpu_check_all.sh REAL_BUNDLE FIXTURE_BUNDLE OUT_DIR
set -uo pipefail
real=$1 fix=$2 out=$3
here=$(cd "$(dirname "$0")/.." && pwd)
nvidia-smi --query-gpu=index,name --format=csv,noheader
python3 -c 'import torch, triton; print("torch", torch.__version__, "triton", triton.__version__)'
jobs=$(nproc)
start=$(date +%s.%N)
python3 "$here/kernels/harness/run_bundle.py" "$real" --out "$out/real_compile.jsonl" --stage compile \
  --arch sm_90 --jobs "$jobs" --timeout 60 2> "$out/real_compile.log"
end=$(date +%s.%N)
python3 - "$out/real_compile.jsonl" "$start" "$end" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if "id" in r and "status" in r]
ok = sum(r["status"] == "ok" for r in rows)
secs = float(sys.argv[3]) - float(sys.argv[2])
print(f"real repositories, stage compile: {ok}/{len(rows)} ok ({100.0 * ok / max(len(rows), 1):.1f}%), "
      f"{len(rows) / secs * 60:.0f} kernels/min")
for cls, n in collections.Counter(r.get("error_class") for r in rows if r["status"] != "ok").most_common():
    print(f"  {cls}: {n}")
PY
for devs in 0 all; do
  start=$(date +%s.%N)
  python3 "$here/kernels/harness/run_bundle.py" "$fix" --out "$out/fix_run_$devs.jsonl" --stage run \
    --devices "$devs" --jobs "$jobs" --timeout 60 --cache-dir "$out/cache_$devs" 2> "$out/fix_run_$devs.log"
  end=$(date +%s.%N)
  python3 - "$out/fix_run_$devs.jsonl" "$start" "$end" "$devs" <<'PY'
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if "id" in r and "status" in r]
secs = float(sys.argv[3]) - float(sys.argv[2])
per = collections.Counter(str(r.get("device")) for r in rows)
ok = sum(r["status"] == "ok" for r in rows)
print(f"fixture+reference, stage run, devices={sys.argv[4]}: {ok}/{len(rows)} ok in {secs:.1f} s "
      f"({len(rows) / secs * 60:.0f} kernels/min); per GPU: {dict(per)}")
PY
done
