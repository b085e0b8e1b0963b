"""The GitHub token never leaves `mine crawl`'s Authorization header: a planted token is looked
for in the corpus file (and its WAL), the clone cache, stdout and stderr of crawl, dedup, export,
stats and report, the exported files, /proc/<pid>/cmdline and `ps` while the crawl runs, and the
output of a crawl that aborts. The servers (fake GitHub API, `git http-backend`) run on
127.0.0.1 and are made to misbehave: 401s that quote the credentials they were sent, answers that
echo the Authorization header, 502s, secondary-limit 403s, and clone URLs with the token in them.
A token on the command line (`--token VALUE`, `--token=VALUE`, or an abbreviation the parser would
take for --token-file) is refused without being repeated.
"""
import glob
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from loopback_servers import start_fake_github, start_git_http

MINE = os.environ["MINE"]
FIXTURES = os.environ["MINE_FIXTURES_DIR"]
TOKEN = "ghp_PLANTEDtoken%dXYZ" % os.getpid()
WRONG = "ghp_WRONGtoken%dABC" % os.getpid()


def repo_json(i, name, clone_url):
    return {"id": 500 + i, "name": name, "full_name": "owner/" + name, "owner": {"login": "owner"},
            "description": "secret triton", "stargazers_count": 50 + i, "fork": False, "archived": False,
            "size": 10, "default_branch": "main", "created_at": "2021-01-0%dT00:00:00Z" % (i + 1),
            "pushed_at": "2024-01-01T00:00:00Z", "license": {"spdx_id": "MIT"}, "clone_url": clone_url}


