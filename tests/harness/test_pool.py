"""The pool's isolation promises, kept with real child processes and the Triton stand-in:
a crash, hang, exit, stdout noise, memory hog or os.system in one kernel never stops the
batch nor leaks into another kernel's result."""
import os
import tempfile
import time
import unittest

from util import run_standin, write_bundle

HDR = "import triton\nimport triton.language as tl\n"
SIG = {"signature": {"x_ptr": "*fp32"}}


def kern(body, params="x_ptr, BLOCK: tl.constexpr", pre=""):
    return HDR + pre + "\n@triton.jit\ndef k(%s):\n%s\n" % (
        params, "\n".join("    " + line for line in body.strip().splitlines()))


OK = kern("pass")
KERNELS = [
    (1, "k", OK, SIG),
    (2, "k", "def k(:\n", SIG),                                          # syntax
    (3, "nope", OK, SIG),                                                # missing entry
    (4, "k", kern("undefined_thing(x_ptr)"), SIG),                       # NameError in body
    (5, "k", kern("import ctypes\nctypes.string_at(0)"), SIG),           # segfault
    (6, "k", kern("while True:\n    pass"), SIG),                        # hang
    (7, "k", kern("pass", pre="import os\nos.system('echo hi > pwned.txt')\n"), SIG),
    (8, "k", kern("pass", pre="import sys\nsys.exit(3)\n"), SIG),        # exit at import
    (9, "k", kern("import os\nos._exit(0)"), SIG),                       # silent death
    (10, "k", kern("pass", pre="print('{\"id\": 999, \"status\": \"ok\"}')\n"), SIG),
    (11, "k", kern("x = bytearray(3 << 30)"), SIG),                      # RLIMIT_DATA
    (12, "k", kern("import subprocess, time\n"
                   "p = subprocess.Popen(['sleep', '300'])\n"
                   "open('child.pid', 'w').write(str(p.pid))\n"
                   "time.sleep(300)"), SIG),                             # hang with a child
    (13, "k", kern("assert BLOCK == 64"), dict(SIG, constexprs={"BLOCK": 64})),
    (14, "k", kern("pass", params="x_ptr, n"), SIG),                     # untyped parameter
    (15, "k", OK, SIG),
]

EXPECT = {  # id: (status, stage_reached, error_class)
    1: ("ok", "compile", None),
    2: ("fail", "import", "syntax"),
    3: ("fail", "import", "missing_name"),
    4: ("fail", "compile", "missing_name"),
    5: ("fail", "compile", "crash"),
    6: ("fail", "compile", "timeout"),
    7: ("ok", "compile", None),
    8: ("fail", "import", "other"),
    9: ("fail", "compile", "crash"),
    10: ("ok", "compile", None),
    11: ("fail", "compile", "resource_limit"),
    12: ("fail", "compile", "timeout"),
    13: ("ok", "compile", None),
    14: ("fail", "compile", "type_error"),
    15: ("ok", "compile", None),
}


