"""`mine check` with the real binary, without Triton or a GPU: scan tests/fixtures/triton, emit a
bundle and read it back (also through the harness's own bundle reader and launch planner), ingest
a synthetic results file and query check_results, refuse malformed results whole, keep --where
read-only, and say clearly when --run has no Triton to run with."""
import ast
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import unittest

MINE = os.environ["MINE"]
SOURCE = os.environ.get("MINE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.environ.get("MINE_FIXTURES_DIR", os.path.join(SOURCE, "tests", "fixtures"))
SHARED_INDUCTOR = os.path.join(os.environ.get("MINE_SHARED_DIR", os.path.join(SOURCE, "..", "shared")),
                               "fixtures", "inductor")
sys.path.insert(0, os.path.join(SOURCE, "kernels", "harness"))
sys.path.insert(0, os.path.join(SOURCE, "tests", "harness"))
import util  # noqa: E402,F401 -- sets MINE_ALLOW_ROOT_WORKERS where nobody cannot run this Python


def mine(*args, check=True, env=None):
    return subprocess.run([MINE, *args], check=check, capture_output=True, text=True, env=env)


def query(db, sql):
    return json.loads(mine("query", sql, "--db", db, "--format", "json").stdout)


def kernel_params(source, entry):
    """[(name, is_constexpr, default)] as the harness's worker reads them from a JITFunction."""
    from launch import MISSING
    tree = ast.parse(source)
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry)
    args = fn.args.args
    defaults = [MISSING] * (len(args) - len(fn.args.defaults)) + [
        ast.literal_eval(d) if isinstance(d, ast.Constant) else MISSING for d in fn.args.defaults]
    return [(a.arg, a.annotation is not None and "constexpr" in ast.unparse(a.annotation), d)
            for a, d in zip(args, defaults)]


