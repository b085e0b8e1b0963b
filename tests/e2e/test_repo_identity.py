"""A git repository scanned locally whose origin remote is on GitHub is named owner/name, with
its path in repos.local_path and the remote (credentials dropped) in repos.origin_url; a corpus
that named it by path before keeps its rows and kernel ids; --path-names keeps the old naming;
two corpora scanned from different clones of one repository merge without duplicates."""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mine_cli import mine, git, query  # noqa: E402

FIXTURES = os.environ["MINE_FIXTURES_DIR"]

KERNEL = """import triton
import triton.language as tl


@triton.jit
def add_one(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1)
"""


def make_clone(path, origin):
    os.makedirs(path)
    with open(os.path.join(path, "kernels.py"), "w") as f:
        f.write(KERNEL)
    git(path, "init", "-q")
    git(path, "add", ".")
    git(path, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "k")
    if origin:
        git(path, "remote", "add", "origin", origin)


class RepoIdentity(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_github_clone_is_named_by_its_origin(self):
        clone = os.path.join(self.t, "my-checkout")
        make_clone(clone, "https://someone:ghp_notreal@github.com/example-org/fast-kernels.git")
        db = os.path.join(self.t, "c.db")
        out = mine("scan", clone, "--db", db).stdout
        self.assertIn("= example-org/fast-kernels", out)
        repos = query(db, "SELECT name, local_path, origin_url FROM repos")
        self.assertEqual(repos, [{"name": "example-org/fast-kernels", "local_path": os.path.realpath(clone),
                                  "origin_url": "https://github.com/example-org/fast-kernels.git"}])
        self.assertEqual(query(db, "SELECT DISTINCT repo FROM kernels"), [{"repo": "example-org/fast-kernels"}])
        with open(db, "rb") as f:
            self.assertNotIn(b"ghp_notreal", f.read())

    def test_other_remotes_and_folders_keep_their_path(self):
        clone = os.path.join(self.t, "gitlab-checkout")
        make_clone(clone, "git@gitlab.com:example-org/fast-kernels.git")
        db = os.path.join(self.t, "c.db")
        mine("scan", clone, os.path.join(FIXTURES, "dedup"), "--db", db, "--quiet")
        repos = query(db, "SELECT name, local_path, origin_url FROM repos ORDER BY name")
        for r in repos:
            self.assertEqual(r["name"], r["local_path"])
        self.assertEqual([r["origin_url"] for r in repos if r["name"].endswith("gitlab-checkout")],
                         ["git@gitlab.com:example-org/fast-kernels.git"])

    def test_path_named_corpus_is_renamed_in_place(self):
        clone = os.path.join(self.t, "checkout")
        make_clone(clone, "git@github.com:example-org/fast-kernels.git")
        db = os.path.join(self.t, "c.db")
        mine("scan", clone, "--db", db, "--quiet", "--path-names")
        before = query(db, "SELECT r.id AS repo_id, r.name, k.id AS kernel_id FROM kernels k JOIN repos r ON r.id = k.repo_id")
        self.assertEqual(before[0]["name"], os.path.realpath(clone))
        mine("scan", clone, "--db", db, "--quiet")
        after = query(db, "SELECT r.id AS repo_id, r.name, k.id AS kernel_id, k.repo FROM kernels k "
                          "JOIN repos r ON r.id = k.repo_id")
        self.assertEqual(len(after), 1)
        self.assertEqual((after[0]["repo_id"], after[0]["kernel_id"]), (before[0]["repo_id"], before[0]["kernel_id"]))
        self.assertEqual((after[0]["name"], after[0]["repo"]), ("example-org/fast-kernels",) * 2)
        self.assertEqual(len(query(db, "SELECT id FROM repos")), 1)

    def test_two_clones_merge_into_one_repository(self):
        a, b = os.path.join(self.t, "a"), os.path.join(self.t, "b")
        make_clone(a, "https://github.com/example-org/fast-kernels")
        make_clone(b, "git@github.com:example-org/fast-kernels.git")
        db_a, db_b, merged = (os.path.join(self.t, n) for n in ("a.db", "b.db", "all.db"))
        mine("scan", a, "--db", db_a, "--quiet")
        mine("scan", b, "--db", db_b, "--quiet")
        mine("merge", merged, db_a, db_b)
        self.assertEqual(query(merged, "SELECT name FROM repos"), [{"name": "example-org/fast-kernels"}])
        self.assertEqual(len(query(merged, "SELECT id FROM kernels")), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
