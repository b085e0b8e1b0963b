"""Hostile kernels against the pool, with real processes and the Triton stand-in: fork bombs
(bounded here, so the test is safe on any machine, and with daemons that setsid() out of the
worker's process group), 100 GB allocations, writes outside the scratch folder (directly and
through os.system), root's powers (writing /etc, signalling PID 1), and interpreter crashes.
Each is contained and classified, nothing survives the batch, the machine stays responsive,
and the kernels after them still run. Run as root, the workers must have dropped to nobody."""
import json
import os
import subprocess
import tempfile
import threading
import time
import unittest

from util import reachable, run_standin, workers_keep_root, write_bundle

HDR = "import triton\nimport triton.language as tl\n"
SIG = {"signature": {"x_ptr": "*fp32"}}


def kern(body, pre=""):
    return HDR + pre + "\n@triton.jit\ndef k(x_ptr, BLOCK: tl.constexpr):\n%s\n" % (
        "\n".join("    " + line for line in body.strip().splitlines()))


OK = kern("pass")

# Every process it makes appends its pid to PIDS/k<id>.txt (a folder made writable with
# --writable), then
# sleeps: 40 children, half of them in a new session, each with a daemon grandchild that leaves
# the process group too. 81 processes at most, whatever the machine.
BOMB = """import os, time
def note():
    with open(PIDS, "a") as f:
        f.write("%d\\n" % os.getpid())
note()
for i in range(40):
    if os.fork() == 0:
        if i % 2:
            os.setsid()
        if os.fork() == 0:
            os.setsid()
            note()
            time.sleep(300)
            os._exit(0)
        note()
        time.sleep(300)
        os._exit(0)
"""

# Forks until refused or 150 processes: stopped by the worker's cgroup pids.max, or by
# RLIMIT_NPROC (which binds once the worker is not root).
FORK_LOOP = """import os, time
made = 0
with open(PIDS, "a") as f:
    while made < 150:
        pid = os.fork()
        if pid == 0:
            time.sleep(300)
            os._exit(0)
        f.write("%d\\n" % pid)
        f.flush()
        made += 1
"""


# Root's powers: a file in /etc, and a signal to PID 1. Signal 0 only asks whether the signal
# would be allowed, so even a worker that kept root harms nothing.
ETC_FILE = "/etc/mine-containment-%d" % os.getpid()
WRITE_ETC = "open(%r, 'w').write('pwned')\n" % ETC_FILE
SIGNAL_INIT = "import os\nos.kill(1, 0)\n"


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def ours(pid):
    """A fork of one of this run's workers (pids get reused; never kill anything else)."""
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"kernels/harness/worker.py" in f.read()
    except OSError:
        return False


