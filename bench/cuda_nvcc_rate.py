"""Compile rate of the CUDA kernels in a corpus: `nvcc -cubin -arch=sm_90` of each standalone.

usage: python3 bench/cuda_nvcc_rate.py corpus.db [--jobs N] [--show-failures N] [--self-contained-only]
Prints kernels found (all, self-contained) and how many standalones compile, overall and among
self-contained ones, plus the most common first error lines."""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import sqlite3
import subprocess
import tempfile

NVCC = os.environ.get("NVCC", "/usr/local/cuda/bin/nvcc")


def compile_one(args):
    index, source, workdir = args
    src = os.path.join(workdir, f"k{index}.cu")
    with open(src, "w") as f:
        f.write(source)
    r = subprocess.run([NVCC, "-cubin", "-arch=sm_90", "-o", os.devnull, src], capture_output=True, text=True,
                       timeout=600)
    first = next((l for l in r.stderr.splitlines() if "error" in l), "")
    return r.returncode == 0, re.sub(r"^.*?: ", "", first)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--show-failures", type=int, default=8)
    ap.add_argument("--self-contained-only", action="store_true", help="compile only kernels marked self-contained")
    a = ap.parse_args()
    rows = sqlite3.connect(a.db).execute(
        "SELECT qualname, path, standalone, self_contained, meta FROM kernels WHERE plugin = 'cuda'"
        + (" AND self_contained" if a.self_contained_only else "")).fetchall()
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(compile_one, [(i, r[2], tmp) for i, r in enumerate(rows)]))
    ok = sum(1 for r in results if r[0])
    contained = [i for i, r in enumerate(rows) if r[3]]
    ok_contained = sum(1 for i in contained if results[i][0])
    embedded = sum(1 for r in rows if "embedded_in" in json.loads(r[4]))
    print(f"kernels: {len(rows)} ({embedded} embedded in Python), self-contained: {len(contained)}")
    print(f"nvcc -cubin -arch=sm_90: {ok}/{len(rows)} compile"
          f" ({100.0 * ok / max(len(rows), 1):.1f}%); self-contained {ok_contained}/{len(contained)}"
          f" ({100.0 * ok_contained / max(len(contained), 1):.1f}%)")
    errors = collections.Counter(r[1] for r in results if not r[0])
    for msg, n in errors.most_common(a.show_failures):
        print(f"  {n:4d}  {msg[:150]}")


if __name__ == "__main__":
    main()
