"""Licenses of locally scanned repositories: a git repository with an MIT LICENSE file gives its
kernels license MIT from 'file'; a file's own SPDX-License-Identifier header overrides it
('spdx-header'); a repository whose GitHub license disagrees with its file keeps the API's and
records the disagreement; `--license permissive` keeps what is permissive; `mine stats` shows the
mix by source."""
import json
import os
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mine_cli import mine, git  # noqa: E402


# The MIT license as projects write it: a title, the year and holder filled in.
MIT = """MIT License

Copyright (c) 2024 Example Kernels Authors

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
"""

KERNEL = """{header}import triton
import triton.language as tl


@triton.jit
def {name}(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + {value})
"""


class LicenseProvenance(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        t = cls.tmp.name
        cls.repo = os.path.join(t, "kernels_repo")
        os.makedirs(cls.repo)
        with open(os.path.join(cls.repo, "LICENSE"), "w") as f:
            f.write(MIT)
        with open(os.path.join(cls.repo, "plain.py"), "w") as f:
            f.write(KERNEL.format(header="", name="plain_kernel", value=1))
        with open(os.path.join(cls.repo, "tagged.py"), "w") as f:
            f.write(KERNEL.format(header="# Copyright 2024 Someone Else\n# SPDX-License-Identifier: GPL-2.0-only\n",
                                  name="tagged_kernel", value=2))
        git(cls.repo, "init", "-q")
        git(cls.repo, "add", ".")
        git(cls.repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "kernels")
        # A folder without any license file.
        cls.bare_folder = os.path.join(t, "no_license")
        os.makedirs(cls.bare_folder)
        with open(os.path.join(cls.bare_folder, "k.py"), "w") as f:
            f.write(KERNEL.format(header="", name="unlicensed_kernel", value=3))
        cls.db = os.path.join(t, "corpus.db")
        mine("scan", cls.repo, cls.bare_folder, "--db", cls.db, "--quiet")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def kernels(self, db=None):
        rows = json.loads(mine("query", "SELECT name, license, license_source FROM kernels", "--db", db or self.db,
                               "--format", "json").stdout)
        return {r["name"]: (r["license"], r["license_source"]) for r in rows}

    def test_license_file_and_spdx_header(self):
        k = self.kernels()
        self.assertEqual(k["plain_kernel"], ("MIT", "file"))
        self.assertEqual(k["tagged_kernel"], ("GPL-2.0-only", "spdx-header"))
        self.assertEqual(k["unlicensed_kernel"], (None, "none"))

    def test_repository_records_the_file(self):
        rows = json.loads(mine("query", "SELECT name, license_file, license_file_path, license_file_confidence, "
                                        "license_disagreement FROM repos ORDER BY name", "--db", self.db,
                               "--format", "json").stdout)
        by_kind = {os.path.basename(r["name"]): r for r in rows}
        repo = by_kind["kernels_repo"]
        self.assertEqual((repo["license_file"], repo["license_file_path"]), ("MIT", "LICENSE"))
        self.assertGreater(repo["license_file_confidence"], 0.95)
        self.assertIsNone(repo["license_disagreement"])
        folder = by_kind["no_license"]
        self.assertIsNone(folder["license_file"])
        self.assertIsNone(folder["license_file_path"])

    def test_permissive_export_keeps_the_mit_kernel(self):
        mine("dedup", "--db", self.db, "--quiet")
        out = os.path.join(self.tmp.name, "perm.jsonl")
        summary = mine("export", "--db", self.db, "--out", out, "--license", "permissive").stdout
        with open(out) as f:
            records = [json.loads(line) for line in f]
        self.assertEqual([(r["kernel_name"], r["license"]) for r in records], [("plain_kernel", "MIT")])
        self.assertIn("removed, license not permissive or unknown: 2", summary)

    def test_stats_show_the_mix_by_source(self):
        stats = json.loads(mine("stats", "--db", self.db, "--format", "json").stdout)["sections"]
        mix = {(r["license"], r["source"]): r["kernels"] for r in stats["license_mix"]["rows"]}
        self.assertEqual(mix, {("MIT", "file"): 1, ("GPL-2.0-only", "spdx-header"): 1, ("(unknown)", "none"): 1})
        sources = {r["source"]: r["kernels"] for r in stats["license_sources"]["rows"]}
        self.assertEqual(sources, {"file": 1, "spdx-header": 1, "none": 1})
        self.assertIn("Where kernel licenses come from", mine("stats", "--db", self.db).stdout)

    def test_api_license_wins_and_disagreement_is_recorded(self):
        db = os.path.join(self.tmp.name, "crawled.db")
        mine("scan", self.repo, "--db", db, "--quiet")
        con = sqlite3.connect(db)
        con.execute("UPDATE repos SET license = 'Apache-2.0'")  # what the GitHub API would have said
        con.commit()
        con.close()
        mine("scan", self.repo, "--db", db, "--quiet")  # mined again, as a crawl does
        k = self.kernels(db)
        self.assertEqual(k["plain_kernel"], ("Apache-2.0", "api"))
        self.assertEqual(k["tagged_kernel"], ("GPL-2.0-only", "spdx-header"))
        row = json.loads(mine("query", "SELECT license_disagreement FROM repos", "--db", db, "--format",
                              "json").stdout)[0]
        self.assertEqual(row["license_disagreement"], "api Apache-2.0, file MIT")
        # GitHub's NOASSERTION names no license: the file's is used, and nothing disagrees.
        con = sqlite3.connect(db)
        con.execute("UPDATE repos SET license = 'NOASSERTION'")
        con.commit()
        con.close()
        mine("scan", self.repo, "--db", db, "--quiet")
        self.assertEqual(self.kernels(db)["plain_kernel"], ("MIT", "file"))


if __name__ == "__main__":
    unittest.main(verbosity=2)
