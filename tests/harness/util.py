"""Helpers shared by the harness tests: paths, and bundles written from inline sources."""
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HARNESS = os.path.join(ROOT, "kernels", "harness")
RUN_BUNDLE = os.path.join(HARNESS, "run_bundle.py")
STANDIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "standin")
if HARNESS not in sys.path:
    sys.path.insert(0, HARNESS)


def write_bundle(directory, kernels):
    """kernels: [(id, entry, source, extra_spec_fields)]."""
    specs = []
    for kid, entry, source, extra in kernels:
        module = "k%d.py" % kid
        with open(os.path.join(directory, module), "w") as f:
            f.write(textwrap.dedent(source))
        spec = {"id": kid, "entry": entry, "module": module, "language": "triton",
                "signature": {}, "constexprs": {}, "grid": None}
        spec.update(extra)
        specs.append(spec)
    with open(os.path.join(directory, "bundle.json"), "w") as f:
        json.dump({"version": 1, "kernels": specs}, f)


def run_standin(bundle_dir, out, *args, timeout=300):
    """Run the harness with the Triton stand-in first on the workers' import path."""
    env = dict(os.environ)
    env["PYTHONPATH"] = STANDIN + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, RUN_BUNDLE, bundle_dir, "--out", out] + list(args),
                          env=env, capture_output=True, text=True, timeout=timeout)
    rows = []
    if os.path.exists(out):
        with open(out) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    return proc, {r["id"]: r for r in rows}
