#!/usr/bin/env python3
"""Check every kernel of a bundle (BUNDLE.md): import, compile, load, run, each kernel in an
isolated warm worker. Needs only the standard library here; workers need triton (and torch
for load/run).

  python3 kernels/harness/run_bundle.py BUNDLE_DIR --out results.jsonl [--jobs N]
      [--devices 0,1|all] [--stage compile|load|run] [--arch sm_90] [--timeout 60]
      [--mem-limit-mb N] [--autotune] [--worker-user USER[:GROUP] | --allow-root-workers]
"""
import argparse
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundle import BundleError, load_bundle  # noqa: E402
from confine_run import SetupError, prepare  # noqa: E402
from pool import Pool  # noqa: E402

AUTOTUNE_WARPS = (2, 4, 8)
AUTOTUNE_STAGES = (2, 3, 4)


def query_gpus():
    """[(index, name, driver, compute_cap)] from nvidia-smi; empty without a GPU."""
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=index,name,driver_version,compute_cap",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    gpus = []
    for line in out.strip().splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 4 and parts[0].isdigit():
            gpus.append((int(parts[0]), parts[1], parts[2], parts[3]))
    return gpus


def parse_devices(text, gpus):
    if text in (None, "all"):
        return [g[0] for g in gpus] or None
    if text in ("none", ""):
        return None
    return [int(x) for x in text.split(",") if x.strip()]


def autotune_configs(spec):
    """The kernel's own configs when the bundle has them, else num_warps x num_stages."""
    if spec.get("autotune"):
        return spec["autotune"]
    return [{"num_warps": w, "num_stages": s} for w in AUTOTUNE_WARPS for s in AUTOTUNE_STAGES]


