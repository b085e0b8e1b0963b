"""mine dedup + mine export end to end: duplicate clusters of the dedup fixtures, then every export
format read back with python's json module (exact keys) and every code block parsed with ast."""
import ast
import glob
import json
import os
import re
import shutil
import sqlite3
import tempfile
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mine_cli import mine, read_json, read_jsonl  # noqa: E402

FIXTURES = os.environ["MINE_FIXTURES_DIR"]
DEDUP = os.path.join(FIXTURES, "dedup")
TRITON = os.path.join(FIXTURES, "triton")

JSONL_KEYS = {"kernel_id", "code", "repo", "commit", "path", "start_line", "end_line", "license", "stars", "plugin",
              "kernel_name", "qualname", "self_contained", "dependencies", "check_status", "cluster_id", "form",
              "language"}
FENCE = re.compile(r"\A```python\n(.*)\n```\Z", re.S)


def read_text(path):
    with open(path) as f:
        return f.read()


def code_of(block):
    m = FENCE.match(block)
    assert m, "not one fenced python block: %r" % block[:80]
    return m.group(1)


class Export(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        t = cls.tmp.name
        cls.db = os.path.join(t, "corpus.db")
        # Three repositories: the dedup fixtures, a second repo with a copy of original.py (a
        # cross-repository duplicate), and the Triton fixtures (unrelated kernels).
        cls.repo_a = os.path.join(t, "repo_a")
        cls.repo_b = os.path.join(t, "repo_b")
        shutil.copytree(DEDUP, cls.repo_a)
        os.makedirs(cls.repo_b)
        shutil.copy(os.path.join(DEDUP, "original.py"), os.path.join(cls.repo_b, "vendored.py"))
        mine("scan", cls.repo_a, cls.repo_b, TRITON, "--db", cls.db, "--quiet")
        cls.dedup_out = mine("dedup", "--db", cls.db).stdout
        rows = json.loads(mine("query", "SELECT k.id, k.repo, k.path, k.name, d.exact_cluster, d.alpha_cluster, "
                                        "d.near_cluster, d.is_representative FROM kernels k JOIN kernel_dedup d "
                                        "ON d.kernel_id = k.id", "--db", cls.db, "--format", "json").stdout)
        # The Triton fixtures' kernels written to fail (written_to_fail.py) are left out of every
        # export unless asked for; the counts below are of the others.
        failing = {r["id"] for r in json.loads(mine(
            "query", "SELECT id FROM kernels WHERE json_extract(meta, '$.expects_error') IS NOT NULL OR "
                     "json_extract(meta, '$.source_placeholders') IS NOT NULL", "--db", cls.db, "--format", "json").stdout)}
        cls.written_to_fail = len(failing)
        cls.all_rows = rows
        cls.rows = [r for r in rows if r["id"] not in failing]
        cls.total = len(json.loads(mine("query", "SELECT id FROM kernels", "--db", cls.db, "--format", "json").stdout)) - len(failing)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def key(self, r):
        repo = "a" if r["repo"] == self.repo_a else "b" if r["repo"] == self.repo_b else "triton"
        return "%s/%s:%s" % (repo, r["path"], r["name"])

    def partition(self, level, names):
        groups = {}
        for r in self.rows:
            if r["name"] in names and self.key(r).split("/")[0] in ("a", "b"):
                groups.setdefault(r[level], set()).add(self.key(r))
        return sorted(sorted(g) for g in groups.values())

    def out(self, name):
        return os.path.join(self.tmp.name, name)

    # -- clusters -----------------------------------------------------------------------------

    def test_every_kernel_was_hashed(self):
        self.assertEqual(len(self.all_rows), self.total + self.written_to_fail)
        self.assertIn("%d kernels" % (self.total + self.written_to_fail), self.dedup_out)

    def test_kernels_written_to_fail_leave_only_when_asked(self):
        self.assertEqual(self.written_to_fail, 3)
        out = self.out("all.jsonl")
        summary = mine("export", "--db", self.db, "--out", out, "--dedup", "none").stdout
        self.assertIn("left out, written to fail or completed by a test's text substitution: 3", summary)
        self.assertEqual(len(read_jsonl(out)), self.total)
        summary = mine("export", "--db", self.db, "--out", out, "--dedup", "none", "--include-written-to-fail").stdout
        self.assertNotIn("left out, written to fail", summary)
        self.assertEqual(len(read_jsonl(out)), self.total + 3)

    def test_exact_clusters(self):
        self.assertEqual(self.partition("exact_cluster", {"fused_add_rms_norm_kernel", "softmax_kernel"}), sorted([
            ["a/original.py:fused_add_rms_norm_kernel", "a/reformatted.py:fused_add_rms_norm_kernel",
             "b/vendored.py:fused_add_rms_norm_kernel"],
            ["a/renamed.py:fused_add_rms_norm_kernel"],
            ["a/one_line_change.py:fused_add_rms_norm_kernel"],
            ["a/different.py:softmax_kernel"],
        ]))

    def test_alpha_clusters(self):
        self.assertEqual(self.partition("alpha_cluster", {"fused_add_rms_norm_kernel", "softmax_kernel"}), sorted([
            ["a/original.py:fused_add_rms_norm_kernel", "a/reformatted.py:fused_add_rms_norm_kernel",
             "a/renamed.py:fused_add_rms_norm_kernel", "b/vendored.py:fused_add_rms_norm_kernel"],
            ["a/one_line_change.py:fused_add_rms_norm_kernel"],
            ["a/different.py:softmax_kernel"],
        ]))

    def test_near_clusters(self):
        self.assertEqual(self.partition("near_cluster", {"fused_add_rms_norm_kernel", "softmax_kernel", "_rms"}), sorted([
            ["a/one_line_change.py:fused_add_rms_norm_kernel", "a/original.py:fused_add_rms_norm_kernel",
             "a/reformatted.py:fused_add_rms_norm_kernel", "a/renamed.py:fused_add_rms_norm_kernel",
             "b/vendored.py:fused_add_rms_norm_kernel"],
            ["a/one_line_change.py:_rms", "a/original.py:_rms", "a/reformatted.py:_rms", "a/renamed.py:_rms",
             "b/vendored.py:_rms"],
            ["a/different.py:softmax_kernel"],
        ]))

    def test_one_representative_per_cluster_lowest_id_without_stars(self):
        by_cluster = {}
        for r in self.rows:
            by_cluster.setdefault(r["near_cluster"], []).append(r)
        for cid, members in by_cluster.items():
            reps = [m for m in members if m["is_representative"]]
            self.assertEqual(len(reps), 1)
            self.assertEqual(reps[0]["id"], min(m["id"] for m in members))
            self.assertEqual(cid, reps[0]["id"])

    def test_incremental_rerun_hashes_nothing(self):
        self.assertIn("0 hashed now", mine("dedup", "--db", self.db).stdout)

    # -- formats ------------------------------------------------------------------------------

    def near_cluster_count(self):
        return len({r["near_cluster"] for r in self.rows})

    def test_torchtune(self):
        path = self.out("tt.json")
        summary = mine("export", "--db", self.db, "--out", path, "--format", "torchtune").stdout
        data = read_json(path)
        self.assertIsInstance(data, list)
        self.assertEqual(len(data), self.near_cluster_count())
        for item in data:
            self.assertEqual(set(item), {"text"})
            ast.parse(code_of(item["text"]))
        self.assertIn("removed as exact duplicates", summary)
        self.assertIn("removed as near duplicates", summary)

    def test_torchtune_column(self):
        path = self.out("tt_col.json")
        mine("export", "--db", self.db, "--out", path, "--format", "torchtune", "--column", "content")
        for item in read_json(path):
            self.assertEqual(set(item), {"content"})

    def test_jsonl_without_dedup(self):
        path = self.out("all.jsonl")
        mine("export", "--db", self.db, "--out", path, "--format", "jsonl", "--dedup", "none")
        records = read_jsonl(path)
        self.assertEqual(len(records), self.total)
        clusters = {r["id"]: r["near_cluster"] for r in self.rows}
        for r in records:
            self.assertEqual(set(r), JSONL_KEYS)
            ast.parse(r["code"])
            self.assertEqual(r["cluster_id"], clusters[r["kernel_id"]])
            self.assertTrue(r["plugin"])
            self.assertIsInstance(r["dependencies"], list)
            self.assertLessEqual(r["start_line"], r["end_line"])

    def test_exact_dedup_keeps_near_copies(self):
        path = self.out("exact.jsonl")
        summary = mine("export", "--db", self.db, "--out", path, "--dedup", "exact").stdout
        names = [r["path"] for r in read_jsonl(path) if r["kernel_name"] == "fused_add_rms_norm_kernel"]
        self.assertEqual(sorted(names), ["one_line_change.py", "original.py"])
        self.assertRegex(summary, r"removed as exact duplicates: \d+ \([1-9]\d* of them only after renaming locals\)")

    def test_chat(self):
        path = self.out("chat.jsonl")
        mine("export", "--db", self.db, "--out", path, "--format", "chat")
        records = read_jsonl(path)
        self.assertEqual(len(records), self.near_cluster_count())
        for r in records:
            self.assertEqual(set(r), {"messages"})
            self.assertEqual([m["role"] for m in r["messages"]], ["user", "assistant"])
            for m in r["messages"]:
                self.assertEqual(set(m), {"role", "content"})
            ast.parse(code_of(r["messages"][1]["content"]))
        fused = [r for r in records if "`fused_add_rms_norm_kernel`" in r["messages"][0]["content"]]
        self.assertEqual(len(fused), 1)
        prompt = fused[0]["messages"][0]["content"]
        self.assertIn("def fused_add_rms_norm_kernel(x_ptr, res_ptr", prompt)
        self.assertIn("Adds the residual in place", prompt)

    # -- splits, license, decontamination, atomicity ------------------------------------------

    def test_split_by_repo_and_cluster(self):
        path = self.out("split.jsonl")
        summary = mine("export", "--db", self.db, "--out", path, "--dedup", "none", "--split", "test=0.5").stdout
        train = read_jsonl(path)
        test = read_jsonl(self.out("split.test.jsonl"))
        self.assertEqual(len(train) + len(test), self.total)
        self.assertTrue(train and test, summary)
        self.assertLessEqual(len(test), self.total * 0.5)
        self.assertFalse({r["repo"] for r in train} & {r["repo"] for r in test})
        self.assertFalse({r["cluster_id"] for r in train} & {r["cluster_id"] for r in test})
        self.assertIn("written test: %d" % len(test), summary)

    def test_permissive_license_drops_unknown(self):
        path = self.out("perm.json")
        summary = mine("export", "--db", self.db, "--out", path, "--format", "torchtune", "--license",
                       "permissive").stdout
        self.assertEqual(read_json(path), [])
        self.assertIn("unknown %d" % self.total, summary)

    def test_decontaminate(self):
        softmax = read_text(os.path.join(DEDUP, "different.py"))
        bench_jsonl = self.out("bench.jsonl")
        with open(bench_jsonl, "w") as f:
            f.write(json.dumps({"task": "softmax", "prompt": "Write a row-wise softmax kernel in Triton, please.",
                                "solution": softmax}) + "\n")
            f.write(json.dumps({"task": "other", "solution": "def unrelated(a, b):\n    return a @ b + 1 # xx yy zz"})
                    + "\n")
        path = self.out("clean.jsonl")
        summary = mine("export", "--db", self.db, "--out", path, "--decontaminate", bench_jsonl).stdout
        names = [r["kernel_name"] for r in read_jsonl(path)]
        self.assertNotIn("softmax_kernel", names)
        self.assertEqual(len(names), self.near_cluster_count() - 1)
        self.assertIn("removed as near duplicates of benchmark items: 1", summary)

        # A plain Python benchmark file with the kernel among other code.
        bench_py = self.out("bench_suite.py")
        with open(bench_py, "w") as f:
            f.write("import torch\n\n\ndef reference(x):\n    return torch.softmax(x, -1)\n\n\n" + softmax)
        summary = mine("export", "--db", self.db, "--out", path, "--decontaminate", bench_py).stdout
        self.assertIn("removed as near duplicates of benchmark items: 1", summary)

    def test_failed_export_leaves_old_file(self):
        path = self.out("keep.json")
        with open(path, "w") as f:
            f.write("OLD")
        r = mine("export", "--db", self.db, "--out", path, "--where", "no_such_column = 1", check=False)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("--where", r.stderr)
        self.assertEqual(read_text(path), "OLD")
        self.assertEqual(glob.glob(path + ".tmp-*"), [])

    def test_where_cannot_write(self):
        r = mine("export", "--db", self.db, "--out", self.out("w.jsonl"), "--where", "1); DELETE FROM kernels; --",
                 check=False)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(len(json.loads(mine("query", "SELECT id FROM kernels", "--db", self.db,
                                             "--format", "json").stdout)), self.total + self.written_to_fail)

    def test_usage_errors(self):
        for args in (["--format", "parquet"], ["--dedup", "fuzzy"], ["--split", "test=2"], ["--license", "gpl"]):
            r = mine("export", "--db", self.db, "--out", self.out("x"), *args, check=False)
            self.assertEqual(r.returncode, 2, args)


class StarsAndLicenses(unittest.TestCase):
    """Representatives follow stars; a permissive export whose representative is filtered out
    still keeps one copy of the cluster."""

    def test_most_stars_wins_and_license_filter_falls_back(self):
        with tempfile.TemporaryDirectory() as t:
            db = os.path.join(t, "c.db")
            a, b = os.path.join(t, "a"), os.path.join(t, "b")
            shutil.copytree(DEDUP, a)
            os.makedirs(b)
            shutil.copy(os.path.join(DEDUP, "original.py"), os.path.join(b, "vendored.py"))
            mine("scan", a, b, "--db", db, "--quiet")
            con = sqlite3.connect(db)
            con.execute("UPDATE repos SET stars = 10, license = 'MIT' WHERE name = ?", (a,))
            con.execute("UPDATE repos SET stars = 5000, license = 'GPL-3.0' WHERE name = ?", (b,))
            con.commit()
            mine("dedup", "--db", db, "--quiet")
            reps = con.execute("SELECT k.repo, k.path FROM kernels k JOIN kernel_dedup d ON d.kernel_id = k.id "
                               "WHERE k.name = 'fused_add_rms_norm_kernel' AND d.is_representative = 1").fetchall()
            con.close()
            self.assertEqual(reps, [(b, "vendored.py")])

            out = os.path.join(t, "any.jsonl")
            mine("export", "--db", db, "--out", out)
            fused = [r for r in read_jsonl(out) if r["kernel_name"] == "fused_add_rms_norm_kernel"]
            self.assertEqual([(r["repo"], r["stars"], r["license"]) for r in fused], [(b, 5000, "GPL-3.0")])

            out = os.path.join(t, "permissive.jsonl")
            summary = mine("export", "--db", db, "--out", out, "--license", "permissive").stdout
            records = read_jsonl(out)
            self.assertTrue(all(r["license"] == "MIT" for r in records))
            fused = [r for r in records if r["kernel_name"] == "fused_add_rms_norm_kernel"]
            self.assertEqual(len(fused), 1)
            self.assertEqual(fused[0]["repo"], a)
            self.assertIn("removed, license not permissive or unknown: 2", summary)


if __name__ == "__main__":
    unittest.main()