class Containment(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mine-contain-")
        t = cls.tmp.name
        cls.bundle = os.path.join(t, "bundle")
        cls.work = os.path.join(t, "work")
        cls.outside = os.path.join(t, "outside")
        os.makedirs(cls.bundle)
        os.makedirs(cls.outside)
        cls.sentinel = os.path.join(cls.outside, "keep.txt")
        with open(cls.sentinel, "w") as f:
            f.write("keep\n")
        o = cls.outside
        cls.pid_dir = os.path.join(t, "pids")
        os.makedirs(cls.pid_dir)
        os.chmod(cls.pid_dir, 0o777)  # the kernels write here, as nobody when the test is root

        def pids_at(kid):
            return "PIDS = %r\n" % os.path.join(cls.pid_dir, "k%d.txt" % kid)

        cls.kernels = [
            (1, "k", kern(pids_at(1) + BOMB + "time.sleep(300)"), SIG),  # hangs: timeout kills it all
            (2, "k", kern(pids_at(2) + BOMB), SIG),                      # returns at once, daemons left behind
            (3, "k", kern(pids_at(3) + FORK_LOOP + "time.sleep(300)"), SIG),
            (4, "k", kern("x = bytearray(100 << 30)"), SIG),         # 100 GB at once
            # 100 GB mapped, then every page touched: where the machine lets the mapping be
            # made (128 GB of RAM), only the memory watchdog can stop it. Touching one byte per
            # MB would stay under the limit there (400 MB) and prove nothing.
            (5, "k", kern("import mmap\nm = mmap.mmap(-1, 100 << 30)\nfor i in range(0, 100 << 30, 4096):\n"
                          "    m[i] = 1"), SIG),
            (6, "k", OK, SIG, ),
            (7, "k", kern("pass", pre="open(%r, 'w').write('pwned')\n" % os.path.join(o, "direct.txt")), SIG),
            (8, "k", kern("pass", pre="import os\nos.system('echo pwned > %s')\n" % os.path.join(o, "shell.txt")),
             SIG),
            (9, "k", kern("pass", pre="import os\nos.remove(%r)\n" % cls.sentinel), SIG),
            (10, "k", kern("pass", pre="open(%r, 'w').write('x')\n" % os.path.join(cls.bundle, "k6.py")), SIG),
            (11, "k", kern("pass", pre="import os\nos.abort()\n"), SIG),   # the interpreter dies
            (12, "k", kern("pass", pre="import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"), SIG),
            (13, "k", kern("pass", pre="open('inside.txt', 'w').write('fine')\n"), SIG),  # its own scratch
            (14, "k", OK, SIG),
            (15, "k", kern("pass", pre=WRITE_ETC), SIG),
            (16, "k", kern("pass", pre=SIGNAL_INIT), SIG),
        ]
        write_bundle(cls.bundle, cls.kernels)
        cls.spawn_s = []
        running = threading.Event()
        running.set()

        def watch():  # how long the machine takes to start a process while the bombs go off
            while running.is_set():
                s0 = time.monotonic()
                subprocess.run(["true"])
                cls.spawn_s.append(time.monotonic() - s0)
                time.sleep(0.2)

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        t0 = time.monotonic()
        # One job: RLIMIT_NPROC counts every process of the uid, so two workers sharing nobody
        # would eat into each other's budget where there is no cgroup to cap them separately.
        # The bombs make 81 processes; the fork loop wants 150, more than the 100 allowed.
        cls.proc, cls.rows = run_standin(cls.bundle, os.path.join(t, "out.jsonl"), "--stage", "compile",
                                         "--jobs", "1", "--timeout", "6", "--mem-limit-mb", "2048",
                                         "--max-procs", "100", "--work-dir", cls.work, "--writable", cls.pid_dir)
        cls.seconds = time.monotonic() - t0
        running.clear()
        watcher.join()
        cls.summary = json.loads(cls.proc.stderr.strip().splitlines()[-1])
        cls.confined = str(cls.summary.get("sandbox", {}).get("writes", "")).startswith("landlock")

    @classmethod
    def tearDownClass(cls):
        if os.path.exists(ETC_FILE):
            os.remove(ETC_FILE)
        # Should containment ever fail, the test still leaves nothing running on the machine.
        for name in os.listdir(cls.pid_dir):
            with open(os.path.join(cls.pid_dir, name)) as f:
                for pid in f.read().split():
                    if alive(int(pid)) and ours(int(pid)):
                        try:
                            os.kill(int(pid), 9)
                        except OSError:
                            pass
        cls.tmp.cleanup()

    def pids(self, kid):
        with open(os.path.join(self.pid_dir, "k%d.txt" % kid)) as f:
            return [int(x) for x in f.read().split()]

    def test_the_batch_completes_with_one_row_each(self):
        self.assertEqual(sorted(self.rows), [k[0] for k in self.kernels], self.proc.stderr[-3000:])
        self.assertEqual(self.rows[6]["status"], "ok")
        self.assertEqual(self.rows[14]["status"], "ok")
        self.assertEqual(self.rows[13]["status"], "ok")
        self.assertLess(self.seconds, 120)

    def test_fork_bombs_leave_no_process_behind(self):
        self.assertEqual(self.rows[1]["error_class"], "timeout", self.rows[1]["message"])
        self.assertEqual(self.rows[2]["status"], "ok", self.rows[2]["message"])
        deadline = time.time() + 5
        for kid in (1, 2, 3):
            pids = self.pids(kid)
            self.assertGreater(len(pids), 1 if kid == 3 else 40)
            while time.time() < deadline and any(alive(p) for p in pids):
                time.sleep(0.1)
            self.assertEqual([p for p in pids if alive(p)], [], "kernel %d left processes running" % kid)
        self.assertGreater(self.summary["strays_killed"], 0)  # the setsid daemons were swept

    def test_the_fork_loop_hits_the_process_cap(self):
        row, made = self.rows[3], len(self.pids(3))
        sandbox = self.summary["sandbox"]
        if sandbox["identity"].startswith("root") and "pids.max" not in sandbox["processes"]:
            # Root kept (workers_keep_root) and no cgroup: nothing caps the loop; it goes past
            # the 100 allowed until the timeout or the memory watchdog ends it.
            self.assertGreater(made, 100)
            self.assertIn(row["error_class"], ("timeout", "resource_limit"), row["message"])
            self.skipTest("workers kept root here and no cgroup was available: %s" % sandbox)
        self.assertLess(made, 150, self.summary["sandbox"])
        if "pids.max" in self.summary["sandbox"]["processes"]:
            self.assertLess(made, 100)  # the worker itself is one of the cgroup's 100
        self.assertEqual(row["status"], "fail")
        self.assertIn("Resource temporarily unavailable", row["message"])

    def test_the_machine_stays_responsive(self):
        self.assertGreater(len(self.spawn_s), 5)
        self.assertLess(max(self.spawn_s), 3.0, sorted(self.spawn_s)[-5:])

    def test_roots_powers_are_gone(self):
        self.assertFalse(os.path.exists(ETC_FILE))
        self.assertEqual(self.rows[15]["status"], "fail")
        self.assertIn("Permission denied", self.rows[15]["message"])
        if workers_keep_root():
            self.skipTest("workers kept root on this machine: " + workers_keep_root())
        self.assertEqual(self.rows[16]["status"], "fail")
        self.assertIn("Operation not permitted", self.rows[16]["message"])

    @unittest.skipUnless(os.geteuid() == 0, "the harness drops privileges only when started as root")
    @unittest.skipIf(workers_keep_root(), "workers keep root on this machine: %s" % workers_keep_root())
    def test_workers_run_as_nobody_when_started_as_root(self):
        sandbox = self.summary["sandbox"]
        self.assertEqual(sandbox["identity"], "uid 65534 gid 65534, no groups, no_new_privs")
        self.assertEqual(os.stat(os.path.join(self.work, "scratch")).st_uid, 65534)
        self.assertEqual(os.stat(os.path.join(self.work, "triton-cache")).st_uid, 65534)
        self.assertEqual(os.stat(os.path.join(self.work, "worker0.log")).st_uid, 0)  # stays root's

    def test_100_gb_allocations_are_refused(self):
        for kid in (4, 5):
            with self.subTest(kid=kid):
                self.assertEqual(self.rows[kid]["status"], "fail")
                self.assertEqual(self.rows[kid]["error_class"], "resource_limit", self.rows[kid]["message"])

    def test_interpreter_crashes_are_crashes(self):
        self.assertEqual(self.rows[11]["error_class"], "crash", self.rows[11]["message"])
        self.assertIn("SIGABRT", self.rows[11]["message"])
        self.assertEqual(self.rows[12]["error_class"], "crash", self.rows[12]["message"])
        self.assertIn("SIGKILL", self.rows[12]["message"])

    def test_writes_outside_the_scratch_folder_are_refused(self):
        if not self.confined:
            self.skipTest("no Landlock on this kernel (%s): writes are not confined here"
                          % self.summary.get("sandbox"))
        self.assertEqual(sorted(os.listdir(self.outside)), ["keep.txt"])
        with open(self.sentinel) as f:
            self.assertEqual(f.read(), "keep\n")
        with open(os.path.join(self.bundle, "k6.py")) as f:
            self.assertEqual(f.read(), OK)
        for kid in (7, 9, 10):
            with self.subTest(kid=kid):
                self.assertEqual(self.rows[kid]["status"], "fail")
                self.assertIn("Permission denied", self.rows[kid]["message"])
        self.assertEqual(self.rows[8]["status"], "ok")  # the shell failed; the kernel went on


class EscapedForks(unittest.TestCase):
    def test_a_fork_that_returns_into_the_worker_says_nothing(self):
        # A kernel's child that raises instead of exiting (as a fork bomb's do once a process
        # cap refuses their own forks) unwinds into the copy of the worker loop it was forked
        # in: it must not answer for the kernel nor take the next kernel from the pool.
        escape = kern("pass", pre="import os, time\nif os.fork() == 0:\n    raise RuntimeError('child escaped')\n"
                                  "time.sleep(0.5)\n")
        with tempfile.TemporaryDirectory(prefix="mine-escape-") as t:
            bundle = os.path.join(t, "bundle")
            os.makedirs(bundle)
            write_bundle(bundle, [(1, "k", escape, SIG), (2, "k", OK, SIG), (3, "k", escape, SIG), (4, "k", OK, SIG),
                                  (5, "k", OK, SIG)])
            out = os.path.join(t, "out.jsonl")
            proc, rows = run_standin(bundle, out, "--stage", "compile", "--jobs", "1")
            with open(out) as f:
                ids = [json.loads(line)["id"] for line in f]
        self.assertEqual(sorted(ids), [1, 2, 3, 4, 5], proc.stderr[-2000:])
        for kid in (1, 2, 3, 4, 5):
            self.assertEqual(rows[kid]["status"], "ok", rows[kid]["message"])


@unittest.skipUnless(os.geteuid() == 0, "only root has powers to keep")
class RootKept(unittest.TestCase):
    def test_allow_root_workers_keeps_root_and_says_so(self):
        # The other side of test_roots_powers_are_gone: the same signal is allowed when the
        # workers keep root, so that test measures the drop, not the kernel.
        with tempfile.TemporaryDirectory(prefix="mine-root-") as t:
            bundle = os.path.join(t, "bundle")
            os.makedirs(bundle)
            write_bundle(bundle, [(1, "k", kern("pass", pre=SIGNAL_INIT), SIG)])
            proc, rows = run_standin(bundle, os.path.join(t, "out.jsonl"), "--stage", "compile", "--jobs", "1",
                                     "--allow-root-workers")
            summary = json.loads(proc.stderr.strip().splitlines()[-1])
            self.assertIn("warning: workers keep root", proc.stderr)
            self.assertEqual(summary["sandbox"]["identity"], "root (--allow-root-workers)")
            self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])


class WithoutSandbox(unittest.TestCase):
    def test_no_sandbox_really_lets_writes_through(self):
        # The other side of test_writes_outside_the_scratch_folder_are_refused: the same write
        # lands when the sandbox is off, so that test measures the sandbox, not the kernel.
        with tempfile.TemporaryDirectory(prefix="mine-nosandbox-") as t:
            target = os.path.join(t, "open", "direct.txt")
            bundle = os.path.join(t, "bundle")
            os.makedirs(bundle)
            os.makedirs(os.path.dirname(target))
            os.chmod(os.path.dirname(target), 0o777)  # file permissions are not what this measures
            reachable(target)
            write_bundle(bundle, [(1, "k", kern("pass", pre="open(%r, 'w').write('x')\n" % target), SIG)])
            proc, rows = run_standin(bundle, os.path.join(t, "out.jsonl"), "--stage", "compile", "--jobs", "1",
                                     "--no-sandbox", "--work-dir", os.path.join(t, "work"))
            summary = json.loads(proc.stderr.strip().splitlines()[-1])
            self.assertEqual(summary["sandbox"]["writes"], "none (disabled)")
            self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
            self.assertTrue(os.path.exists(target))


if __name__ == "__main__":
    unittest.main()
