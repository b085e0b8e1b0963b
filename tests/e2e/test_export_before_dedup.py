"""`mine export` on a corpus that `mine dedup` has not seen (or has seen only partly) runs the
incremental dedup first, with the parameters of the last run, and says so; --no-dedup-update
keeps the old refusal."""
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mine_cli import mine, query  # noqa: E402

FIXTURES = os.environ["MINE_FIXTURES_DIR"]


class ExportBeforeDedup(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.tmp.name, "c.db")
        mine("scan", os.path.join(FIXTURES, "dedup"), "--db", self.db, "--quiet")

    def tearDown(self):
        self.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.tmp.name, name)

    def test_no_dedup_update_refuses_as_before(self):
        r = mine("export", "--db", self.db, "--out", self.out("x.jsonl"), "--no-dedup-update", check=False)
        self.assertEqual(r.returncode, 1)
        self.assertIn("have not been through `mine dedup`", r.stderr)
        self.assertFalse(os.path.exists(self.out("x.jsonl")))
        self.assertEqual(query(self.db, "SELECT count(*) AS n FROM kernel_dedup")[0]["n"], 0)

    def test_export_runs_the_dedup_it_needs(self):
        total = query(self.db, "SELECT count(*) AS n FROM kernels")[0]["n"]
        r = mine("export", "--db", self.db, "--out", self.out("first.jsonl"))
        self.assertIn("%d selected kernels had not been through `mine dedup`" % total, r.stdout)
        self.assertIn("%d kernels hashed" % total, r.stdout)
        first = open(self.out("first.jsonl")).read()
        # The same export after an explicit `mine dedup` writes the same records and runs nothing.
        mine("dedup", "--db", self.db, "--quiet")
        r = mine("export", "--db", self.db, "--out", self.out("second.jsonl"))
        self.assertNotIn("had not been through", r.stdout)
        self.assertEqual(open(self.out("second.jsonl")).read(), first)

    def test_the_update_keeps_the_last_runs_parameters(self):
        mine("dedup", "--db", self.db, "--quiet", "--perms", "128", "--threshold", "0.9")
        shutil.copytree(os.path.join(FIXTURES, "triton"), self.out("more"))
        mine("scan", self.out("more"), "--db", self.db, "--quiet")
        r = mine("export", "--db", self.db, "--out", self.out("x.jsonl"))
        new = query(self.db, "SELECT count(*) AS n FROM kernels k JOIN repos r ON r.id = k.repo_id "
                             "WHERE r.name LIKE '%more'")[0]["n"]
        self.assertIn("(%d kernels hashed" % new, r.stdout)  # only the new ones: same parameters
        runs = query(self.db, "SELECT params, threshold FROM dedup_runs ORDER BY id")
        self.assertEqual(len(runs), 2)
        self.assertEqual(runs[0]["params"], runs[1]["params"])
        self.assertIn("perms=128", runs[1]["params"])
        self.assertEqual(runs[1]["threshold"], 0.9)


if __name__ == "__main__":
    unittest.main(verbosity=2)
