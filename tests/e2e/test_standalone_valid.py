"""Every standalone the Triton fixtures produce parses as Python, and every kernel marked
self-contained reads no global that its standalone does not define or import."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standalone_check import unbound_globals  # noqa: E402

MINE = os.environ["MINE"]
FIXTURES = os.path.join(os.environ["MINE_FIXTURES_DIR"], "triton")


class StandaloneValidity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.tmp.name, "corpus.db")
        subprocess.run([MINE, "scan", FIXTURES, "--db", cls.db, "--quiet"], check=True)
        out = subprocess.run(
            [MINE, "query", "SELECT qualname, path, standalone, self_contained FROM kernels", "--db", cls.db,
             "--format", "json"], check=True, capture_output=True, text=True).stdout
        cls.kernels = json.loads(out)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_found_kernels(self):
        self.assertGreaterEqual(len(self.kernels), 17)

    def test_every_standalone_parses_and_binds_its_globals(self):
        contained = 0
        for k in self.kernels:
            with self.subTest(kernel=k["qualname"], path=k["path"]):
                missing = unbound_globals(k["standalone"])
                if k["self_contained"]:
                    contained += 1
                    self.assertEqual(missing, set(), k["standalone"])
                else:
                    self.assertTrue(missing, "marked not self-contained but binds every name")
        self.assertGreater(contained, 0)

    def test_standalone_keeps_nothing_unrelated(self):
        by_name = {k["qualname"]: k["standalone"] for k in self.kernels}
        rms = by_name["rms_norm_kernel"]
        for unrelated in ("UNUSED_CONSTANT", "host_only_helper", "import os", "import math", "import torch"):
            self.assertNotIn(unrelated, rms)
        self.assertNotIn("unrelated_product", by_name["matmul_kernel"])
        self.assertNotIn("itertools", by_name["matmul_kernel"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
