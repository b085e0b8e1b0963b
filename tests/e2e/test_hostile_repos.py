"""`mine crawl` over hostile repositories, all on 127.0.0.1: the fake GitHub API lists them and a
real `git daemon` serves them. Trees that porcelain git refuses to make (entries named `..` or
`.git`, newlines and invalid UTF-8 in names, symlinks out of the tree and in loops, gitlinks) are
written with plumbing (`git hash-object --literally`, `git commit-tree`). Every repository must
end as a clean success or a recorded per-repository failure, the crawl must finish, and nothing
may be written anywhere but the clone cache and the corpus: the test snapshots the folders
around them before and after, and looks for the files the hostile trees try to plant.
"""
import hashlib
import json
import os
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
with open(os.path.join(FIXTURES, "triton", "basic_helpers.py"), "rb") as _f:
    KERNEL = _f.read()
MARKER = "pwned-%d" % os.getpid()  # the name every planted file carries
TINY_FILES = 3000
MAX_FILE_MB = 1


def git(repo, *args, data=None):
    out = subprocess.run(["git", "--git-dir", repo, *args], input=data, capture_output=True, check=True)
    return out.stdout.decode().strip()


def blob(repo, data):
    return git(repo, "hash-object", "-w", "--stdin", data=data)


def tree(repo, entries):
    """entries: [(mode, name bytes, sha)]; written raw, so no name is refused."""
    body = b"".join(b"%s %s\0%s" % (mode.encode(), name, bytes.fromhex(sha))
                    for mode, name, sha in sorted(entries, key=lambda e: e[1]))
    return git(repo, "hash-object", "-w", "-t", "tree", "--literally", "--stdin", data=body)


def commit(repo, tree_sha, branch="main"):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid")
    sha = subprocess.run(["git", "--git-dir", repo, "commit-tree", tree_sha, "-m", "hostile"], env=env,
                         capture_output=True, check=True).stdout.decode().strip()
    git(repo, "update-ref", "refs/heads/" + branch, sha)
    return sha


def bare(served, name):
    path = os.path.join(served, "owner", name + ".git")
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", path], check=True)
    return path


def snapshot(root, skip):
    """path -> (kind, size, sha256 of content or link target) for everything under root but skip."""
    out = {}
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if os.path.join(d, x) not in skip]
        for name in dirs + files:
            p = os.path.join(d, name)
            if p in skip:
                continue
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isfile(p):
                with open(p, "rb") as f:
                    out[p] = ("file", hashlib.sha256(f.read()).hexdigest())
            else:
                out[p] = ("dir",)
    return out


def planted_files(*roots):
    found = []
    for root in roots:
        for d, dirs, files in os.walk(root):
            found += [os.path.join(d, n) for n in dirs + files if MARKER in n]
    return found