def _drop_partial_line(path):
    """A run killed mid-write leaves a line without its newline; appending after it would
    glue two rows together."""
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle", nargs="?")
    ap.add_argument("--out", help="results, one JSON line per kernel")
    ap.add_argument("--ports", action="store_true",
                    help="print the table of moved Triton APIs the harness ports (JSON) and exit")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--devices", default="all", help="GPU indices (0,1), all, or none")
    ap.add_argument("--stage", choices=("import", "compile", "load", "run"), default="run")
    ap.add_argument("--arch", default=None, help="sm_90 etc.; default: the first GPU, else sm_90")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per kernel")
    ap.add_argument("--mem-limit-mb", type=int, default=8192,
                    help="host memory per worker (RLIMIT_DATA plus an RSS watchdog); 0: none")
    ap.add_argument("--no-rlimit-data", action="store_true",
                    help="keep only the RSS watchdog (for drivers that trip on RLIMIT_DATA)")
    ap.add_argument("--max-procs", type=int, default=256,
                    help="processes a worker may start: its cgroup's pids.max (threads count) "
                         "where there is one, else RLIMIT_NPROC at the user's count plus jobs x N, "
                         "shared by the workers (root is exempt from that); 0: no limit")
    ap.add_argument("--writable", action="append", default=[],
                    help="another folder kernels may write in (besides their scratch, the Triton "
                         "cache and /dev); repeatable")
    ap.add_argument("--no-sandbox", action="store_true", default=os.environ.get("MINE_NO_SANDBOX") == "1",
                    help="do not confine the workers' file writes with Landlock (also MINE_NO_SANDBOX=1, "
                         "which reaches the harness through `mine check --run`)")
    ap.add_argument("--worker-user", default=os.environ.get("MINE_WORKER_USER", "nobody"),
                    help="when started as root, workers drop to this USER[:GROUP] (names or "
                         "numbers; default nobody, its group; also MINE_WORKER_USER)")
    ap.add_argument("--allow-root-workers", action="store_true",
                    default=os.environ.get("MINE_ALLOW_ROOT_WORKERS") == "1",
                    help="when started as root, let workers keep root (also "
                         "MINE_ALLOW_ROOT_WORKERS=1); a warning is printed")
    ap.add_argument("--no-cgroups", action="store_true", default=os.environ.get("MINE_NO_CGROUPS") == "1",
                    help="no cgroup v2 per worker even where it could be made (also MINE_NO_CGROUPS=1)")
    ap.add_argument("--only", default=None, help="comma-separated kernel ids")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--autotune", action="store_true",
                    help="time every candidate config with triton.testing.do_bench")
    ap.add_argument("--max-tasks-per-worker", type=int, default=500)
    ap.add_argument("--work-dir", default=None, help="scratch dirs, worker logs, Triton cache")
    ap.add_argument("--cache-dir", default=None, help="TRITON_CACHE_DIR (default: fresh)")
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows already in --out and check only the kernels missing there")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args(argv)
    if a.ports:
        import triton_ports
        print(json.dumps(triton_ports.table(), indent=1))
        return 0
    if not a.bundle or not a.out:
        ap.error("give the bundle folder and --out FILE")

    try:
        kernels = load_bundle(a.bundle)
    except BundleError as e:
        print("run_bundle: %s" % e, file=sys.stderr)
        return 2
    if a.only:
        wanted = {int(x) for x in a.only.split(",") if x.strip()}
        kernels = [k for k in kernels if k["id"] in wanted]
    if a.limit is not None:
        kernels = kernels[:a.limit]
    if a.resume and os.path.exists(a.out):
        done = set()
        with open(a.out) as f:
            for line in f:
                try:
                    done.add(json.loads(line)["id"])
                except (ValueError, KeyError, TypeError):
                    continue  # a row cut short by a kill is checked again
        kernels = [k for k in kernels if k["id"] not in done]

    gpus = query_gpus() if a.stage in ("load", "run") or a.arch is None else []
    devices = parse_devices(a.devices, gpus)
    if a.stage in ("load", "run") and devices is None:
        print("run_bundle: stage %s needs a GPU and none was found" % a.stage, file=sys.stderr)
        return 2
    arch = a.arch or ("sm_" + gpus[0][3].replace(".", "") if gpus else "sm_90")
    by_index = {g[0]: g for g in gpus}

    keep_work = a.work_dir is not None
    work = os.path.abspath(a.work_dir or tempfile.mkdtemp(prefix="mine-check-"))
    os.makedirs(work, exist_ok=True)
    bundle_dir = os.path.abspath(a.bundle)
    cache_dir = os.path.abspath(a.cache_dir or os.path.join(work, "triton-cache"))
    tmp_dir = os.path.join(work, "tmp")
    for d in (cache_dir, tmp_dir):
        os.makedirs(d, exist_ok=True)
    writable = [work, cache_dir, "/dev"] + [os.path.abspath(d) for d in a.writable]
    worker_env = {
        "TRITON_CACHE_DIR": cache_dir,
        # Kernels write only beneath these (Landlock, when the kernel has it); temporary files
        # (ptxas output, tempfile) go into the work folder so they are among them.
        "MINE_SANDBOX_WRITABLE": "" if a.no_sandbox else os.pathsep.join(writable),
        "TMPDIR": tmp_dir,
        "MINE_MAX_PROCS": str(max(a.max_procs, 0)),
        "MINE_WANT_GPU": "1" if a.stage in ("load", "run") else "0",
        "MINE_RLIMIT_DATA": "0" if a.no_rlimit_data else "1",
        # Bundles are read-only input; no __pycache__ should appear beside their modules.
        "PYTHONDONTWRITEBYTECODE": "1",
        # CUDA C kernels need nvcc (and libcuda to load), not Triton or torch.
        "MINE_NEED_TRITON": "1" if any(k.get("language") != "cuda" for k in kernels) else "0",
        "MINE_TASK_TIMEOUT": str(a.timeout),
    }
    if any(k.get("language") == "torch_module" for k in kernels):
        # torch.compile writes its cache in the workers' temporary folder (theirs, writable in the
        # sandbox) and
        # compiles in the worker itself: a pool of compile processes per worker would multiply
        # the processes and memory the limits count.
        worker_env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(tmp_dir, "inductor")
        worker_env["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        os.makedirs(worker_env["TORCHINDUCTOR_CACHE_DIR"], exist_ok=True)
    # Sixteen workers each starting a BLAS thread per core would oversubscribe the machine
    # and, under RLIMIT_DATA, fail allocating the per-thread buffers.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        worker_env.setdefault(var, os.environ.get(var, "1"))

    try:
        extra_env, bundle_dir, tree = prepare(
            work, bundle_dir, cache_dir, tmp_dir, [os.path.abspath(d) for d in a.writable],
            a.stage in ("load", "run"), a.worker_user, a.allow_root_workers, not a.no_cgroups,
            min(a.jobs, len(kernels)) or 1, max(a.max_procs, 0),
            log=lambda m: print(m, file=sys.stderr, flush=True))
    except SetupError as e:
        print("run_bundle: %s" % e, file=sys.stderr)
        return 2
    worker_env.update(extra_env)

    tasks = []
    for k in kernels:
        t = {"spec": k, "stage": a.stage, "arch": arch, "bundle_dir": bundle_dir,
             "scratch": os.path.join(work, "scratch", "k%d" % k["id"])}
        if a.autotune and a.stage == "run":
            t["configs"], t["bench"] = autotune_configs(k), True
        tasks.append(t)

    counts = collections.Counter()
    lock = threading.Lock()
    total = len(tasks)
    t0 = time.monotonic()
    if a.resume and os.path.exists(a.out):
        _drop_partial_line(a.out)
    out = open(a.out, "a" if a.resume else "w")

    def on_row(row):
        dev = row.get("device")
        if dev is not None and dev in by_index:
            row.setdefault("gpu_name", by_index[dev][1])
            row["driver_version"] = by_index[dev][2]
        elif gpus:
            row.setdefault("driver_version", gpus[0][2])
        if row.get("configs"):
            timed = [c for c in row["configs"] if c.get("bench_ms") is not None]
            if timed:
                row["best_config"] = min(timed, key=lambda c: c["bench_ms"])
        with lock:
            out.write(json.dumps(row) + "\n")
            out.flush()
            counts[(row["status"], row.get("error_class"))] += 1
            n = sum(counts.values())
            if not a.quiet:
                print("[%d/%d] k%s %s %s%s" % (n, total, row["id"], row["status"],
                                                row.get("stage_reached"),
                                                " " + row["error_class"] if row.get("error_class") else ""),
                      file=sys.stderr, flush=True)

    timeout = a.timeout * (len(AUTOTUNE_WARPS) * len(AUTOTUNE_STAGES) if a.autotune else 1)
    pool = Pool(a.jobs, devices if a.stage in ("load", "run") else None, work, worker_env,
                timeout, a.mem_limit_mb, a.max_tasks_per_worker, on_row, tree, max(a.max_procs, 0))
    try:
        pool.run(tasks)
    finally:
        if tree:
            tree.close()
    out.close()
    elapsed = time.monotonic() - t0
    ok = sum(v for (s, _), v in counts.items() if s == "ok")
    summary = {"kernels": total, "ok": ok, "fail": total - ok, "stage": a.stage,
               "jobs": a.jobs, "elapsed_s": round(elapsed, 2),
               "kernels_per_min": round(total / elapsed * 60.0, 1) if elapsed > 0 else None,
               "worker_spawns": pool.spawns, "sandbox": pool.sandbox,
               "strays_killed": pool.strays_killed,
               "by_class": {c: v for (s, c), v in counts.items() if s == "fail"}}
    print(json.dumps(summary), file=sys.stderr)
    if not keep_work:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok == total else 1


if __name__ == "__main__":
    sys.exit(main())