class CheckEmit(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.tmp.name, "corpus.db")
        mine("scan", os.path.join(FIXTURES, "triton"), "--db", cls.db, "--quiet")
        cls.bundle = os.path.join(cls.tmp.name, "bundle")
        out = mine("check", "--emit", cls.bundle, "--db", cls.db, "--include-helpers").stdout
        assert "wrote" in out, out
        cls.emit_out = out
        with open(os.path.join(cls.bundle, "bundle.json")) as f:
            cls.doc = json.load(f)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_bundle_shape(self):
        self.assertEqual(self.doc["version"], 1)
        # Kernels written to fail and source templates (written_to_fail.py) are left out, and said so.
        stored = query(self.db, "SELECT id, name FROM kernels WHERE plugin='triton' "
                                "AND json_extract(meta, '$.expects_error') IS NULL "
                                "AND json_extract(meta, '$.source_placeholders') IS NULL ORDER BY id")
        self.assertEqual([k["id"] for k in self.doc["kernels"]], [r["id"] for r in stored])
        self.assertIn("skipping 1 kernel template whose source a test completes", self.emit_out)
        self.assertIn("skipping 2 kernels their repository compiles or launches only where it expects an error",
                      self.emit_out)
        for k in self.doc["kernels"]:
            with self.subTest(kernel=k["entry"]):
                self.assertEqual(k["module"], "k%d.py" % k["id"])
                self.assertEqual(k["language"], "triton")
                self.assertIsInstance(k["signature"], dict)
                self.assertIsInstance(k["constexprs"], dict)
                self.assertIsInstance(k["guessed"], list)
                self.assertIn("grid", k)
                for name in k["constexprs"]:
                    self.assertEqual(k["signature"][name], "constexpr")
                for ty in k["signature"].values():
                    self.assertRegex(ty, r"^(constexpr|\*?(fp|bf|i|u)\d+|\*fp8\w+)$")

    def test_helpers_are_left_to_their_callers_by_default(self):
        out = os.path.join(self.tmp.name, "no_helpers")
        r = mine("check", "--emit", out, "--db", self.db)
        self.assertIn("skipping 5 jitted helpers that other kernels call", r.stdout)
        self.assertIn("skipping 1 jitted method", r.stdout)  # jitted_methods.py: Accumulator.bump
        with open(os.path.join(out, "bundle.json")) as f:
            emitted = {k["entry"] for k in json.load(f)["kernels"]}
        every = {r["name"] for r in query(self.db, "SELECT name FROM kernels WHERE plugin='triton'")}
        # _add_one (function_scoped_import.py), a helper hoisted from the function that defines it
        # beside its caller, returns a value: a device function, left out too.
        # branch_alternatives.py: fast_exp is softplus_kernel's helper, to_f32 a device function.
        self.assertEqual(every - emitted, {"_mean_square", "_sigmoid", "_inner", "_tile", "_add_one", "fast_exp", "to_f32", "bump"})

    def test_modules_are_the_standalones(self):
        for k in self.doc["kernels"]:
            with self.subTest(kernel=k["entry"]):
                row = query(self.db, "SELECT standalone FROM kernels WHERE id=%d" % k["id"])[0]
                with open(os.path.join(self.bundle, k["module"]), encoding="utf-8", newline="") as f:
                    self.assertEqual(f.read(), row["standalone"])

    def test_signature_order_is_the_parameter_order(self):
        for k in self.doc["kernels"]:
            with open(os.path.join(self.bundle, k["module"]), encoding="utf-8") as f:
                source = f.read()
            names = [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
            if k["entry"] not in names:
                continue  # functional form: the entry is an assignment
            with self.subTest(kernel=k["entry"]):
                self.assertEqual(list(k["signature"]), [p[0] for p in kernel_params(source, k["entry"])])

    def test_the_harness_accepts_the_bundle(self):
        import bundle as harness_bundle
        import launch
        specs = harness_bundle.load_bundle(self.bundle)
        self.assertEqual(len(specs), len(self.doc["kernels"]))
        planned = 0
        for spec in specs:
            with open(os.path.join(self.bundle, spec["module"]), encoding="utf-8") as f:
                source = f.read()
            try:
                params = kernel_params(source, spec["entry"])
            except StopIteration:
                continue
            with self.subTest(kernel=spec["entry"]):
                plan = launch.plan(spec, params, source)
                self.assertEqual(list(plan["signature"]), [p[0] for p in params])
                planned += 1
        self.assertGreater(planned, 5)

    def test_signatures_are_stored(self):
        rows = query(self.db, "SELECT kernel_id, signature, guessed FROM kernel_signatures ORDER BY kernel_id")
        self.assertEqual([r["kernel_id"] for r in rows], [k["id"] for k in self.doc["kernels"]])
        by_id = {k["id"]: k for k in self.doc["kernels"]}
        for r in rows:
            self.assertEqual(json.loads(r["signature"]), by_id[r["kernel_id"]]["signature"])
            self.assertEqual(json.loads(r["guessed"]), by_id[r["kernel_id"]]["guessed"])

    def test_where_and_limit(self):
        out = os.path.join(self.tmp.name, "one")
        mine("check", "--emit", out, "--db", self.db, "--where", "name = 'rms_norm_kernel'")
        with open(os.path.join(out, "bundle.json")) as f:
            self.assertEqual([k["entry"] for k in json.load(f)["kernels"]], ["rms_norm_kernel"])
        out2 = os.path.join(self.tmp.name, "two")
        mine("check", "--emit", out2, "--db", self.db, "--limit", "2")
        with open(os.path.join(out2, "bundle.json")) as f:
            self.assertEqual(len(json.load(f)["kernels"]), 2)

    def test_where_cannot_write(self):
        before = query(self.db, "SELECT count(*) AS n FROM kernels")[0]["n"]
        for where in ("1); DROP TABLE kernels; --", "1); DELETE FROM kernels; SELECT (1"):
            with self.subTest(where=where):
                r = mine("check", "--emit", os.path.join(self.tmp.name, "evil"), "--db", self.db,
                         "--where", where, check=False)
                self.assertNotEqual(r.returncode, 0)
                self.assertIn("--where", r.stderr)
        self.assertEqual(query(self.db, "SELECT count(*) AS n FROM kernels")[0]["n"], before)

    def test_ingest_synthetic_results(self):
        ids = [k["id"] for k in self.doc["kernels"]][:3]
        results = os.path.join(self.tmp.name, "results.jsonl")
        with open(results, "w") as f:
            f.write(json.dumps({"id": ids[0], "stage_reached": "run", "status": "ok", "compile_ms": 500.0,
                                "n_regs": 40, "n_spills": 0, "shared_bytes": 0, "run_ms": 0.1,
                                "triton_version": "3.6.0", "torch_version": "2.11.0",
                                "driver_version": "570.1", "gpu_name": "NVIDIA H100 80GB HBM3"}) + "\n")
            f.write(json.dumps({"id": ids[1], "stage_reached": "compile", "status": "fail",
                                "error_class": "unsupported_op", "message": "unsupported"}) + "\n")
            f.write(json.dumps({"id": ids[2], "stage_reached": "import", "status": "fail",
                                "message": "NameError: name 'x' is not defined"}) + "\n")
        out = mine("check", "--ingest", results, "--db", self.db).stdout
        self.assertIn("stored 3 results", out)
        rows = query(self.db, "SELECT kernel_id, stage_reached, status, error_class, n_regs, gpu "
                              "FROM check_results ORDER BY kernel_id")
        got = {r["kernel_id"]: r for r in rows}
        self.assertEqual(got[ids[0]]["status"], "ok")
        self.assertEqual(got[ids[0]]["n_regs"], 40)
        self.assertEqual(got[ids[0]]["gpu"], "NVIDIA H100 80GB HBM3")
        self.assertEqual(got[ids[1]]["error_class"], "unsupported_op")
        self.assertEqual(got[ids[2]]["error_class"], "missing_name")

    def test_malformed_results_store_nothing(self):
        db = os.path.join(self.tmp.name, "clean.db")
        mine("scan", os.path.join(FIXTURES, "triton"), "--db", db, "--quiet")
        kid = query(db, "SELECT min(id) AS id FROM kernels")[0]["id"]
        bad = os.path.join(self.tmp.name, "bad.jsonl")
        with open(bad, "w") as f:
            f.write(json.dumps({"id": kid, "stage_reached": "run", "status": "ok"}) + "\n")
            f.write('{"id": %d, "stage_reached": "run", "status": \n' % kid)
        r = mine("check", "--ingest", bad, "--db", db, check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("bad.jsonl:2", r.stderr)
        with sqlite3.connect(db) as con:
            tables = {t for (t,) in con.execute("SELECT name FROM sqlite_master")}
            if "check_results" in tables:
                self.assertEqual(con.execute("SELECT count(*) FROM check_results").fetchone()[0], 0)

    def test_usage_errors(self):
        self.assertEqual(mine("check", "--db", self.db, check=False).returncode, 2)
        self.assertEqual(mine("check", "--emit", "x", "--ingest", "y", "--db", self.db, check=False).returncode, 2)
        self.assertEqual(mine("check", "--emit", "x", "--jobs", "4", "--db", self.db, check=False).returncode, 2)

    def test_run_without_triton_says_so(self):
        env = dict(os.environ, MINE_PYTHON="/nonexistent/python3")
        r = mine("check", "--run", "--db", self.db, check=False, env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("not found", r.stderr)
        has_triton = subprocess.run([sys.executable, "-c", "import triton"], capture_output=True).returncode == 0
        if has_triton:
            self.skipTest("triton is importable here; the missing-triton message is not reachable")
        env = dict(os.environ, MINE_PYTHON=sys.executable)
        r = mine("check", "--run", "--db", self.db, check=False, env=env)
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot import triton", r.stderr)


STANDIN = os.path.join(SOURCE, "tests", "harness", "standin")
STANDIN_KERNELS = """
import triton
import triton.language as tl


@triton.jit
def quiet_kernel(x_ptr, n, BLOCK: tl.constexpr):
    y = BLOCK * 2


@triton.jit
def broken_kernel(x_ptr, BLOCK: tl.constexpr):
    helper_that_is_nowhere(x_ptr)
"""


@unittest.skipUnless(os.path.isdir(STANDIN), "harness Triton stand-in not present")
class CheckRun(unittest.TestCase):
    """--run end to end: emit to a temporary folder, run_bundle.py found beside the binary,
    ingest. The harness's Triton stand-in plays Triton, so this runs without it or a GPU."""

    def test_run_compiles_and_records(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o711)  # it is TMPDIR: run as root, the workers (nobody) work beneath it
            src = os.path.join(tmp, "src")
            os.makedirs(src)
            with open(os.path.join(src, "kernels.py"), "w") as f:
                f.write(STANDIN_KERNELS)
            db = os.path.join(tmp, "c.db")
            mine("scan", src, "--db", db, "--quiet")
            env = dict(os.environ, PYTHONPATH=STANDIN, MINE_PYTHON=sys.executable, TMPDIR=tmp)
            r = mine("check", "--run", "--stage", "compile", "--jobs", "1", "--db", db, env=env, check=False)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("stored 2 results", r.stdout)
            rows = query(db, "SELECT k.name, r.stage_reached, r.status, r.error_class, r.triton_version "
                             "FROM check_results r JOIN kernels k ON k.id = r.kernel_id ORDER BY k.name")
            got = {row["name"]: row for row in rows}
            self.assertEqual(got["quiet_kernel"]["status"], "ok")
            self.assertEqual(got["quiet_kernel"]["stage_reached"], "compile")
            self.assertEqual(got["quiet_kernel"]["triton_version"], "0.0+standin")
            self.assertEqual(got["broken_kernel"]["status"], "fail")
            self.assertEqual(got["broken_kernel"]["error_class"], "missing_name")
            # The temporary bundle is gone once its results are in.
            self.assertEqual([n for n in os.listdir(tmp) if n.startswith("mine-check-")], [])


@unittest.skipUnless(os.path.isdir(SHARED_INDUCTOR), "shared Inductor fixture not present")
class CheckEmitInductor(unittest.TestCase):
    def test_signatures_follow_triton_meta(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "c.db")
            env = dict(os.environ)
            env.pop("MINE_INDUCTOR_CACHE", None)
            subprocess.run([MINE, "scan", SHARED_INDUCTOR, "--db", db, "--quiet"], check=True, env=env)
            bundle = os.path.join(tmp, "b")
            mine("check", "--emit", bundle, "--db", db, "--where", "plugin = 'inductor'")
            with open(os.path.join(bundle, "bundle.json")) as f:
                kernels = json.load(f)["kernels"]
            self.assertGreater(len(kernels), 0)
            metas = {r["id"]: json.loads(r["meta"]) for r in query(db, "SELECT id, meta FROM kernels")}
            for k in kernels:
                with self.subTest(kernel=k["entry"]):
                    meta = metas[k["id"]]
                    self.assertEqual(list(k["signature"]), meta["parameters"])
                    for name, ty in meta["signature"].items():
                        self.assertEqual(k["signature"][name], ty)
                    for name in k["constexprs"]:
                        self.assertTrue(name.endswith("BLOCK") or name in meta["constants"], name)
                    self.assertTrue(set(k["guessed"]) <= set(k["constexprs"]))
                    if k["grid"] is not None:
                        self.assertEqual(len(k["grid"]), 3)


class LibrariesFromTheCorpus(unittest.TestCase):
    """A kernel of one repository imports a package another repository of the corpus has: the
    bundle carries that package (as the corpus mined it) in lib/, and the harness appends lib/ to
    sys.path, so the kernel's module imports there while an installed copy would still win."""

    def write(self, root, files):
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)

    def test_a_package_of_another_repository_travels_in_lib(self):
        with tempfile.TemporaryDirectory() as tmp:
            user, lib = os.path.join(tmp, "user"), os.path.join(tmp, "tinylib_repo")
            self.write(user, {"ops/scale.py": (
                "import triton\nimport triton.language as tl\nfrom tinylib.math import factor\n\n\n"
                "@triton.jit\ndef scale_kernel(x_ptr, n, BLOCK: tl.constexpr):\n"
                "    offs = tl.arange(0, BLOCK)\n"
                "    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * factor(), mask=offs < n)\n")})
            self.write(lib, {"src/tinylib/__init__.py": "",
                             "src/tinylib/math.py": "def factor():\n    return 3\n",
                             "tests/tinylib/__init__.py": "raise RuntimeError('a deeper copy, never taken')\n",
                             "README.md": "not Python\n"})
            db, bundle = os.path.join(tmp, "c.db"), os.path.join(tmp, "bundle")
            mine("scan", user, lib, "--db", db, "--quiet")
            out = mine("check", "--emit", bundle, "--db", db).stdout
            self.assertIn("copied from the corpus", out)
            with open(os.path.join(bundle, "bundle.json")) as f:
                libraries = json.load(f)["libraries"]
            self.assertEqual(libraries["path"], "lib")
            self.assertEqual(set(libraries["packages"]), {"tinylib"})
            self.assertEqual(libraries["packages"]["tinylib"]["dir"], "src/tinylib")
            self.assertEqual(libraries["packages"]["tinylib"]["files"], 2)
            self.assertEqual(sorted(os.listdir(os.path.join(bundle, "lib", "tinylib"))), ["__init__.py", "math.py"])
            import bundle_libraries
            before = list(sys.path)
            try:
                bundle_libraries.use(bundle)
                self.assertEqual(sys.path[-1], os.path.join(bundle, "lib"))
                import tinylib.math
                self.assertEqual(tinylib.math.factor(), 3)
                # An import error raised inside a carried package drops them all: off the path,
                # forgotten.
                try:
                    exec(compile("raise ImportError('no _C')", os.path.join(bundle, "lib", "tinylib", "math.py"),
                                 "exec"), {})
                except ImportError as e:
                    self.assertTrue(bundle_libraries.drop(bundle, e))
                self.assertNotIn(os.path.join(bundle, "lib"), sys.path)
                self.assertNotIn("tinylib.math", sys.modules)
            finally:
                sys.path[:] = before
                sys.modules.pop("tinylib.math", None)
                sys.modules.pop("tinylib", None)
            # An emit over an earlier bundle replaces its lib/ as well.
            mine("check", "--emit", bundle, "--db", db, "--where", "name = 'nothing'")
            self.assertFalse(os.path.exists(os.path.join(bundle, "lib")))


if __name__ == "__main__":
    unittest.main()
