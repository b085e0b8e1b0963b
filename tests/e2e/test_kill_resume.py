"""Crash safety: `mine scan`, `mine crawl` (fake GitHub API and `git daemon` on 127.0.0.1),
`mine dedup` and `mine export` are each killed with SIGKILL 20 times at moments drawn from a
fixed seed over the length of an uninterrupted run. After every kill `PRAGMA integrity_check`
passes and what is stored is all-or-nothing per repository (scan, crawl) or agrees with the
uninterrupted run (dedup hashes, the export file); then a re-run completes and a canonical dump
of the tables (natural keys, no ids or timestamps) equals the uninterrupted run's.

Two writers: scans running at once (with a dedup beside them) all finish and store what a
sequential run stores; a writer facing another process's lock waits for it, and when the lock
outlives MINE_BUSY_TIMEOUT_MS fails with a message saying so and changes nothing.
"""
import glob
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import tempfile
import time
import unittest

from loopback_servers import free_port, start_fake_github, start_git_daemon

MINE = os.environ["MINE"]
FIXTURES = os.environ["MINE_FIXTURES_DIR"]
SOURCE = os.environ["MINE_SOURCE_DIR"]
KILLS = 20
SEED = 20261123
N_REPOS = 30  # scanned folders, one transaction each
ROUNDS = 8  # of concurrent writers

CANON = {
    "kernels": "SELECT repo, path, qualname, name, plugin, start_line, end_line, source_sha256, standalone_sha256, "
               "self_contained, external_modules, meta, commit_id FROM kernels",
    "kernel_deps": "SELECT k.repo, k.path, k.qualname, d.name, d.kind, d.path, d.start_line "
                   "FROM kernel_deps d JOIN kernels k ON k.id = d.kernel_id",
    "files": "SELECT r.name, f.path, f.blob_id, f.size, f.parsed, f.kernel_count FROM files f "
             "JOIN repos r ON r.id = f.repo_id",
    "repos": "SELECT name, source_kind, location, commit_id, clone_url, stars, default_branch, license, pushed_at, "
             "crawl_state, crawl_error, cloned_commit, mined_pushed_at, mined_kernels FROM repos",
    "scan_errors": "SELECT DISTINCT repo, path, line, kind, message FROM scan_errors",
}
DEDUP_CANON = {
    "kernel_dedup": "SELECT k.repo, k.path, k.qualname, k.source_sha256, d.standalone_sha256, d.params, d.tokens, "
                    "d.exact_hash, d.alpha_hash, hex(d.minhash), "
                    "(SELECT repo || path || qualname FROM kernels WHERE id = d.exact_cluster), "
                    "(SELECT repo || path || qualname FROM kernels WHERE id = d.alpha_cluster), "
                    "(SELECT repo || path || qualname FROM kernels WHERE id = d.near_cluster), d.is_representative "
                    "FROM kernel_dedup d JOIN kernels k ON k.id = d.kernel_id",
    "dup_clusters": "SELECT c.level, (SELECT repo || path || qualname FROM kernels WHERE id = c.cluster_id), c.size, "
                    "c.repos FROM dup_clusters c",
}


def dump(db, queries):
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return {t: sorted(map(repr, c.execute(q).fetchall())) for t, q in queries.items()}
    finally:
        c.close()


def has_schema(db):
    """Each migration is its own transaction: a kill during the migrations of a new corpus leaves
    a valid database at an earlier schema version (no tables at all after the first), which the
    next run migrates forward. Only a fully migrated corpus has the tables the dump reads."""
    latest = len([f for f in os.listdir(os.path.join(SOURCE, "schema")) if f.endswith(".sql")])
    c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return c.execute("PRAGMA user_version").fetchone()[0] == latest
    finally:
        c.close()


def integrity(db):
    c = sqlite3.connect(db)
    try:
        return c.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        c.close()


def mine(*args, env=None, timeout=300):
    return subprocess.run([MINE, *args], capture_output=True, text=True, env=env, timeout=timeout)


def timed(argv, env=None):
    t0 = time.monotonic()
    r = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
    return r, time.monotonic() - t0


def kill_runs(test, argv, duration, after_kill, env=None, reset_every=0, reset=None):
    """Starts argv KILLS times, each killed with SIGKILL after a delay drawn from the seed over
    [0, duration]; after_kill(i) checks what is left. With reset_every, reset() starts over from
    nothing that often (a resumed crawl skips what is done, so later runs would end too soon to
    be killed). Returns how many kills hit a running process."""
    rng = random.Random(SEED)
    hit = 0
    for i in range(KILLS):
        if reset_every and i and i % reset_every == 0:
            reset()
        p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(rng.uniform(0.0, duration))
        if p.poll() is None:
            hit += 1
        p.kill()
        p.wait()
        after_kill(i)
    return hit


