"""`mine check` on CUDA C kernels: `--run --stage compile` compiles each extracted standalone with
`nvcc -cubin -arch=sm_90` in a limited child and stores status, classified error, registers,
shared memory and compile time in check_results; the fixtures' `# expect:` lines say what each
kernel must give. `--emit` writes CUDA kernels into the bundle as .cu units. Without nvcc the
compiles are skipped with a message (and so is this test, apart from that message)."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

MINE = os.environ["MINE"]
FIXTURES = os.path.join(os.environ["MINE_FIXTURES_DIR"], "cuda_check")


def find_nvcc():
    if os.environ.get("NVCC"):
        return os.environ["NVCC"] if os.access(os.environ["NVCC"], os.X_OK) else None
    for c in ([os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc")] if os.environ.get("CUDA_HOME") else []) + \
            [shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if c and os.access(c, os.X_OK):
            return c
    return None


NVCC = find_nvcc()


def expectations():
    """{kernel: (status, error_class or None, shared bytes or None)} from the fixtures."""
    out = {}
    for name in sorted(os.listdir(FIXTURES)):
        with open(os.path.join(FIXTURES, name)) as f:
            for line in f:
                m = re.match(r"//\s*expect:\s*(\w+)\s+(ok|fail)(?:\s+(\w+))?(?:\s+(\d+))?", line)
                if not m:
                    continue
                kernel, status, third, fourth = m.groups()
                if status == "ok":
                    out[kernel] = ("ok", None, int(fourth) if third == "shared" else None)
                else:
                    out[kernel] = ("fail", third, None)
    return out


def run(*args, env=None, check=True):
    return subprocess.run([MINE, *args], capture_output=True, text=True, env=env, check=check)


class CudaCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.db = os.path.join(cls.tmp, "corpus.db")
        run("scan", FIXTURES, "--db", cls.db, "--quiet")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def query(self, sql):
        return json.loads(run("query", sql, "--db", self.db, "--format", "json").stdout)

    def test_without_nvcc_the_kernels_are_skipped_with_a_message(self):
        env = dict(os.environ, NVCC=os.path.join(self.tmp, "no-nvcc-here"))
        r = run("check", "--run", "--stage", "compile", "--db", self.db, env=env)
        self.assertIn("nvcc not found", r.stderr)
        self.assertIn("CUDA C kernels not checked", r.stderr)

    @unittest.skipUnless(NVCC, "nvcc not found ($NVCC, $CUDA_HOME/bin, PATH, /usr/local/cuda/bin); CUDA checks skipped")
    def test_compile_results_and_classes(self):
        want = expectations()
        self.assertGreaterEqual(len(want), 8)
        r = run("check", "--run", "--stage", "compile", "--jobs", "2", "--db", self.db)
        self.assertRegex(r.stdout, r"stored %d results" % len(want))
        rows = self.query("SELECT k.name, c.status, c.error_class, c.stage_reached, c.n_regs, c.shared_bytes, "
                          "c.compile_ms, c.message FROM check_results c JOIN kernels k ON k.id = c.kernel_id ORDER BY c.rowid")
        got = {r["name"]: r for r in rows}
        self.assertEqual(set(got), set(want))
        for name, (status, cls, shared) in want.items():
            with self.subTest(kernel=name):
                row = got[name]
                self.assertEqual((row["status"], row["error_class"]), (status, cls), row["message"])
                self.assertEqual(row["stage_reached"], "compile")
                if status == "ok":
                    self.assertGreater(row["n_regs"], 0)
                    self.assertGreater(row["compile_ms"], 0)
                    if shared is not None:
                        self.assertEqual(row["shared_bytes"], shared)

    @unittest.skipUnless(NVCC, "nvcc not found; CUDA checks skipped")
    def test_a_compile_over_its_time_limit_is_a_timeout(self):
        r = run("check", "--run", "--stage", "compile", "--timeout", "0.01", "--where", "name = 'tile_sum'",
                "--db", self.db)
        self.assertIn("timeout 1", r.stdout)

    def test_emit_writes_cuda_units(self):
        out = os.path.join(self.tmp, "bundle")
        run("check", "--emit", out, "--where", "name = 'add_one'", "--db", self.db)
        with open(os.path.join(out, "bundle.json")) as f:
            spec, = json.load(f)["kernels"]
        self.assertEqual((spec["language"], spec["entry"], spec["module"][-3:]), ("cuda", "add_one", ".cu"))
        self.assertEqual(spec["params"], ["int* x", "unsigned long long n"])
        with open(os.path.join(out, spec["module"])) as f:
            self.assertIn('__global__ void add_one(int* x, unsigned long long n)', f.read())


class CudaCheckBuildDefines(unittest.TestCase):
    """tests/fixtures/cuda_build_defines: kernels whose macros a Python build call defines. With the
    fixed ones in their standalone they compile; one whose macro's value nothing fixes fails, and
    the failure names that macro and why it was left out."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.db = os.path.join(cls.tmp, "corpus.db")
        run("scan", os.path.join(os.environ["MINE_FIXTURES_DIR"], "cuda_build_defines"), "--db", cls.db, "--quiet")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @unittest.skipUnless(NVCC, "nvcc not found; CUDA checks skipped")
    def test_defined_macros_and_stand_ins_compile(self):
        run("check", "--run", "--stage", "compile", "--jobs", "2", "--db", self.db,
            "--where", "name IN ('wkv_clear', 'fill_kernel', 'wkv6_forward', 'chunk_fwd')")
        rows = json.loads(run("query", "SELECT k.name, c.status, c.error_class, c.message FROM check_results c "
                              "JOIN kernels k ON k.id = c.kernel_id", "--db", self.db, "--format", "json").stdout)
        got = {r["name"]: r for r in rows}
        self.assertEqual(got["wkv_clear"]["status"], "ok", got["wkv_clear"]["message"])  # Tmax from the build
        self.assertEqual(got["fill_kernel"]["status"], "ok", got["fill_kernel"]["message"])  # GLOBBED from a glob's call
        # _T_ has no value in the repository: the stand-in 64 compiles it.
        self.assertEqual(got["chunk_fwd"]["status"], "ok", got["chunk_fwd"]["message"])
        # _N_ has none either, and the unit's own `#ifndef _N_` default is kept.
        self.assertEqual(got["wkv6_forward"]["status"], "ok", got["wkv6_forward"]["message"])
        meta = json.loads(run("query", "SELECT meta FROM kernels WHERE name = 'wkv6_forward'", "--db", self.db,
                              "--format", "json").stdout)[0]["meta"]
        self.assertEqual([d["name"] for d in json.loads(meta)["build_defines_left_out"]], ["_N_"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
