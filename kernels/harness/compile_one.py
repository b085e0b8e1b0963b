#!/usr/bin/env python3
"""Check one kernel of a bundle in this very process and print its result row: the naive
baseline the pool is measured against (one fresh interpreter per kernel, no isolation)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bundle import load_bundle  # noqa: E402
from worker import Worker  # noqa: E402


def main(argv):
    bundle_dir, kid = os.path.abspath(argv[0]), int(argv[1])
    stage = argv[2] if len(argv) > 2 else "compile"
    arch = argv[3] if len(argv) > 3 else "sm_90"
    spec = next(k for k in load_bundle(bundle_dir) if k["id"] == kid)
    w = Worker(want_gpu=stage in ("load", "run"))
    with tempfile.TemporaryDirectory() as scratch:
        row = w.run_task({"spec": spec, "stage": stage, "arch": arch, "bundle_dir": bundle_dir,
                          "scratch": os.path.join(scratch, "k")})
    print(json.dumps(row))
    return 0 if row["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
