#!/usr/bin/env python3
"""Compile throughput of the pool against a naive loop of one fresh python3 per kernel.

  python3 bench_throughput.py BUNDLE_DIR --jobs 16 --naive N --report OUT.md

Both sides compile the same kernels with an empty Triton cache of their own; the naive loop
takes N kernels spread evenly over the bundle (it is slow), its rate is extrapolated per minute, as is the pool's
over the whole bundle including worker start-up."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("bundle")
    ap.add_argument("--jobs", type=int, default=16)
    ap.add_argument("--naive", type=int, default=24)
    ap.add_argument("--arch", default="sm_90")
    ap.add_argument("--report", default=None)
    ap.add_argument("--keep", default=None, help="copy the result rows of both runs here")
    a = ap.parse_args(argv)
    with open(os.path.join(a.bundle, "bundle.json")) as f:
        ids = [k["id"] for k in json.load(f)["kernels"]]
    tmp = tempfile.mkdtemp(prefix="mine-bench-")

    out = os.path.join(tmp, "pool.jsonl")
    cmd_pool = [sys.executable, os.path.join(HERE, "run_bundle.py"), a.bundle, "--out", out,
                "--stage", "compile", "--jobs", str(a.jobs), "--arch", a.arch, "--quiet",
                "--cache-dir", os.path.join(tmp, "cache-pool")]
    t0 = time.monotonic()
    subprocess.run(cmd_pool, check=False)
    pool_s = time.monotonic() - t0
    with open(out) as f:
        rows = [json.loads(line) for line in f]
    pool_ok = sum(r["status"] == "ok" for r in rows)

    env = dict(os.environ, TRITON_CACHE_DIR=os.path.join(tmp, "cache-naive"))
    # Spread over the bundle so the sample has the same mix of kernels as the pool's run.
    sample = ids[::max(1, len(ids) // a.naive)][:a.naive]
    naive_ok, naive_rows = 0, []
    t0 = time.monotonic()
    for kid in sample:
        r = subprocess.run([sys.executable, os.path.join(HERE, "compile_one.py"), a.bundle,
                            str(kid), "compile", a.arch], env=env, capture_output=True, text=True)
        naive_ok += r.returncode == 0
        naive_rows.append(r.stdout.strip() or json.dumps({"id": kid, "stderr": r.stderr[-800:]}))
    naive_s = time.monotonic() - t0
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        with open(os.path.join(a.keep, "bench_pool.jsonl"), "w") as f:
            f.write("".join(json.dumps(r) + "\n" for r in rows))
        with open(os.path.join(a.keep, "bench_naive.jsonl"), "w") as f:
            f.write("\n".join(naive_rows) + "\n")

    pool_rate = len(rows) / pool_s * 60
    naive_rate = len(sample) / naive_s * 60
    lines = [
        "| run | kernels | ok | wall s | kernels/min |",
        "|---|---|---|---|---|",
        "| pool --jobs %d | %d | %d | %.1f | %.0f |" % (a.jobs, len(rows), pool_ok, pool_s,
                                                       pool_rate),
        "| naive: fresh python3 per kernel | %d | %d | %.1f | %.0f |" % (
            len(sample), naive_ok, naive_s, naive_rate),
        "",
        "speed-up: %.1fx" % (pool_rate / naive_rate),
        "",
        "pool command: `%s`" % " ".join(cmd_pool[1:]).replace(tmp, "$TMP"),
        "naive command per kernel: `TRITON_CACHE_DIR=$TMP/cache-naive python3 "
        "kernels/harness/compile_one.py BUNDLE ID compile %s`" % a.arch,
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.report:
        with open(a.report, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