class HostileRepos(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mine-hostile-")
        t = cls.tmp.name
        served = os.path.join(t, "served")
        cls.jail = os.path.join(t, "jail")  # the crawl's cwd, HOME and TMPDIR
        cls.cache = os.path.join(t, "cache")
        cls.db = os.path.join(t, "corpus.db")
        cls.outside = os.path.join(t, "outside")  # symlinks point here
        for d in (served, cls.jail, cls.outside):
            os.makedirs(d)
        with open(os.path.join(cls.outside, "secret.txt"), "w") as f:
            f.write("not for the corpus\n")
        cls.expect = {}  # repo -> "mined" | "failed" | "either"

        def kernel_entry(repo, name=b"kernels.py"):
            return ("100644", name, blob(repo, KERNEL))

        # Symlinks out of the tree (relative and absolute), to themselves and to a parent.
        r = bare(served, "symlinks")
        sub = tree(r, [("120000", b"up", blob(r, b"../..")), kernel_entry(r, b"inner.py")])
        commit(r, tree(r, [kernel_entry(r),
                           ("120000", b"escape.py", blob(r, b"../../../../../../outside/" + MARKER.encode())),
                           ("120000", b"abs.py", blob(r, cls.outside.encode() + b"/secret.txt")),
                           ("120000", b"etc", blob(r, b"/etc")),
                           ("120000", b"loop.py", blob(r, b"loop.py")),
                           ("120000", b"parent", blob(r, b"..")),
                           ("040000", b"pkg", sub)]))
        cls.expect["symlinks"] = "mined"

        # Entries named `..` and `.git`, and a name with a slash in it.
        r = bare(served, "dotdot")
        evil = tree(r, [("100644", (MARKER + ".py").encode(), blob(r, KERNEL))])
        hook = tree(r, [("100755", b"post-checkout", blob(r, b"#!/bin/sh\ntouch /tmp/" + MARKER.encode() + b"\n"))])
        commit(r, tree(r, [kernel_entry(r), ("040000", b"..", evil), ("040000", b".git", tree(r, [("040000", b"hooks", hook)])),
                           ("100644", b"../../" + MARKER.encode() + b".py", blob(r, KERNEL))]))
        cls.expect["dotdot"] = "mined"

        # Newlines, tabs, invalid UTF-8 and option-like names.
        r = bare(served, "names")
        commit(r, tree(r, [kernel_entry(r, b"new\nline.py"), kernel_entry(r, b"bad\xff\xfe.py"),
                           kernel_entry(r, b"tab\there.py"), kernel_entry(r, b"--rf.py"), kernel_entry(r)]))
        cls.expect["names"] = "mined"

        # A submodule pointing at another repository on the same server and at a local path.
        r = bare(served, "submodule")
        gitmodules = (b'[submodule "evil"]\n\tpath = evil\n\turl = ../symlinks.git\n'
                      b'[submodule "local"]\n\tpath = local\n\turl = file://' + cls.outside.encode() + b"\n")
        commit(r, tree(r, [kernel_entry(r), ("100644", b".gitmodules", blob(r, gitmodules)),
                           ("160000", b"evil", "1" * 40), ("160000", b"local", "2" * 40)]))
        cls.expect["submodule"] = "mined"

        # A blob over --max-file-size (it would pass the prefilter: it mentions triton).
        r = bare(served, "hugeblob")
        big = b"import triton\n" + b"x = 1\n" * ((MAX_FILE_MB << 20) // 6 + 1000)
        commit(r, tree(r, [kernel_entry(r), ("100644", b"big.py", blob(r, big))]))
        cls.expect["hugeblob"] = "mined"

        # Thousands of tiny files, through fast-import (one process for all of them).
        r = bare(served, "tiny")
        stream = [b"commit refs/heads/main\ncommitter t <t@example.invalid> 0 +0000\ndata 4\ntiny\n"]
        for i in range(TINY_FILES):
            data = b"X%d = %d\n" % (i, i)
            stream.append(b"M 100644 inline d%02d/f%04d.py\ndata %d\n%s\n" % (i % 30, i, len(data), data))
        stream.append(b"M 100644 inline kernels.py\ndata %d\n%s\n" % (len(KERNEL), KERNEL))
        subprocess.run(["git", "--git-dir", r, "fast-import", "--quiet"], input=b"".join(stream), check=True)
        cls.expect["tiny"] = "mined"

        # A corrupt pack: every object packed, then bytes in the middle overwritten.
        r = bare(served, "corrupt")
        commit(r, tree(r, [kernel_entry(r), ("100644", b"more.py", blob(r, os.urandom(4096).hex().encode()))]))
        git(r, "repack", "-a", "-d", "-q")
        git(r, "prune-packed")
        pack = [p for p in os.listdir(os.path.join(r, "objects", "pack")) if p.endswith(".pack")][0]
        pack = os.path.join(r, "objects", "pack", pack)
        os.chmod(pack, 0o644)
        size = os.path.getsize(pack)
        with open(pack, "r+b") as f:
            f.seek(size // 3)
            f.write(b"\xde\xad\xbe\xef" * ((size // 3) // 4))
        cls.expect["corrupt"] = "failed"

        # HEAD naming a ref outside refs/.
        r = bare(served, "evilhead")
        commit(r, tree(r, [kernel_entry(r)]))
        with open(os.path.join(r, "HEAD"), "w") as f:
            f.write("ref: refs/heads/../../../../%s\n" % MARKER)
        cls.expect["evilhead"] = "either"

        # Listed by the API, gone from the server by the time it is cloned.
        cls.expect["gone"] = "failed"

        # Mined by the first crawl, deleted before the second (which asks the remote again).
        r = bare(served, "vanish")
        commit(r, tree(r, [kernel_entry(r)]))
        cls.expect["vanish"] = "failed"

        # The same symlinks in a plain folder (a checked-out tree), for `mine scan`.
        cls.folder = os.path.join(t, "folder")
        os.makedirs(os.path.join(cls.folder, "pkg"))
        with open(os.path.join(cls.folder, "pkg", "kernels.py"), "wb") as f:
            f.write(KERNEL)
        os.symlink(".", os.path.join(cls.folder, "pkg", "loop"))
        os.symlink("../..", os.path.join(cls.folder, "pkg", "up"))
        os.symlink(cls.outside, os.path.join(cls.folder, "outside"))
        os.symlink(os.path.join(cls.outside, "secret.txt"), os.path.join(cls.folder, "secret.py"))
        os.symlink("/etc", os.path.join(cls.folder, "etc"))

        cls.port = free_port()
        population = []
        for i, name in enumerate(sorted(cls.expect)):
            population.append(repo_json(i, "owner/" + name, "git://127.0.0.1:%d/owner/%s.git" % (cls.port, name)))
        # Names the cache path is built from: they must never become paths.
        population.append(repo_json(90, "owner/..", "git://127.0.0.1:%d/owner/symlinks.git" % cls.port))
        population.append(repo_json(91, "../" + MARKER, "git://127.0.0.1:%d/owner/symlinks.git" % cls.port))
        cls.expect["owner/.."] = "failed"
        cls.expect["../" + MARKER] = "failed"
        pop_file = os.path.join(t, "population.json")
        with open(pop_file, "w") as f:
            json.dump(population, f)

        cls.procs = [start_git_daemon(served, cls.port)]
        api, cls.api = start_fake_github(pop_file)
        cls.procs.append(api)

        skip = {cls.cache, cls.db, cls.db + "-wal", cls.db + "-shm"}
        skip.add(os.path.join(served, "owner", "vanish.git"))
        cls.before = snapshot(t, skip)
        cls.runs = [cls.crawl()]
        cls.first_states = dict(cls.rows_of(cls.db, "SELECT name, crawl_state FROM repos"))
        subprocess.run(["rm", "-rf", os.path.join(served, "owner", "vanish.git")], check=True)
        cls.runs.append(cls.crawl("--always-ask-remote"))  # over the cache, asking every remote
        cls.after = snapshot(t, skip)
        # `mine scan` of the same bare repositories, straight from their object databases.
        cls.scan_db = os.path.join(t, "scan.db")
        cls.scanned = sorted(os.path.join(served, "owner", n) for n in os.listdir(os.path.join(served, "owner")))
        cls.scan = subprocess.run([MINE, "scan", *cls.scanned, cls.folder, "--db", cls.scan_db, "--max-file-size",
                                   str(MAX_FILE_MB), "--quiet"], cwd=cls.jail, capture_output=True, text=True,
                                  timeout=300)
        cls.after_scan = snapshot(t, skip | {cls.scan_db, cls.scan_db + "-wal", cls.scan_db + "-shm"})
        cls.out = os.path.join(cls.jail, "export.jsonl")
        cls.export = subprocess.run([MINE, "export", "--db", cls.db, "--out", cls.out, "--format", "jsonl",
                                     "--dedup", "none"], cwd=cls.jail, capture_output=True, text=True, timeout=120)
        cls.emit = subprocess.run([MINE, "check", "--db", cls.db, "--emit", os.path.join(cls.jail, "bundle")],
                                  cwd=cls.jail, capture_output=True, text=True, timeout=120)

    @staticmethod
    def rows_of(db, sql, *args):
        with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as c:
            return c.execute(sql, args).fetchall()

    @classmethod
    def crawl(cls, *extra):
        env = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}
        env.update(HOME=cls.jail, TMPDIR=cls.jail, XDG_CACHE_HOME=cls.jail)
        t0 = time.monotonic()
        p = subprocess.run([MINE, "crawl", "--api-url", cls.api, "--min-stars", "1", "--query", "hostile",
                            "--db", cls.db, "--cache-dir", cls.cache, "--jobs", "2", "--max-file-size",
                            str(MAX_FILE_MB), "--quiet", *extra], cwd=cls.jail, env=env, capture_output=True, text=True,
                           timeout=300)
        p.seconds = time.monotonic() - t0
        return p

    @classmethod
    def tearDownClass(cls):
        for p in cls.procs:
            # The whole session: `git daemon` runs git-daemon as a child of its own.
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            if p.stdout:
                p.stdout.close()
        cls.tmp.cleanup()

    def rows(self, sql, *args):
        with sqlite3.connect("file:%s?mode=ro" % self.db, uri=True) as c:
            c.text_factory = lambda b: b.decode("utf-8", "replace")
            return c.execute(sql, args).fetchall()

    def test_crawl_finishes_and_every_repo_is_mined_or_failed_with_a_reason(self):
        for run in self.runs:
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("crawl done", run.stdout)
        states = dict((name, (state, err)) for name, state, err in
                      self.rows("SELECT name, crawl_state, crawl_error FROM repos"))
        for name, want in self.expect.items():
            full = name if "/" in name else "owner/" + name
            with self.subTest(repo=full):
                self.assertIn(full, states)
                state, err = states[full]
                self.assertIn(state, ("mined", "failed"))
                if want != "either":
                    self.assertEqual(state, want, err)
                if state == "failed":
                    self.assertTrue(err, "a failure without a recorded reason")
        self.assertEqual(self.first_states["owner/vanish"], "mined")
        self.assertIn("vanish", states["owner/vanish"][1])
        print("\nhostile repos: " + "; ".join("%s=%s" % (n, s[0]) for n, s in sorted(states.items())) +
              "; crawl %.1fs, re-crawl %.1fs" % (self.runs[0].seconds, self.runs[1].seconds))

    def test_nothing_written_outside_the_cache_and_corpus(self):
        added = sorted(set(self.after) - set(self.before))
        changed = sorted(p for p in self.before if self.after.get(p) != self.before[p])
        self.assertEqual(added, [])
        self.assertEqual(changed, [])
        self.assertEqual(self.after_scan, self.after)
        self.assertEqual(planted_files(self.tmp.name, "/tmp", self.cache), [])
        self.assertFalse(os.path.exists("/" + MARKER))

    def test_cache_holds_only_bare_repositories_without_links(self):
        entries = sorted(os.listdir(self.cache))
        self.assertEqual(entries, [".lock", ".partial", "owner"])
        self.assertEqual(os.listdir(os.path.join(self.cache, ".partial")), [])
        repos = sorted(os.listdir(os.path.join(self.cache, "owner")))
        self.assertTrue(set(repos) <= {n + ".git" for n in self.expect}, repos)
        self.assertIn("symlinks.git", repos)
        for d, dirs, files in os.walk(self.cache):
            for n in dirs + files:
                self.assertFalse(os.path.islink(os.path.join(d, n)), os.path.join(d, n))
        for r in repos:
            p = os.path.join(self.cache, "owner", r)
            self.assertFalse(os.path.exists(os.path.join(p, "modules")), "a submodule was fetched into " + r)
            self.assertEqual(subprocess.run(["git", "--git-dir", p, "rev-parse", "--is-bare-repository"],
                                            capture_output=True, text=True).stdout.strip(), "true")

    def test_symlinks_and_gitlinks_are_not_followed(self):
        paths = [p for (p,) in self.rows("SELECT path FROM files WHERE repo_id IN "
                                         "(SELECT id FROM repos WHERE name IN ('owner/symlinks', 'owner/submodule'))")]
        self.assertIn("kernels.py", paths)
        self.assertIn("pkg/inner.py", paths)
        for p in paths:
            self.assertNotIn(p, ("escape.py", "abs.py", "loop.py", "evil", "local"))
            self.assertFalse(p.startswith(("etc/", "parent/", "pkg/up/")), p)
        leaked = self.rows("SELECT count(*) FROM kernels WHERE source LIKE '%not for the corpus%' "
                           "OR standalone LIKE '%not for the corpus%'")
        self.assertEqual(leaked, [(0,)])

    def test_odd_names_and_big_files_are_recorded(self):
        n = len(self.rows("SELECT 1 FROM kernels WHERE repo='owner/symlinks' AND path='kernels.py'"))
        self.assertGreater(n, 0)
        names = self.rows("SELECT DISTINCT path FROM kernels WHERE repo='owner/names'")
        self.assertEqual(len(names), 5, names)
        self.assertEqual(self.rows("SELECT count(*) FROM kernels WHERE repo='owner/names'"), [(5 * n,)])
        too_large = self.rows("SELECT path, kind FROM scan_errors WHERE repo='owner/hugeblob' AND path='big.py'")
        self.assertIn(("big.py", "too_large"), too_large)
        self.assertEqual(self.rows("SELECT count(*) FROM kernels WHERE repo='owner/hugeblob'"), [(n,)])
        self.assertEqual(self.rows("SELECT count(*) FROM kernels WHERE repo='owner/tiny'"), [(n,)])
        self.assertEqual(self.rows("SELECT crawl_error LIKE '%not of the form%' OR crawl_error LIKE '%characters%' "
                                   "FROM repos WHERE name IN ('owner/..', ?)", "../" + MARKER), [(1,), (1,)])

    def test_unsafe_names_are_recorded_never_read(self):
        for (path,) in self.rows("SELECT path FROM kernels UNION SELECT path FROM kernel_deps WHERE path IS NOT NULL"):
            parts = path.split("/")
            self.assertFalse(path.startswith("/") or ".." in parts or "." in parts or ".git" in parts, path)
        refused = self.rows("SELECT path FROM scan_errors WHERE repo='owner/dotdot' AND message LIKE 'unsafe path%'")
        self.assertEqual(sorted(p for (p,) in refused), sorted([".git", "..", "../../%s.py" % MARKER]))
        self.assertEqual(self.rows("SELECT DISTINCT path FROM kernels WHERE repo='owner/dotdot'"), [("kernels.py",)])

    def test_scan_of_the_same_repositories(self):
        # A HEAD naming no valid ref stops only its own repository: the scan goes on, says which
        # failed and exits 1; the corrupt pack's unreadable blob is a recorded per-file error.
        self.assertEqual(self.scan.returncode, 1, self.scan.stderr)
        self.assertIn("evilhead.git", self.scan.stderr)
        self.assertEqual(self.rows_of(self.scan_db, "SELECT path, kind FROM scan_errors WHERE repo LIKE "
                                                    "'%corrupt.git' AND message LIKE '%cannot read blob%'"),
                         [("more.py", "unreadable")])
        names = {n for (n,) in self.rows_of(self.scan_db, "SELECT name FROM repos")}
        for n in ("symlinks", "dotdot", "names", "submodule", "hugeblob", "tiny"):
            self.assertTrue(any(x.endswith(n + ".git") for x in names), (n, names))
        self.assertEqual(self.rows_of(self.scan_db, "SELECT count(*) FROM kernels WHERE path LIKE '%..%' "
                                                    "OR path LIKE '.git/%' OR path LIKE '/%'"), [(0,)])
        self.assertGreater(self.rows_of(self.scan_db, "SELECT count(*) FROM scan_errors WHERE message LIKE "
                                                      "'unsafe path%'")[0][0], 2)
        # The folder: only its one real file, however the links loop or leave.
        self.assertEqual(self.rows_of(self.scan_db, "SELECT f.path FROM files f JOIN repos r ON r.id = f.repo_id "
                                                    "WHERE r.name = ?", os.path.realpath(self.folder)), [("pkg/kernels.py",)])
        self.assertEqual(self.rows_of(self.scan_db, "SELECT count(*) FROM kernels WHERE source LIKE "
                                                    "'%not for the corpus%'"), [(0,)])

    def test_export_and_bundle_stay_where_they_are_told(self):
        self.assertEqual(self.export.returncode, 0, self.export.stderr)
        self.assertEqual(self.emit.returncode, 0, self.emit.stderr)
        with open(self.out) as f:
            rows = [json.loads(line) for line in f]
        self.assertTrue(any("\n" in r["path"] for r in rows))
        jail = sorted(os.listdir(self.jail))
        self.assertEqual([x for x in jail if x not in ("export.jsonl", "bundle")], [])
        for name in os.listdir(os.path.join(self.jail, "bundle")):
            self.assertRegex(name, r"^(k\d+\.py|bundle\.json)$")
        self.assertEqual(planted_files(self.tmp.name, "/tmp"), [])


def repo_json(i, full_name, clone_url):
    owner, _, name = full_name.partition("/")
    return {"id": 1000 + i, "name": name, "full_name": full_name, "owner": {"login": owner},
            "description": "hostile triton", "stargazers_count": 10 + i, "fork": False, "archived": False,
            "size": 10, "default_branch": "main", "created_at": "2021-01-01T00:00:00Z",
            "pushed_at": "2024-01-01T00:00:00Z", "license": {"spdx_id": "MIT"}, "clone_url": clone_url}


if __name__ == "__main__":
    unittest.main(verbosity=2)
