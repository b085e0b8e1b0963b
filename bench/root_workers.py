#!/usr/bin/env python3
"""Hostile kernels through run_bundle.py, for the record of what was enforced (issue 20):
a fork loop, a fork bomb with setsid daemons, a memory hog, a write to /etc and a signal to
PID 1 (signal 0: allowed or not, nothing is sent), between ordinary kernels. Prints the
summary line, each kernel's outcome and how many processes each forking kernel made.

  python3 bench/root_workers.py [run_bundle options, e.g. --allow-root-workers]
"""
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ASKED_ROOT = os.environ.get("MINE_ALLOW_ROOT_WORKERS")  # util sets it on machines where nobody cannot run Python
sys.path.insert(0, os.path.join(HERE, "..", "tests", "harness"))
from test_containment import BOMB, ETC_FILE, FORK_LOOP, OK, SIG, SIGNAL_INIT, WRITE_ETC, kern  # noqa: E402
from util import RUN_BUNDLE, STANDIN, reachable, write_bundle  # noqa: E402


def main(extra):
    with tempfile.TemporaryDirectory(prefix="mine-root-workers-") as t:
        bundle, pids = os.path.join(t, "bundle"), os.path.join(t, "pids")
        os.makedirs(bundle)
        os.makedirs(pids)
        os.chmod(pids, 0o777)
        reachable(os.path.join(pids, "x"))

        def at(kid):
            return "PIDS = %r\n" % os.path.join(pids, "k%d.txt" % kid)

        kernels = {1: ("fork loop (150 wanted)", kern(at(1) + FORK_LOOP + "time.sleep(300)")),
                   2: ("fork bomb, 81 processes, setsid daemons", kern(at(2) + BOMB)),
                   3: ("100 GB mapped and touched", kern("import mmap\nm = mmap.mmap(-1, 100 << 30)\n"
                                                         "for i in range(0, 100 << 30, 4096):\n    m[i] = 1")),
                   4: ("write /etc", kern("pass", pre=WRITE_ETC)),
                   5: ("signal PID 1 (signal 0)", kern("pass", pre=SIGNAL_INIT)),
                   6: ("ordinary", OK)}
        write_bundle(bundle, [(k, "k", src, SIG) for k, (_, src) in kernels.items()])
        out = os.path.join(t, "out.jsonl")
        env = dict(os.environ, PYTHONPATH=STANDIN)
        env.pop("MINE_ALLOW_ROOT_WORKERS", None)
        if ASKED_ROOT is not None:
            env["MINE_ALLOW_ROOT_WORKERS"] = ASKED_ROOT
        t0 = time.monotonic()
        proc = subprocess.run([sys.executable, RUN_BUNDLE, bundle, "--out", out, "--stage", "compile",
                               "--jobs", "2", "--timeout", "6", "--mem-limit-mb", "2048", "--max-procs", "100",
                               "--writable", pids] + extra, env=env, capture_output=True, text=True)
        wall = time.monotonic() - t0
        print("run_bundle rc=%d in %.1f s; stderr:" % (proc.returncode, wall))
        print("\n".join(line for line in proc.stderr.splitlines() if not line.startswith("[")))
        with open(out) as f:
            rows = {r["id"]: r for r in map(json.loads, f)}
        for kid, (what, _) in kernels.items():
            r = rows.get(kid) or {"status": "no row", "message": ""}
            made = ""
            if os.path.exists(os.path.join(pids, "k%d.txt" % kid)):
                with open(os.path.join(pids, "k%d.txt" % kid)) as f:
                    made = ", %d processes made" % len(f.read().split())
            print("k%d %s: %s %s%s; %s" % (kid, what, r["status"], r.get("error_class") or "", made,
                                          r["message"].splitlines()[0][:150] if r["message"] else ""))
        if os.path.exists(ETC_FILE):
            print("!! %s was written" % ETC_FILE)
            os.remove(ETC_FILE)


if __name__ == "__main__":
    main(sys.argv[1:])