class Recorder(BaseHTTPRequestHandler):
    """Another server a redirect leads to: keeps every request's headers, answers a repository."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.seen.append(dict(self.headers.items()))
        body = json.dumps(self.server.answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def files_under(*roots):
    for root in roots:
        if os.path.isfile(root):
            yield root
        for d, _, names in os.walk(root):
            for n in names:
                yield os.path.join(d, n)


class Secrets(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mine-secrets-")
        t = cls.tmp.name
        served = os.path.join(t, "served")
        cls.db = os.path.join(t, "corpus.db")
        cls.cache = os.path.join(t, "cache")
        cls.out = os.path.join(t, "out")
        os.makedirs(cls.out)
        src = os.path.join(t, "src")
        os.makedirs(src)
        for f in ("basic_helpers.py", "autotune_stack.py"):
            with open(os.path.join(FIXTURES, "triton", f)) as a, open(os.path.join(src, f), "w") as b:
                b.write(a.read())
        git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
        subprocess.run(git + ["init", "-q", "-b", "main", src], check=True)
        subprocess.run(git + ["-C", src, "add", "-A"], check=True)
        subprocess.run(git + ["-C", src, "commit", "-qm", "k"], check=True)
        subprocess.run(["git", "clone", "-q", "--bare", src, os.path.join(served, "owner", "good.git")], check=True)

        cls.procs = []
        http, http_port = start_git_http(served)
        cls.procs.append(http)
        base = "http://127.0.0.1:%d/owner/" % http_port
        with_token = "http://x-access-token:%s@127.0.0.1:%d/owner/" % (TOKEN, http_port)
        population = [repo_json(0, "good", base + "good.git"),
                      repo_json(1, "creds-ok", with_token + "good.git"),       # clones; URL stored without it
                      repo_json(2, "creds-gone", with_token + "missing.git"),  # fails; the error names the URL
                      repo_json(3, "creds-refused", "http://%s@127.0.0.1:1/owner/x.git" % TOKEN)]
        pop = os.path.join(t, "population.json")
        with open(pop, "w") as f:
            json.dump(population, f)
        api, cls.api = start_fake_github(pop, "--echo-auth", "--echo-auth-in-body", "--fail-502-every", "4",
                                         "--secondary-every", "6", "--retry-after", "1",
                                         env=dict(os.environ, FAKE_GITHUB_REQUIRE_TOKEN=TOKEN))
        cls.procs.append(api)

        cls.outputs = {}  # what each command printed, stdout and stderr together
        env = {k: v for k, v in os.environ.items() if k != "GITHUB_TOKEN"}
        cls.env = env

        # The crawl, sampled while it runs: its command line, environment and `ps` listing.
        crawl = [MINE, "crawl", "--api-url", cls.api, "--min-stars", "1", "--query", "secret", "--db", cls.db,
                 "--cache-dir", cls.cache, "--jobs", "2"]
        p = subprocess.Popen(crawl, env=dict(env, GITHUB_TOKEN=TOKEN), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
        cls.samples = []
        while p.poll() is None:
            try:
                with open("/proc/%d/cmdline" % p.pid, "rb") as f:
                    cls.samples.append(f.read().decode("utf-8", "replace"))
            except OSError:
                pass
            cls.samples.append(subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout)
            time.sleep(0.02)
        cls.outputs["crawl"] = p.stdout.read()
        p.stdout.close()
        cls.crawl_rc = p.returncode

        # Every later command, on the corpus the crawl wrote.
        def run(name, argv, **kw):
            r = subprocess.run(argv, env=kw.get("env", env), capture_output=True, text=True, timeout=300)
            cls.outputs[name] = r.stdout + r.stderr
            return r

        run("dedup", [MINE, "dedup", "--db", cls.db])
        run("export-jsonl", [MINE, "export", "--db", cls.db, "--out", os.path.join(cls.out, "k.jsonl"),
                             "--format", "jsonl"])
        run("export-chat", [MINE, "export", "--db", cls.db, "--out", os.path.join(cls.out, "k.json"),
                            "--format", "chat"])
        run("stats", [MINE, "stats", "--db", cls.db, "--format", "json"])
        run("report", [MINE, "report", "--db", cls.db, "--out", os.path.join(cls.out, "report.html")])
        run("query", [MINE, "query", "SELECT * FROM repos", "--db", cls.db, "--format", "json"])

        # A wrong token from --token-file, against a server that quotes it back in its 401.
        token_file = os.path.join(t, "token")
        with open(token_file, "w") as f:
            f.write(WRONG + "\n")
        cls.wrong = run("wrong-token", [MINE, "crawl", "--api-url", cls.api, "--min-stars", "1", "--query", "secret",
                                        "--db", os.path.join(t, "wrong.db"), "--cache-dir", os.path.join(t, "wc"),
                                        "--token-file", token_file])
        cls.wrong_db = os.path.join(t, "wrong.db")

        # The token on the command line, in every spelling.
        cls.refused = {}
        for spelling in (["--token", WRONG], ["--token=" + WRONG], ["--tok", WRONG], ["--token-f=" + WRONG]):
            cls.refused[" ".join(spelling)] = run("argv " + spelling[0], [MINE, "crawl", *spelling, "--api-url",
                                                                         cls.api, "--db", os.path.join(t, "argv.db"),
                                                                         "--cache-dir", os.path.join(t, "ac")])
        # A renamed repository: the API answers 301 to another server (another port), which must
        # never see the token that the API itself was sent.
        recorder = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
        recorder.seen, recorder.answer = [], population[0]
        threading.Thread(target=recorder.serve_forever, daemon=True).start()
        cls.recorder = recorder
        redirecting, redirect_api = start_fake_github(pop, "--redirect-repos-to",
                                                      "http://127.0.0.1:%d" % recorder.server_address[1],
                                                      env=dict(os.environ, FAKE_GITHUB_REQUIRE_TOKEN=TOKEN))
        cls.procs.append(redirecting)
        repos_file = os.path.join(t, "repos.txt")
        with open(repos_file, "w") as f:
            f.write("owner/renamed\n")
        cls.redirected = run("redirect", [MINE, "crawl", "--api-url", redirect_api,
                                          "--repos-file", repos_file, "--db", os.path.join(t, "redirect.db"),
                                          "--cache-dir", os.path.join(t, "rc")], env=dict(env, GITHUB_TOKEN=TOKEN))
        recorder.shutdown()
        recorder.server_close()

        # A crawl that aborts (SIGABRT) part-way: whatever it printed.
        p = subprocess.Popen(crawl[:-4] + ["--db", os.path.join(t, "abort.db"), "--cache-dir", os.path.join(t, "abc")],
                             env=dict(env, GITHUB_TOKEN=TOKEN), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        time.sleep(0.5)
        p.send_signal(signal.SIGABRT)
        cls.outputs["abort"] = p.communicate(timeout=60)[0]
        p.stdout.close()
        cls.abort_rc = p.returncode

    @classmethod
    def tearDownClass(cls):
        for p in cls.procs:
            # The whole session: `git daemon` runs git-daemon as a child of its own.
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            p.stdout.close()
        cls.tmp.cleanup()

    def assert_clean(self, text, where):
        for secret in (TOKEN, WRONG):
            self.assertNotIn(secret, text, "token found in " + where)

    def test_the_crawl_worked_through_the_error_paths(self):
        self.assertEqual(self.crawl_rc, 0, self.outputs["crawl"])
        self.assertIn("2 failed", self.outputs["crawl"])
        self.assertIn("owner/creds-gone", self.outputs["crawl"])
        self.assertIn("127.0.0.1", self.outputs["crawl"])  # the failing URL is named, without credentials
        rows = json.loads(self.outputs["query"])
        states = {r["name"]: r["crawl_state"] for r in rows}
        self.assertEqual(states["owner/good"], "mined")
        self.assertEqual(states["owner/creds-ok"], "mined")
        self.assertEqual(states["owner/creds-gone"], "failed")
        self.assertEqual(states["owner/creds-refused"], "failed")
        self.assertNotEqual(self.wrong.returncode, 0)
        self.assertIn("Bad credentials", self.outputs["wrong-token"])

    def test_no_output_holds_the_token(self):
        for name, text in self.outputs.items():
            with self.subTest(command=name):
                self.assert_clean(text, name)

    def test_no_file_holds_the_token(self):
        t = self.tmp.name
        checked = 0
        for path in files_under(self.db + "-wal", self.db, self.wrong_db, self.cache, self.out):
            if not os.path.exists(path):
                continue
            with open(path, "rb") as f:
                data = f.read()
            checked += 1
            for secret in (TOKEN, WRONG):
                self.assertNotIn(secret.encode(), data, path)
        self.assertGreater(checked, 10)
        self.assertTrue(glob.glob(os.path.join(self.out, "*.jsonl")))
        self.assertTrue(os.path.exists(os.path.join(t, "corpus.db")))

    def test_command_line_and_ps_never_show_it(self):
        # At least one round (its /proc cmdline and a `ps` listing) while the crawl ran.
        self.assertGreaterEqual(len(self.samples), 2, "the crawl ended before it could be sampled")
        self.assertTrue(any("crawl" in s for s in self.samples))
        for s in self.samples:
            self.assert_clean(s, "cmdline / ps")

    def test_token_arguments_are_refused_without_echo(self):
        for spelling, r in self.refused.items():
            with self.subTest(spelling=spelling):
                self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
                self.assertIn("GITHUB_TOKEN", r.stderr)
                self.assert_clean(r.stdout + r.stderr, spelling)

    def test_a_redirect_to_another_server_does_not_carry_the_token(self):
        self.assertEqual(self.redirected.returncode, 0, self.outputs["redirect"])
        self.assertIn("1 mined", self.outputs["redirect"])  # the answer behind the redirect was used
        self.assertGreater(len(self.recorder.seen), 0)
        for headers in self.recorder.seen:
            self.assert_clean(json.dumps(headers), "headers sent after a redirect")
            self.assertNotIn("authorization", {k.lower() for k in headers})

    def test_an_aborted_crawl_says_nothing_of_it(self):
        self.assertNotEqual(self.abort_rc, 0)
        self.assert_clean(self.outputs["abort"], "abort")


if __name__ == "__main__":
    unittest.main(verbosity=2)
