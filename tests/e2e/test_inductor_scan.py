"""`mine scan` on the real torch_compile_debug folder (../shared/fixtures/inductor), checked with
`mine query --format json` against Python's own reading of the same files: every
async_compile.triton kernel per graph, sources that parse and define their @triton.jit kernel,
one signature entry per parameter, ATen ops and PyTorch code for every occurrence."""
import ast
import glob
import json
import os
import subprocess
import tempfile
import unittest

MINE = os.environ["MINE"]
FIXTURE = os.path.join(os.environ["MINE_SHARED_DIR"], "fixtures", "inductor")


def query(db, sql):
    out = subprocess.run([MINE, "query", sql, "--db", db, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


class InductorScan(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.tmp.name, "corpus.db")
        env = dict(os.environ)
        env.pop("MINE_INDUCTOR_CACHE", None)
        subprocess.run([MINE, "scan", FIXTURE, "--db", cls.db, "--quiet"], check=True, env=env)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_plugin_is_listed(self):
        out = subprocess.run([MINE, "plugins"], check=True, capture_output=True, text=True).stdout
        self.assertRegex(out, r"(?m)^inductor ")

    def test_every_kernel_of_every_graph(self):
        expected = {}
        for path in glob.glob(os.path.join(FIXTURE, "**", "output_code.py"), recursive=True):
            with open(path, encoding="utf-8") as f:
                expected[os.path.basename(os.path.dirname(path))] = f.read().count("async_compile.triton(")
        self.assertEqual(len(expected), 3)
        rows = query(self.db, "SELECT graph, count(*) AS n FROM kernel_occurrences GROUP BY graph")
        self.assertEqual({r["graph"]: r["n"] for r in rows}, expected)

    def test_sources_parse_and_define_their_kernel(self):
        kernels = query(self.db, "SELECT name, standalone, meta FROM kernels WHERE plugin = 'inductor'")
        self.assertGreater(len(kernels), 0)
        for k in kernels:
            with self.subTest(kernel=k["name"]):
                tree = ast.parse(k["standalone"])
                defs = [d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name == k["name"]
                        and any(ast.unparse(dec) == "triton.jit" for dec in d.decorator_list)]
                self.assertEqual(len(defs), 1)
                params = [a.arg for a in defs[0].args.args]
                meta = json.loads(k["meta"])
                self.assertEqual(sorted(meta["signature"]), sorted(params))
                self.assertEqual(meta["parameters"], params)
                self.assertIn(meta["category"], {"pointwise", "reduction", "persistent_reduction"})

    def test_every_occurrence_has_aten_ops_and_pytorch_code(self):
        rows = query(self.db, "SELECT aten_ops, pytorch_code, kernel_id FROM kernel_occurrences")
        for r in rows:
            self.assertTrue(json.loads(r["aten_ops"]))
            self.assertTrue(json.loads(r["pytorch_code"]))
            self.assertIsNotNone(r["kernel_id"])

    def test_readme_query_reductions_with_aten_ops(self):
        rows = query(self.db, "SELECT k.name, o.graph, o.aten_ops FROM kernels k JOIN kernel_occurrences o "
                              "ON o.kernel_id = k.id WHERE o.category LIKE '%reduction' ORDER BY o.graph, k.name")
        self.assertEqual(len(rows), 9)  # 1 reduction + 8 persistent reductions in the fixture

    def test_readme_query_json_each_over_aten_ops(self):
        # json_each needs the read-only authorizer to let table-valued functions declare themselves.
        rows = query(self.db, "SELECT a.value AS aten_op, count(*) AS n FROM kernel_occurrences o, "
                              "json_each(o.aten_ops) a GROUP BY a.value ORDER BY n DESC")
        self.assertIn("aten.native_layer_norm", {r["aten_op"] for r in rows})
        refused = subprocess.run([MINE, "query", "UPDATE sqlite_master SET sql = ''", "--db", self.db],
                                 capture_output=True, text=True)
        self.assertNotEqual(refused.returncode, 0)


class InductorCacheOption(unittest.TestCase):
    """--inductor-cache (and $MINE_INDUCTOR_CACHE when it is not given) on the 2024-era fixture
    whose triton_per_fused_sum_2 lives only in a cache folder outside the scanned tree."""
    FIXTURES = os.path.join(os.environ["MINE_FIXTURES_DIR"], "inductor_old")
    KERNEL = "triton_per_fused_sum_2"

    def scan(self, *extra, env_cache=None):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        db = os.path.join(tmp.name, "c.db")
        env = dict(os.environ)
        env.pop("MINE_INDUCTOR_CACHE", None)
        if env_cache is not None:
            env["MINE_INDUCTOR_CACHE"] = env_cache
        run = subprocess.run([MINE, "scan", os.path.join(self.FIXTURES, "tree"), "--db", db, "--quiet", *extra],
                             capture_output=True, text=True, env=env)
        return run, db

    def origin(self, db):
        rows = query(db, f"SELECT source_origin, kernel_id FROM kernel_occurrences WHERE qualname = '{self.KERNEL}'")
        self.assertEqual(len(rows), 1)
        return rows[0]["source_origin"], rows[0]["kernel_id"]

    def test_without_a_cache_folder_the_kernel_is_recorded_missing(self):
        run, db = self.scan()
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(self.origin(db), ("missing", None))
        msg = query(db, "SELECT message FROM scan_errors WHERE kind = 'missing_source'")[0]["message"]
        self.assertIn("--inductor-cache", msg)

    def test_option_reads_the_cache_folder(self):
        run, db = self.scan("--inductor-cache", "/nonexistent-but-env-only", env_cache="/also/not/used")
        self.assertNotEqual(run.returncode, 0)  # a folder that does not exist is a usage error
        self.assertIn("--inductor-cache", run.stderr)
        run, db = self.scan("--inductor-cache", os.path.join(self.FIXTURES, "outside_cache"), env_cache="/not/used")
        self.assertEqual(run.returncode, 0, run.stderr)
        origin, kernel_id = self.origin(db)
        self.assertEqual(origin, "cache_dir")
        self.assertIsNotNone(kernel_id)
        self.assertEqual(query(db, "SELECT count(*) AS n FROM scan_errors")[0]["n"], 0)

    def test_environment_variable_is_the_fallback(self):
        run, db = self.scan(env_cache="/nonexistent:" + os.path.join(self.FIXTURES, "outside_cache"))
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(self.origin(db)[0], "cache_dir")

    def test_help_documents_the_option(self):
        out = subprocess.run([MINE, "scan", "--help"], check=True, capture_output=True, text=True).stdout
        self.assertIn("--inductor-cache", out)
        self.assertIn("MINE_INDUCTOR_CACHE", out)


if __name__ == "__main__":
    unittest.main()