class Isolation(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.bundle = os.path.join(cls.tmp.name, "bundle")
        cls.work = os.path.join(cls.tmp.name, "work")
        os.makedirs(cls.bundle)
        write_bundle(cls.bundle, KERNELS)
        cls.proc, cls.rows = run_standin(
            cls.bundle, os.path.join(cls.tmp.name, "out.jsonl"), "--stage", "compile",
            "--jobs", "3", "--timeout", "4", "--mem-limit-mb", "1024",
            "--work-dir", cls.work)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_every_kernel_has_exactly_one_row(self):
        self.assertEqual(sorted(self.rows), sorted(EXPECT), self.proc.stderr[-3000:])
        self.assertEqual(self.proc.returncode, 1)  # some kernels failed, the batch finished

    def test_statuses_stages_and_classes(self):
        for kid, (status, stage, cls) in EXPECT.items():
            row = self.rows.get(kid)
            with self.subTest(kid=kid):
                self.assertIsNotNone(row)
                got = (row["status"], row["stage_reached"], row["error_class"])
                self.assertEqual(got, (status, stage, cls), row.get("message"))

    def test_os_system_writes_into_scratch_not_bundle(self):
        self.assertFalse(os.path.exists(os.path.join(self.bundle, "pwned.txt")))
        self.assertFalse(os.path.exists(os.path.join(self.bundle, "__pycache__")))

    def test_timeout_kills_the_whole_process_group(self):
        with open(os.path.join(self.work, "scratch", "k12", "child.pid")) as f:
            pid = int(f.read())
        deadline = time.time() + 5
        while time.time() < deadline:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except OSError:
                return
            if state == "Z":
                return
            time.sleep(0.1)
        self.fail("the kernel's child process %d outlived the timeout" % pid)

    def test_messages_and_worker_recycling(self):
        self.assertIn("SIGSEGV", self.rows[5]["message"])
        self.assertIn("no result after", self.rows[6]["message"])
        self.assertIn("MemoryError", self.rows[11]["message"])
        self.assertIn("SystemExit", self.rows[8]["message"])
        self.assertIn("'n'", self.rows[14]["message"])
        # A kernel's stdout is not the protocol: the fake row it printed was ignored.
        self.assertNotIn(999, self.rows)
        self.assertEqual(self.rows[13]["constexprs"], {"BLOCK": 64})
        self.assertEqual(self.rows[1]["triton_version"], "0.0+standin")
        # Warm workers serve several kernels: fewer distinct pids than kernels.
        pids = {r["worker_pid"] for r in self.rows.values() if r["worker_pid"]}
        self.assertLess(len(pids), len(self.rows))


class Watchdog(unittest.TestCase):
    def test_rss_watchdog_without_rlimit(self):
        hog = kern("import time\nchunks = []\nfor _ in range(64):\n"
                   "    chunks.append(bytearray(32 << 20))\n    time.sleep(0.02)\n"
                   "time.sleep(30)")
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", hog, SIG), (2, "k", OK, SIG)])
            proc, rows = run_standin(tmp, os.path.join(tmp, "out.jsonl"), "--stage", "compile",
                                     "--jobs", "1", "--timeout", "20", "--mem-limit-mb", "600",
                                     "--no-rlimit-data")
        self.assertEqual(rows[1]["error_class"], "resource_limit", rows[1]["message"])
        self.assertIn("host memory limit", rows[1]["message"])
        self.assertEqual(rows[2]["status"], "ok")


class Stages(unittest.TestCase):
    def test_import_only_and_load_failure_stage(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", OK, SIG), (2, "k", OK, SIG)])
            _, imp = run_standin(tmp, os.path.join(tmp, "i.jsonl"), "--stage", "import")
            # The stand-in cannot load a binary: the failure must be pinned on "load", and the
            # worker replaced, since a real load failure can leave the CUDA context broken.
            _, load = run_standin(tmp, os.path.join(tmp, "l.jsonl"), "--stage", "load",
                                  "--devices", "0", "--jobs", "1")
        self.assertEqual([(r["status"], r["stage_reached"]) for r in imp.values()],
                         [("ok", "import")] * 2)
        self.assertEqual([(r["status"], r["stage_reached"]) for r in load.values()],
                         [("fail", "load")] * 2)
        self.assertIn("cannot load", load[1]["message"])
        self.assertNotEqual(load[1]["worker_pid"], load[2]["worker_pid"])
        self.assertEqual(load[1]["device"], 0)


class Resume(unittest.TestCase):
    def test_resume_checks_only_missing_kernels(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", OK, SIG), (2, "k", OK, SIG), (3, "k", OK, SIG)])
            out = os.path.join(tmp, "out.jsonl")
            with open(out, "w") as f:
                f.write('{"id": 2, "status": "ok", "marker": true}\n{"id": 3, "sta')
            proc, rows = run_standin(tmp, out, "--stage", "compile", "--resume")
            with open(out) as f:
                lines = f.read().splitlines()
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(len(lines), 3)
        self.assertTrue(rows[2].get("marker"))  # kept, not re-run
        self.assertEqual(rows[1]["status"], "ok")
        self.assertEqual(rows[3]["status"], "ok")  # its cut-off row was checked again


class BadInvocations(unittest.TestCase):
    def test_bad_bundle_exits_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc, rows = run_standin(tmp, os.path.join(tmp, "out.jsonl"))
        self.assertEqual(proc.returncode, 2)
        self.assertIn("cannot read", proc.stderr)

    def test_missing_triton_fails_rows_not_the_run(self):
        import subprocess
        import sys
        from util import RUN_BUNDLE
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", OK, SIG), (2, "k", OK, SIG)])
            env = dict(os.environ, PYTHONPATH=os.path.join(tmp, "nothing"))
            code = ("import sys; sys.modules['triton'] = None; import runpy; "
                    "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")
            # The parent never imports triton; workers without it must yield rows, not hang.
            proc = subprocess.run([sys.executable, "-c", code, RUN_BUNDLE, tmp, "--out",
                                   os.path.join(tmp, "o.jsonl"), "--stage", "compile",
                                   "--jobs", "1"], env=env, capture_output=True, text=True,
                                  timeout=120)
            with open(os.path.join(tmp, "o.jsonl")) as f:
                lines = f.read().splitlines()
        try:
            import triton  # noqa: F401
            self.skipTest("triton is installed here; the no-triton path cannot be shown")
        except ImportError:
            pass
        self.assertEqual(len(lines), 2, proc.stderr)
        self.assertIn("worker_start", lines[0])
        self.assertEqual(proc.returncode, 1)


if __name__ == "__main__":
    unittest.main()
