"""`mine crawl` discovery strategies on loopback only: the fake GitHub API
(tests/fake_github/server.py) with GitHub's per-resource rate limits (scaled down in time), and
a `git daemon` serving the repositories it lists.

The population holds kernel repositories that only one strategy can find: one that says
"triton" only in its README, one found only by code search, one with Triton kernels only in
notebooks, one CUDA repository found only by code search (`__global__` in .cu files), one found
only by its topic, one whose primary language is C++; beside them Triton Inference Server
clients that mention triton and hold no kernel, and kernel repositories below the star
threshold. Checked: every repository with >= 100 stars and kernels is mined, none below is even
recorded, repos.discovered_by and the summary's per-strategy counts are what the population
says, no request reaches a resource while it is exhausted, --confirm clones no inference-server
client, a second crawl clones nothing again, and a crawl killed with SIGKILL resumes to the same
corpus.
"""
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest
import urllib.request

from loopback_servers import free_port, start_fake_github, start_git_daemon

MINE = os.environ["MINE"]
FIXTURES = os.environ["MINE_FIXTURES_DIR"]
TOKEN = "ghp_discoverytesttoken000000000000000000"

TRITON = open(os.path.join(FIXTURES, "triton", "basic_helpers.py")).read()
CUDA = open(os.path.join(FIXTURES, "cuda", "helpers_macros_constants.cu")).read()
CLIENT = "import tritonclient.http as httpclient\n\nclient = httpclient.InferenceServerClient('localhost:8000')\n"


