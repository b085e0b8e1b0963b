"""Every standalone the numba fixtures produce parses as Python; self-contained ones bind every
global they read; CPU-only numba functions never reach the corpus."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standalone_check import unbound_globals  # noqa: E402

MINE = os.environ["MINE"]
FIXTURES = os.path.join(os.environ["MINE_FIXTURES_DIR"], "numba")


class NumbaStandalones(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        db = os.path.join(cls.tmp.name, "corpus.db")
        subprocess.run([MINE, "scan", FIXTURES, "--db", db, "--quiet"], check=True)
        out = subprocess.run(
            [MINE, "query", "SELECT qualname, standalone, self_contained, meta FROM kernels WHERE plugin = 'numba'",
             "--db", db, "--format", "json"], check=True, capture_output=True, text=True).stdout
        cls.kernels = json.loads(out)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_standalones_bind_their_globals(self):
        self.assertGreaterEqual(len(self.kernels), 13)
        for k in self.kernels:
            with self.subTest(kernel=k["qualname"]):
                missing = unbound_globals(k["standalone"])
                if k["self_contained"]:
                    self.assertEqual(missing, set(), k["standalone"])

    def test_roles(self):
        roles = {k["qualname"]: json.loads(k["meta"])["role"] for k in self.kernels}
        self.assertEqual(roles["clamp"], "device_function")
        self.assertEqual(roles["add_clamped"], "kernel")
        self.assertEqual(roles["gpu_ufunc"], "ufunc")
        for cpu in ("cpu_loop", "nopython_loop", "cpu_ufunc", "plain"):
            self.assertNotIn(cpu, roles)


if __name__ == "__main__":
    unittest.main(verbosity=2)
