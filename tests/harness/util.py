"""Helpers shared by the harness tests: paths, and bundles written from inline sources."""
import json
import os
import subprocess
import sys
import tempfile
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


def reachable(path):
    """Lets other users pass through the test's own private temporary folders above `path`
    (TemporaryDirectory makes them 0700): run as root, the harness's workers drop to nobody and
    must reach a --work-dir or --writable folder, as they must outside the tests."""
    top = os.path.realpath(tempfile.gettempdir())
    p = os.path.dirname(os.path.realpath(path))
    while p.startswith(top + os.sep):
        st = os.stat(p)
        if st.st_uid == os.geteuid() and not st.st_mode & 0o001:
            os.chmod(p, (st.st_mode & 0o777) | 0o711)
        p = os.path.dirname(p)


_KEPT = []


def workers_keep_root():
    """Why this machine's harness runs keep root ('' when they drop it or are not root): run as
    root from an interpreter that nobody may read (pyenv under /root, say), workers cannot drop
    to nobody and the harness refuses to start; the tests then run them with
    --allow-root-workers, and tests of the drop itself skip, saying why."""
    if not _KEPT:
        import privileges
        why = ""
        if os.geteuid() == 0:
            problems = privileges.preflight(65534, 65534, [sys.executable] + [p for p in sys.path if p], [])
            why = "; ".join(problems)
        _KEPT.append(why)
    return _KEPT[0]


def run_standin(bundle_dir, out, *args, timeout=300):
    """Run the harness with the Triton stand-in first on the workers' import path."""
    for flag, value in zip(args, args[1:]):
        if flag in ("--work-dir", "--writable"):
            reachable(value)
    env = dict(os.environ)
    env["PYTHONPATH"] = STANDIN + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, RUN_BUNDLE, bundle_dir, "--out", out] + list(args),
                          env=env, capture_output=True, text=True, timeout=timeout)
    rows = []
    if os.path.exists(out):
        with open(out) as f:
            rows = [json.loads(line) for line in f if line.strip()]
    return proc, {r["id"]: r for r in rows}


if workers_keep_root():
    # Every harness run of the tests, through run_standin or run_bundle.py directly, inherits it.
    os.environ["MINE_ALLOW_ROOT_WORKERS"] = "1"