def make_repos(root, n, offset=0):
    paths = []
    files = sorted(glob.glob(os.path.join(FIXTURES, "triton", "*.py")))
    for i in range(offset, offset + n):
        d = os.path.join(root, "repo%02d" % i, "pkg%d" % i)
        os.makedirs(d)
        for f in files:
            shutil.copy(f, d)
        paths.append(os.path.dirname(d))
    return paths


class Summary:
    lines = []


class ScanAndDedupAndExport(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mine-kill-")
        cls.t = cls.tmp.name
        cls.repos = make_repos(os.path.join(cls.t, "src"), N_REPOS)
        cls.ref = os.path.join(cls.t, "ref.db")
        r, cls.scan_s = timed([MINE, "scan", *cls.repos, "--db", cls.ref, "--jobs", "1", "--quiet"])
        assert r.returncode == 0, r.stderr
        cls.ref_dump = dump(cls.ref, CANON)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def per_repo(self, d):
        out = {}
        for row in d["kernels"]:
            out.setdefault(eval(row)[0], []).append(row)
        return out

    def test_scan(self):
        db = os.path.join(self.t, "scan.db")
        ref_by_repo = self.per_repo(self.ref_dump)

        def check(i):
            if not os.path.exists(db):
                return
            self.assertEqual(integrity(db), "ok", "after kill %d" % i)
            if not has_schema(db):
                return
            got = self.per_repo(dump(db, {"kernels": CANON["kernels"]}))
            for repo, rows in got.items():
                self.assertEqual(rows, ref_by_repo[repo], "half-stored repository %s after kill %d" % (repo, i))

        hit = kill_runs(self, [MINE, "scan", *self.repos, "--db", db, "--jobs", "1", "--quiet"], self.scan_s, check)
        r = mine("scan", *self.repos, "--db", db, "--jobs", "1", "--quiet")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(integrity(db), "ok")
        self.assertEqual(dump(db, CANON), self.ref_dump)
        Summary.lines.append("scan: %d kills (%d mid-run) over %.2fs runs; resumed corpus equals the reference"
                             % (KILLS, hit, self.scan_s))
        self.assertGreaterEqual(hit, KILLS // 4)  # a fair share must land while it runs

    def test_dedup_then_export(self):
        ref = os.path.join(self.t, "dedup-ref.db")
        db = os.path.join(self.t, "dedup.db")
        shutil.copy(self.ref, ref)
        shutil.copy(self.ref, db)
        r, dedup_s = timed([MINE, "dedup", "--db", ref])
        self.assertEqual(r.returncode, 0, r.stderr)
        ref_dump = dump(ref, DEDUP_CANON)
        ref_hashes = {row[:4]: row[4:10] for row in map(eval, ref_dump["kernel_dedup"])}

        def check_dedup(i):
            self.assertEqual(integrity(db), "ok", "after dedup kill %d" % i)
            for row in map(eval, dump(db, {"d": DEDUP_CANON["kernel_dedup"]})["d"]):
                self.assertEqual(row[4:10], ref_hashes[row[:4]], "after dedup kill %d" % i)

        hit = kill_runs(self, [MINE, "dedup", "--db", db], dedup_s, check_dedup)
        r = mine("dedup", "--db", db)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(integrity(db), "ok")
        self.assertEqual(dump(db, DEDUP_CANON), ref_dump)
        self.assertEqual(dump(db, CANON), self.ref_dump)
        Summary.lines.append("dedup: %d kills (%d mid-run) over %.2fs runs; resumed dedup tables equal the reference"
                             % (KILLS, hit, dedup_s))
        self.assertGreaterEqual(hit, KILLS // 4)  # a fair share must land while it runs

        out_dir = os.path.join(self.t, "export")
        os.makedirs(out_dir)
        ref_out = os.path.join(self.t, "ref.jsonl")
        argv = ["export", "--db", db, "--format", "jsonl", "--dedup", "near"]
        r, export_s = timed([MINE, *argv, "--out", ref_out])
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(ref_out, "rb") as f:
            want = f.read()
        self.assertGreater(want.count(b"\n"), 10)
        out = os.path.join(out_dir, "k.jsonl")
        before = dump(db, dict(CANON, **DEDUP_CANON))

        def check_export(i):
            if os.path.exists(out):
                with open(out, "rb") as f:
                    self.assertEqual(hashlib.sha256(f.read()).hexdigest(), hashlib.sha256(want).hexdigest(),
                                     "a partial export after kill %d" % i)

        hit = kill_runs(self, [MINE, *argv, "--out", out], export_s, check_export)
        r = mine(*argv, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(), want)
        self.assertEqual(os.listdir(out_dir), ["k.jsonl"])  # the killed runs' temporary files are gone
        self.assertEqual(dump(db, dict(CANON, **DEDUP_CANON)), before)
        Summary.lines.append("export: %d kills (%d mid-run) over %.2fs runs; output equals the reference, "
                             "no temporary files left" % (KILLS, hit, export_s))
        self.assertGreaterEqual(hit, KILLS // 4)  # a fair share must land while it runs

    def test_two_writers(self):
        third = N_REPOS // 3
        parts = [self.repos[:third], self.repos[third:2 * third], self.repos[2 * third:]]
        seq = os.path.join(self.t, "seq.db")
        for part in parts:
            self.assertEqual(mine("scan", *part, "--db", seq, "--jobs", "1", "--quiet").returncode, 0)
        want = dump(seq, CANON)
        # Three scans and a dedup start together on a corpus that does not exist yet: all create
        # and migrate it at once, then interleave their transactions.
        for attempt in range(ROUNDS):
            db = os.path.join(self.t, "both%d.db" % attempt)
            procs = [subprocess.Popen([MINE, "scan", *part, "--db", db, "--jobs", "1", "--quiet"],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                     for part in parts]
            procs.append(subprocess.Popen([MINE, "dedup", "--db", db], stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True))
            for p in procs:
                _, err = p.communicate(timeout=300)
                self.assertEqual(p.returncode, 0, err)
            self.assertEqual(integrity(db), "ok")
            got = dump(db, CANON)
            self.assertEqual(got["kernels"], want["kernels"])
            self.assertEqual(got["files"], want["files"])

        # Another process holds the write lock: a scan waits for it and then succeeds ...
        db = os.path.join(self.t, "locked.db")
        shutil.copy(self.ref, db)
        before = dump(db, CANON)
        holder = subprocess.Popen(["python3", "-c", "import sqlite3, sys, time\n"
                                   "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                                   "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True)\n"
                                   "time.sleep(float(sys.argv[2])); c.execute('ROLLBACK')", db, "1.5"],
                                  stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()
        extra = make_repos(os.path.join(self.t, "extra"), 1, offset=90)
        r, waited = timed([MINE, "scan", *extra, "--db", db, "--jobs", "1", "--quiet"])
        holder.wait()
        holder.stdout.close()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertGreaterEqual(waited, 1.0)
        self.assertEqual(integrity(db), "ok")

        # ... and when the lock outlives its patience it fails, saying why, and changes nothing.
        before = dump(db, CANON)
        holder = subprocess.Popen(["python3", "-c", "import sqlite3, sys, time\n"
                                   "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                                   "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True)\n"
                                   "time.sleep(float(sys.argv[2])); c.execute('ROLLBACK')", db, "3"],
                                  stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()
        more = make_repos(os.path.join(self.t, "more"), 1, offset=95)
        r, gave_up = timed([MINE, "scan", *more, "--db", db, "--jobs", "1", "--quiet"],
                           env=dict(os.environ, MINE_BUSY_TIMEOUT_MS="200"))
        holder.wait()
        holder.stdout.close()
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("another process is writing this corpus", r.stderr)
        self.assertLess(gave_up, 2.5)
        self.assertEqual(integrity(db), "ok")
        self.assertEqual(dump(db, CANON), before)
        Summary.lines.append("writers at once: %d x (3 scans + dedup on a new corpus) equal the sequential corpus; "
                             "a held lock "
                             "is waited for %.1fs; with MINE_BUSY_TIMEOUT_MS=200 the writer fails in %.1fs: %s"
                             % (ROUNDS, waited, gave_up, r.stderr.strip().splitlines()[-1][:200]))


class Crawl(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mine-kill-crawl-")
        t = cls.tmp.name
        served = os.path.join(t, "served")
        population = []
        files = sorted(glob.glob(os.path.join(FIXTURES, "triton", "*.py")))
        cls.port = free_port()
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
        for i in range(12):
            src = os.path.join(t, "src", "repo%d" % i)
            os.makedirs(os.path.join(src, "pkg"))
            for f in (files[i % len(files)], files[(i + 3) % len(files)], files[(i + 5) % len(files)]):
                shutil.copy(f, os.path.join(src, "pkg"))
            subprocess.run(git + ["init", "-q", "-b", "main", src], check=True)
            subprocess.run(git + ["-C", src, "add", "-A"], check=True)
            subprocess.run(git + ["-C", src, "commit", "-qm", "r"], check=True)
            subprocess.run(["git", "clone", "-q", "--bare", src, os.path.join(served, "owner", "repo%d.git" % i)],
                           check=True)
            population.append({"id": i + 1, "name": "repo%d" % i, "full_name": "owner/repo%d" % i,
                               "owner": {"login": "owner"}, "description": "triton kernels",
                               "stargazers_count": 100 + i, "fork": False, "archived": False, "size": 10,
                               "default_branch": "main", "created_at": "2020-01-%02dT00:00:00Z" % (i + 1),
                               "pushed_at": "2024-01-01T00:00:00Z", "license": {"spdx_id": "MIT"},
                               "clone_url": "git://127.0.0.1:%d/owner/repo%d.git" % (cls.port, i)})
        population.append(dict(population[0], id=99, name="gone", full_name="owner/gone",
                               clone_url="git://127.0.0.1:%d/owner/gone.git" % cls.port))
        pop = os.path.join(t, "population.json")
        with open(pop, "w") as f:
            json.dump(population, f)
        cls.procs = [start_git_daemon(served, cls.port)]
        api, cls.api = start_fake_github(pop)
        cls.procs.append(api)
        cls.t = t

    @classmethod
    def tearDownClass(cls):
        for p in cls.procs:
            # The whole session: `git daemon` runs git-daemon as a child of its own.
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            if p.stdout:
                p.stdout.close()
        cls.tmp.cleanup()

    def argv(self, name):
        return [MINE, "crawl", "--api-url", self.api, "--min-stars", "1", "--query", "triton",
                "--db", os.path.join(self.t, name + ".db"), "--cache-dir", os.path.join(self.t, name + "-cache"),
                "--jobs", "2", "--quiet"]

    def test_crawl(self):
        env = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}
        r, crawl_s = timed(self.argv("ref"), env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        ref = dump(os.path.join(self.t, "ref.db"), CANON)
        states = [eval(x)[9] for x in ref["repos"]]
        self.assertEqual(states.count("mined"), 12)
        self.assertEqual(states.count("failed"), 1)
        ref_kernels = {}
        for row in ref["kernels"]:
            ref_kernels.setdefault(eval(row)[0], []).append(row)
        db = os.path.join(self.t, "k.db")

        def check(i):
            if not os.path.exists(db):
                return
            self.assertEqual(integrity(db), "ok", "after crawl kill %d" % i)
            if not has_schema(db):
                return
            got = dump(db, CANON)
            mined = {eval(x)[0] for x in got["repos"] if eval(x)[9] == "mined"}
            by_repo = {}
            for row in got["kernels"]:
                by_repo.setdefault(eval(row)[0], []).append(row)
            for repo in mined:
                self.assertEqual(by_repo.get(repo), ref_kernels[repo], "%s after crawl kill %d" % (repo, i))

        def reset():
            for p in (db, db + "-wal", db + "-shm"):
                if os.path.exists(p):
                    os.remove(p)
            shutil.rmtree(os.path.join(self.t, "k-cache"), ignore_errors=True)

        # Kills over the first 70% of a full crawl: a resumed one is shorter.
        hit = kill_runs(self, self.argv("k"), 0.7 * crawl_s, check, env=env, reset_every=2, reset=reset)
        r = subprocess.run(self.argv("k"), capture_output=True, text=True, env=env, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(integrity(db), "ok")
        self.assertEqual(dump(db, CANON), ref)
        self.assertEqual(os.listdir(os.path.join(self.t, "k-cache", ".partial")), [])
        Summary.lines.append("crawl: %d kills (%d mid-run) over %.2fs runs; resumed corpus equals the reference"
                             % (KILLS, hit, crawl_s))
        self.assertGreaterEqual(hit, KILLS // 4)  # a fair share must land while it runs


def tearDownModule():
    print("\n" + "\n".join(Summary.lines))


if __name__ == "__main__":
    unittest.main(verbosity=2)
