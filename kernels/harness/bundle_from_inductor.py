#!/usr/bin/env python3
"""Dev tool: a check bundle from Inductor output (output_code.py files under DIR), as
`mine check --emit` will write for Inductor kernels.

  python3 bundle_from_inductor.py DIR OUT_DIR [--variants N]

Signatures and divisibility attrs come from each kernel's triton_meta; constexprs and numels
are left to the harness (numels from the `xnumel = 128` lines of the body, block sizes by the
documented fallback). --variants N writes N copies of each kernel differing in num_warps and
num_stages, all distinct compiles, for throughput measurements."""
import argparse
import ast
import json
import os
import re
import sys

KERNEL = re.compile(r"^(\w+) = async_compile\.triton\('(\w+)', '''(.*?)'''", re.S | re.M)
SIGNATURE = re.compile(r"'signature': (\{[^{}]*\})")
CONFIGS = re.compile(r"'configs': \[(\{.*?\})\]")
VARIANTS = [(w, s) for s in (1, 2, 3) for w in (4, 2, 8, 1)]


def kernels_in(path):
    text = open(path).read()
    for _, name, src in KERNEL.findall(text):
        sig = ast.literal_eval(SIGNATURE.search(src).group(1))
        attrs = {}
        m = CONFIGS.search(src)
        if m:
            names = list(sig)
            for (idx,), values in ast.literal_eval(m.group(1)).items():
                attrs[names[idx]] = values
        yield name, src, sig, attrs


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--variants", type=int, default=1)
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    found = []
    for root, _, files in sorted(os.walk(a.src)):
        if "output_code.py" in files:
            found.extend(kernels_in(os.path.join(root, "output_code.py")))
    specs, kid = [], 0
    for n, (name, src, sig, attrs) in enumerate(found):
        module = "m%d.py" % (n + 1)
        with open(os.path.join(a.out, module), "w") as f:
            f.write(src.lstrip("\n"))
        for v in range(a.variants):
            kid += 1
            spec = {"id": kid, "entry": name, "module": module, "language": "triton",
                    "signature": sig, "constexprs": {}, "grid": None, "attrs": attrs,
                    "guessed": []}
            if a.variants > 1:
                w, s = VARIANTS[v % len(VARIANTS)]
                spec["options"] = {"num_warps": w, "num_stages": s}
            specs.append(spec)
    with open(os.path.join(a.out, "bundle.json"), "w") as f:
        json.dump({"version": 1, "kernels": specs}, f, indent=1)
    print("%d kernels (%d sources) -> %s" % (len(specs), len(found), a.out), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
