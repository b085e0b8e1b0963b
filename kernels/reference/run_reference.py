#!/usr/bin/env python3
"""Run every reference kernel through its host wrapper and compare with torch.

  python3 kernels/reference/run_reference.py [--markdown]

Exit status 0 only if every kernel ran and matched within its stated tolerance."""
import importlib
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_bundle import MODULES  # noqa: E402


def main(argv):
    markdown = "--markdown" in argv
    import torch
    import triton
    if not torch.cuda.is_available():
        print("run_reference: no CUDA device", file=sys.stderr)
        return 2
    print("torch %s, triton %s, %s" % (torch.__version__, triton.__version__,
                                       torch.cuda.get_device_name(0)))
    rows, failed = [], 0
    for name in MODULES:
        torch.manual_seed(0)
        t0 = time.perf_counter()
        try:
            mod = importlib.import_module(name)
            r = mod.check()
            torch.cuda.synchronize()
            ms = (time.perf_counter() - t0) * 1000
            out, ref = r["out"], r["ref"]
            err = (out.float() - ref.float()).abs().max().item()
            ok = out.shape == ref.shape and torch.allclose(out.float(), ref.float(),
                                                           atol=r["atol"], rtol=r["rtol"])
            rows.append((name, "x".join(map(str, ref.shape)), "%.3g" % err,
                         "%g" % r["atol"], "%g" % r["rtol"], "%.0f" % ms,
                         "PASS" if ok else "FAIL"))
        except Exception as e:
            traceback.print_exc()
            ok = False
            rows.append((name, "-", "-", "-", "-", "-", "ERROR %s" % type(e).__name__))
        failed += not ok
    head = ("kernel", "shape", "max |err|", "atol", "rtol", "ms (incl. compile)", "result")
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
        for r in (head,) + tuple(rows):
            print("  ".join(str(x).ljust(w) for x, w in zip(r, widths)))
    print("%d/%d reference kernels match torch" % (len(rows) - failed, len(rows)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