def notebook(source):
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       "cells": [{"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                                  "source": source.splitlines(True)}]})


# name, stars, language, description, topics, readme, files, code_indexed, strategies that find it
# (at >= 100 stars, with the default terms "triton" and topics "triton", "cuda-kernels").
KERNELS = [
    ("acme/triton-kernels", 900, "Python", "Fast Triton kernels", ["triton", "gpu"], "Kernels.",
     {"ops/k.py": TRITON}, True, {"repo_search", "code_search", "topic"}),
    ("labs/state-space", 450, "Python", "Selective state space models", ["deep-learning"],
     "Fused scan written in Triton.", {"ssm/scan.py": TRITON}, False, {"repo_search"}),
    ("quant/quantlib", 300, "Python", "Quantization library", ["quantization"], "Low-bit inference.",
     {"q/kernels.py": TRITON}, True, {"code_search"}),
    ("ai/examples", 250, "Jupyter Notebook", "AI examples collection", [], "Examples.",
     {"nb/fused.ipynb": notebook(TRITON)}, True, {"code_search"}),
    ("gpu/fast-ops", 180, "Cuda", "Fast GPU operators", [], "CUDA code.",
     {"src/ops.cu": CUDA}, True, {"code_search"}),
    ("sim/stencils", 150, "Cuda", "Stencil codes", ["cuda-kernels"], "Stencils.",
     {"src/stencil.cu": CUDA}, False, {"topic"}),
    ("cpp/attention", 700, "C++", "Attention library with Triton and CUDA backends", ["attention"], "",
     {"attn/triton_impl.py": TRITON}, False, {"repo_search"}),
]
# Mention triton, hold no kernel: every clone of one is wasted.
CLIENTS = [
    ("nv/triton-client-tools", 800, "Python", "Triton Inference Server client tools", ["triton-inference-server"],
     "", {"client.py": CLIENT}, True, {"repo_search"}),
    ("ops/triton-helm", 120, "Smarty", "Helm chart for the Triton Inference Server", [], "", {"chart.py": CLIENT},
     True, {"repo_search"}),
    ("demo/serving-demo", 230, "Python", "Model serving demo", ["triton"], "Deploys with Triton server.",
     {"app.py": CLIENT}, True, {"repo_search", "topic"}),
]
# Kernels, but under the threshold: found by code search and dropped after the lookup.
SMALL = [
    ("tiny/triton-kernels-mini", 40, "Python", "Small Triton kernels", ["triton"], "", {"k.py": TRITON}, True, set()),
    ("tiny/cuda-bits", 99, "Cuda", "CUDA bits", [], "", {"a.cu": CUDA}, True, set()),
]
ALL = KERNELS + CLIENTS + SMALL


def gitc(*args, **kw):
    subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw)


def build(work):
    """Bare repositories under work/served and the population the stand-in serves."""
    served = os.path.join(work, "served")
    git_port = free_port()
    population = []
    for i, (name, stars, lang, desc, topics, readme, files, indexed, _) in enumerate(ALL):
        src = os.path.join(work, "src", name)
        for path, text in list(files.items()) + [("README.md", readme)]:
            os.makedirs(os.path.dirname(os.path.join(src, path)), exist_ok=True)
            with open(os.path.join(src, path), "w") as f:
                f.write(text)
        gitc("init", "-q", "-b", "main", src)
        gitc("-C", src, "add", "-A")
        gitc("-C", src, "commit", "-qm", "first")
        gitc("clone", "-q", "--bare", src, os.path.join(served, name + ".git"))
        owner, short = name.split("/")
        population.append({
            "id": 1000 + i, "name": short, "full_name": name, "owner": {"login": owner}, "description": desc,
            "language": lang, "stargazers_count": stars, "fork": False, "archived": False, "size": 10,
            "default_branch": "main", "created_at": "2021-01-%02dT00:00:00Z" % (i + 1),
            "pushed_at": "2024-01-01T00:00:00Z", "license": {"spdx_id": "MIT"}, "topics": topics,
            "readme": readme, "code_indexed": indexed,
            "code": [{"path": p, "size": len(t), "text": t} for p, t in files.items()],
            "clone_url": "git://127.0.0.1:%d/%s.git" % (git_port, name)})
    with open(os.path.join(work, "population.json"), "w") as f:
        json.dump(population, f)
    return served, git_port


class DiscoveryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="mine-discovery-")
        served, port = build(cls.work)
        cls.daemon = start_git_daemon(served, port)
        # GitHub's limits (search 30, code search 10 a window; core 5000 an hour) with a 3-second
        # window instead of a minute, so the crawl must wait several times within the test.
        cls.api, cls.api_url = start_fake_github(
            os.path.join(cls.work, "population.json"), "--rate-limit", "30", "--code-search-rate-limit", "4",
            "--rate-window", "3", "--core-rate-limit", "5000")

    @classmethod
    def tearDownClass(cls):
        for p in (cls.api, cls.daemon):
            os.killpg(p.pid, signal.SIGTERM)
            p.wait()
        shutil.rmtree(cls.work, ignore_errors=True)

    def crawl(self, name, *extra, token=True):
        env = dict(os.environ)
        env.pop("GITHUB_TOKEN", None)
        if token:
            env["GITHUB_TOKEN"] = TOKEN
        db = os.path.join(self.work, name + ".db")
        r = subprocess.run([MINE, "crawl", "--api-url", self.api_url, "--min-stars", "100", "--db", db,
                            "--cache-dir", os.path.join(self.work, name + "-cache"), "--jobs", "2", "--quiet", *extra],
                           env=env, capture_output=True, text=True, timeout=600)
        return r, db

    def log(self):
        with urllib.request.urlopen(self.api_url + "/_log") as r:
            return json.load(r)

    def rows(self, db, sql):
        c = sqlite3.connect(db)
        try:
            return c.execute(sql).fetchall()
        finally:
            c.close()

    def summary_counts(self, out):
        """strategy -> (found, first, only, requests) from the summary lines."""
        counts = {}
        for m in re.finditer(r"^  (\w+): (\d+) found \((\d+) first, (\d+) only by it\), (\d+) API requests", out, re.M):
            counts[m.group(1)] = tuple(int(g) for g in m.groups()[1:])
        return counts

    def test_every_kernel_repository_is_found_by_its_strategies(self):
        before = len(self.log())
        r, db = self.crawl("full")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        log = self.log()[before:]
        self.assertEqual([e for e in log if e["violation"]], [], "requests while a resource was exhausted")
        self.assertTrue(any(e["status"] == 200 and e["resource"] == "code_search" for e in log))

        mined = dict(self.rows(db, "SELECT name, mined_kernels FROM repos WHERE crawl_state='mined'"))
        for name, *_ in KERNELS:
            self.assertGreater(mined.get(name, 0), 0, "%s not mined: %s" % (name, r.stdout))
        for name, *_ in CLIENTS:
            self.assertEqual(mined.get(name), 0, name)  # cloned for nothing, without --confirm
        names = {n for (n,) in self.rows(db, "SELECT name FROM repos")}
        for name, *_ in SMALL:
            self.assertNotIn(name, names)

        found_by = dict(self.rows(db, "SELECT name, discovered_by FROM repos"))
        for name, *_, expected in KERNELS + CLIENTS:
            self.assertEqual(found_by[name], ",".join(sorted(expected)), name)

        counts = self.summary_counts(r.stdout)
        population = KERNELS + CLIENTS
        for strategy in ("code_search", "repo_search", "topic"):
            found = sum(1 for *_, by in population if strategy in by)
            only = sum(1 for *_, by in population if by == {strategy})
            self.assertEqual(counts[strategy][0], found, strategy + ": " + r.stdout)
            self.assertEqual(counts[strategy][2], only, strategy + ": " + r.stdout)
        self.assertIn("clones that yielded no kernel: %d" % len(CLIENTS), r.stdout)
        self.assertRegex(r.stdout, r"API requests: code_search \d+ core \d+ search \d+")
        # Each new repository from code search was looked up once, the ones below the threshold too.
        lookups = [e for e in log if e["resource"] == "core" and e["path"].startswith("/repos/")]
        code_found = {n for n, *_, by in population if "code_search" in by} | {n for n, *_ in SMALL}
        self.assertEqual(sorted(e["path"][len("/repos/"):] for e in lookups), sorted(code_found))
        # No star qualifier in code search, size: splitting is only needed above the cap.
        for e in log:
            if e["resource"] == "code_search":
                self.assertNotIn("stars", e["path"])

        # A second crawl clones nothing: unchanged repositories, empty ones included, are skipped.
        r2, _ = self.crawl("full", "--always-ask-remote")
        self.assertEqual(r2.returncode, 0, r2.stdout + r2.stderr)
        self.assertIn(" 0 cloned, 0 fetched", r2.stdout)
        # Empty repositories are not asked again even with --always-ask-remote; kernel ones are.
        self.assertEqual(self.rows(db, "SELECT count(*) FROM repos WHERE crawl_state='mined' AND mined_kernels=0"),
                         [(len(CLIENTS),)])

    def test_confirm_clones_no_inference_server_client(self):
        r, db = self.crawl("confirm", "--confirm")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        mined = dict(self.rows(db, "SELECT name, mined_kernels FROM repos WHERE crawl_state='mined'"))
        for name, *_ in CLIENTS:
            self.assertNotIn(name, mined, "cloned although code search found no candidate file")
            self.assertEqual(self.rows(db, "SELECT confirmed, crawl_state FROM repos WHERE name='%s'" % name),
                             [(0, "discovered")])
        self.assertIn("clones that yielded no kernel: 0", r.stdout)
        outside_index = sum(1 for *_, indexed, _by in KERNELS if not indexed)
        self.assertIn("not cloned, code search found no candidate file: %d" % (len(CLIENTS) + outside_index), r.stdout)
        # Kernel repositories outside the code index are not confirmed either: the price of --confirm.
        for name, *_, indexed, _by in KERNELS:
            self.assertEqual(name in mined, indexed, name)

        # A second --confirm crawl asks code search nothing about repositories not pushed since.
        before = len(self.log())
        r2, _ = self.crawl("confirm", "--confirm")
        self.assertEqual(r2.returncode, 0, r2.stdout + r2.stderr)
        asked = [e["path"] for e in self.log()[before:] if e["resource"] == "code_search" and "repo%3A" in e["path"]]
        self.assertEqual(asked, [])
        self.assertIn("--confirm: 0 code searches, 6 answers kept from earlier crawls", r2.stdout)
        self.assertIn(" 0 cloned, 0 fetched", r2.stdout)

    def test_without_token_code_search_is_skipped_and_confirm_refused(self):
        r, db = self.crawl("anon", token=False)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("code_search: skipped: code search needs a token", r.stdout)
        r, _ = self.crawl("anon2", "--confirm", token=False)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--confirm", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.work, "anon2.db")))

    def test_a_failing_strategy_does_not_stop_the_others(self):
        api, url = start_fake_github(os.path.join(self.work, "population.json"), "--code-search-status", "422")
        try:
            saved, self.api_url = self.api_url, url
            r, db = self.crawl("refused")
        finally:
            self.api_url = saved
            os.killpg(api.pid, signal.SIGTERM)
            api.wait()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"code_search: 0 found .*stopped: GitHub code search .*HTTP 422")
        self.assertIn("discovery stopped: code_search:", r.stdout)
        mined = {n for (n,) in self.rows(db, "SELECT name FROM repos WHERE mined_kernels > 0")}
        self.assertEqual(mined, {n for n, *_, by in KERNELS if by & {"repo_search", "topic"}})

    def test_kill_and_resume_loses_nothing(self):
        ref, ref_db = self.crawl("ref")
        self.assertEqual(ref.returncode, 0, ref.stdout + ref.stderr)
        rng = random.Random(18)
        db = None
        for _ in range(4):
            env = dict(os.environ, GITHUB_TOKEN=TOKEN)
            db = os.path.join(self.work, "killed.db")
            p = subprocess.Popen([MINE, "crawl", "--api-url", self.api_url, "--min-stars", "100", "--db", db,
                                  "--cache-dir", os.path.join(self.work, "killed-cache"), "--jobs", "2", "--quiet"],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            time.sleep(rng.uniform(0.3, 3.0))
            p.send_signal(signal.SIGKILL)
            p.wait()
        r, db = self.crawl("killed")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        canon = ("SELECT name, crawl_state, commit_id, mined_kernels, discovered_by, confirmed FROM repos ORDER BY name")
        self.assertEqual(self.rows(db, canon), self.rows(ref_db, canon))
        kernels = "SELECT repo, path, qualname, source_sha256 FROM kernels ORDER BY 1, 2, 3"
        self.assertEqual(self.rows(db, kernels), self.rows(ref_db, kernels))


if __name__ == "__main__":
    unittest.main()
