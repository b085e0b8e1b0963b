"""cgroups.py: finding where a run's cgroups may go and what is written there, on a fake tree
(plain files, so it runs anywhere), and, where this machine really delegates cgroup v2 to us
(root on most GPU nodes), real caps: a fork loop stopped by pids.max, a memory hog killed by
memory.max and counted as an OOM kill, and nothing left behind."""
import os
import tempfile
import time
import unittest

import util  # noqa: F401 -- puts kernels/harness on the path
import cgroups

MOUNTINFO = ("24 1 0:22 / / rw - ext4 /dev/root rw\n"
             "32 23 0:28 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n")


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


class Parsing(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def test_mount_and_own_cgroup(self):
        write(os.path.join(self.t, "mi"), MOUNTINFO)
        write(os.path.join(self.t, "cg"), "4:memory:/x\n0::/process_api/abc\n")
        self.assertEqual(cgroups.cgroup2_mount(os.path.join(self.t, "mi")), ("/sys/fs/cgroup", "/"))
        self.assertEqual(cgroups.own_cgroup(os.path.join(self.t, "cg")), "/process_api/abc")

    def test_no_cgroup2(self):
        write(os.path.join(self.t, "mi"), MOUNTINFO.splitlines()[0] + "\n")
        self.assertEqual(cgroups.setup(mountinfo=os.path.join(self.t, "mi")),
                         (None, "no cgroup v2 hierarchy mounted"))

    def test_oom_kills(self):
        write(os.path.join(self.t, "w", "memory.events"), "low 0\nhigh 0\nmax 7\noom 2\noom_kill 1\n")
        self.assertEqual(cgroups.Tree.oom_kills(os.path.join(self.t, "w")), 1)
        self.assertEqual(cgroups.Tree.oom_kills(os.path.join(self.t, "absent")), 0)


class FakeTree(unittest.TestCase):
    """A hierarchy mounted at T/mnt: this process in /job/step, controllers enabled at the
    top (and, in one test, for /job's children too)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        t = self.mnt = os.path.join(self.tmp.name, "mnt")
        write(os.path.join(self.tmp.name, "mi"), "32 23 0:28 / %s rw - cgroup2 cgroup2 rw\n" % t)
        write(os.path.join(self.tmp.name, "cg"), "0::/job/step\n")
        write(os.path.join(t, "cgroup.subtree_control"), "cpu memory pids\n")
        write(os.path.join(t, "job", "cgroup.subtree_control"), "\n")
        write(os.path.join(t, "job", "step", "cgroup.subtree_control"), "\n")

    def tearDown(self):
        self.tmp.cleanup()

    def setup(self):
        return cgroups.setup("mine-run-test", os.path.join(self.tmp.name, "mi"), os.path.join(self.tmp.name, "cg"))

    def test_the_nearest_cgroup_that_hands_down_both_controllers(self):
        tree, why = self.setup()
        self.assertIsNone(why)
        self.assertEqual(tree.path, os.path.join(self.mnt, "mine-run-test"))
        self.assertEqual(tree.controllers, ["pids", "memory"])
        self.assertEqual(read(os.path.join(tree.path, "cgroup.subtree_control")), "+pids +memory")
        write(os.path.join(self.mnt, "job", "cgroup.subtree_control"), "memory pids\n")
        os.rename(tree.path, tree.path + ".old")
        tree, why = self.setup()
        self.assertEqual(tree.path, os.path.join(self.mnt, "job", "mine-run-test"))

    def test_a_dead_runs_folder_goes_a_live_ones_stays(self):
        dead, live = os.path.join(self.mnt, "mine-run-999999999"), os.path.join(self.mnt, "mine-run-%d" % os.getpid())
        os.makedirs(os.path.join(dead, "w0-0"))
        os.makedirs(os.path.join(live, "w0-0"))
        self.setup()
        self.assertFalse(os.path.exists(dead))
        self.assertTrue(os.path.exists(os.path.join(live, "w0-0")))

    def test_both_controllers_beat_nearness(self):
        write(os.path.join(self.mnt, "job", "cgroup.subtree_control"), "memory\n")  # as on the GPU VM
        tree, _ = self.setup()
        self.assertEqual((tree.path, tree.controllers), (os.path.join(self.mnt, "mine-run-test"), ["pids", "memory"]))
        write(os.path.join(self.mnt, "cgroup.subtree_control"), "cpu\n")
        os.rename(tree.path, tree.path + ".old")
        tree, _ = self.setup()
        self.assertEqual((tree.path, tree.controllers), (os.path.join(self.mnt, "job", "mine-run-test"), ["memory"]))

    def test_none_without_controllers(self):
        write(os.path.join(self.mnt, "cgroup.subtree_control"), "cpu io\n")
        tree, why = self.setup()
        self.assertIsNone(tree)
        self.assertIn("no writable cgroup with the pids and memory controllers above /job/step", why)

    def test_worker_limits(self):
        tree, _ = self.setup()
        path = tree.make("w0-0", 100, 2 << 30)
        self.assertEqual(read(os.path.join(path, "pids.max")), "100")
        self.assertEqual(read(os.path.join(path, "memory.max")), str(2 << 30))
        self.assertFalse(os.path.exists(os.path.join(path, "memory.oom.group")))  # only where the kernel has it
        path = tree.make("w1-1", 0, 0)
        self.assertEqual(read(os.path.join(path, "pids.max")), "max")
        self.assertEqual(read(os.path.join(path, "memory.max")), "max")

    def test_joining(self):
        tree, _ = self.setup()
        path = tree.make("w0-0", 10, 1 << 30)
        cg = os.path.join(self.tmp.name, "cg")
        write(cg, "0::/mine-run-test/w0-0\n")
        limits, why = cgroups.join_from_env({"MINE_CGROUP": path}, cg)
        self.assertEqual((limits, why), ({"pids.max": "10", "memory.max": "1024 MiB"}, None))
        self.assertEqual(read(os.path.join(path, "cgroup.procs")), str(os.getpid()))
        write(cg, "0::/job/step\n")  # the move did not happen
        with self.assertRaises(OSError):
            cgroups.join_from_env({"MINE_CGROUP": path}, cg)
        self.assertEqual(cgroups.join_from_env({"MINE_CGROUP_WHY": "disabled"}), ({}, "disabled"))


REAL, REAL_WHY = cgroups.setup("mine-run-probe-%d" % os.getpid())
if REAL:
    REAL.close()


@unittest.skipUnless(REAL, "no delegated cgroup v2 here: %s" % REAL_WHY)
class RealCgroups(unittest.TestCase):
    def setUp(self):
        self.tree, why = cgroups.setup("mine-run-test-%d" % os.getpid())
        self.assertIsNone(why)

    def tearDown(self):
        self.assertTrue(self.tree.close())
        self.assertFalse(os.path.exists(self.tree.path))

    def child_in(self, path, body):
        """Fork; the child joins `path` as a worker would, runs body() and exits with its
        answer (0-255); returns (exit status or -signal)."""
        pid = os.fork()
        if pid == 0:
            try:
                cgroups.join_from_env({"MINE_CGROUP": path})
                os._exit(body())
            except BaseException:  # noqa: B902
                os._exit(255)
        _, st = os.waitpid(pid, 0)
        return os.WEXITSTATUS(st) if os.WIFEXITED(st) else -os.WTERMSIG(st)

    def test_pids_max_stops_a_fork_loop(self):
        path = self.tree.make("w0-0", 20, 0)

        def loop():
            kids = []
            try:
                for _ in range(100):
                    pid = os.fork()
                    if pid == 0:
                        time.sleep(30)
                        os._exit(0)
                    kids.append(pid)
            except OSError:
                pass
            return len(kids)  # the sleepers are left for cgroup.kill

        self.assertEqual(read(os.path.join(path, "memory.oom.group")).strip(), "1")
        made = self.child_in(path, loop)
        self.assertEqual(made, 19)  # the looping process is the 20th
        self.assertIn("max 1", read(os.path.join(path, "pids.events")))
        self.assertTrue(cgroups.Tree.remove(path))  # cgroup.kill ends the orphaned sleepers

    def test_memory_max_kills_the_whole_group_and_says_so(self):
        path = self.tree.make("w0-0", 0, 64 << 20)

        def hog():
            x = bytearray(512 << 20)  # zero-filled, so every page is touched
            return len(x) & 1

        self.assertEqual(self.child_in(path, hog), -9)
        self.assertGreaterEqual(cgroups.Tree.oom_kills(path), 1)


if __name__ == "__main__":
    unittest.main()
