"""privileges.py: resolving --worker-user, the drop itself (in forked children, so the test
process keeps its identity), handing folders over, and the preflight that finds what a dropped
worker could not reach. The drop, chown and preflight tests need root and skip without it; the
non-root side of each is tested wherever the suite runs."""
import os
import pwd
import tempfile
import unittest

import util  # noqa: F401 -- puts kernels/harness on the path
import privileges

ROOT = os.geteuid() == 0
NOBODY = privileges.FALLBACK_ID


def status_field(name):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(name + ":"):
                return line.split()[1]
    return None


class Resolve(unittest.TestCase):
    def test_numbers(self):
        self.assertEqual(privileges.resolve("1234:5678")[:2], (1234, 5678))

    def test_the_default_is_nobody(self):
        uid, gid, label = privileges.resolve(None)
        self.assertEqual(uid, NOBODY)
        try:
            self.assertEqual(gid, pwd.getpwnam("nobody").pw_gid)
        except KeyError:
            self.assertEqual(gid, NOBODY)  # no passwd entry: 65534 for both
        self.assertTrue(label.startswith("nobody:"), label)

    def test_root_and_unknown_names_are_refused(self):
        for spec in ("root", "0", "1234:0", "no-such-user-mine", "nobody:no-such-group-mine"):
            with self.subTest(spec=spec):
                with self.assertRaises(privileges.IdentityError):
                    privileges.resolve(spec)


class Drop(unittest.TestCase):
    @unittest.skipUnless(ROOT, "only root can drop privileges")
    def test_drop_to_nobody_is_complete_and_for_good(self):
        with tempfile.TemporaryDirectory() as closed:
            os.chmod(closed, 0o755)  # root's: others may enter but not write

            def child():
                said = privileges.drop_to(NOBODY, NOBODY)
                out = {"said": said, "uids": os.getresuid(), "gids": os.getresgid(),
                       "groups": os.getgroups(), "nnp": status_field("NoNewPrivs"),
                       "caps": status_field("CapEff")}
                for what, act in (("setuid0", lambda: os.setuid(0)),
                                  ("signal_init", lambda: os.kill(1, 0)),
                                  ("write", lambda: open(os.path.join(closed, "x"), "w"))):
                    try:
                        act()
                        out[what] = "allowed"
                    except OSError as e:
                        out[what] = e.strerror
                return out

            out = privileges.in_child(child)
        self.assertNotIn("error", out)
        self.assertEqual(out["uids"], [NOBODY] * 3)
        self.assertEqual(out["gids"], [NOBODY] * 3)
        self.assertEqual(out["groups"], [])
        self.assertEqual(out["nnp"], "1")
        self.assertEqual(int(out["caps"], 16), 0)
        self.assertEqual(out["setuid0"], "Operation not permitted")
        self.assertEqual(out["signal_init"], "Operation not permitted")
        self.assertEqual(out["write"], "Permission denied")
        self.assertEqual(out["said"], "uid 65534 gid 65534, no groups, no_new_privs")

    def test_without_root_the_drop_fails_loudly(self):
        def child():
            if os.geteuid() == 0:
                os.setresgid(NOBODY, NOBODY, NOBODY)
                os.setresuid(NOBODY, NOBODY, NOBODY)
            try:
                privileges.drop_to(NOBODY + 1 if os.getuid() == NOBODY else NOBODY, NOBODY)
                return {"dropped": True}
            except privileges.IdentityError as e:
                return {"refused": str(e)}

        out = privileges.in_child(child)
        self.assertIn("could not drop root", out.get("refused", ""), out)

    def test_what_the_worker_says(self):
        self.assertTrue(privileges.drop_from_env({}).startswith(
            "root (--allow-root-workers)" if ROOT else "uid %d (not root" % os.geteuid()))

        def child():  # a worker that is not root is left alone, whatever it is asked
            if os.geteuid() == 0:
                os.setresuid(NOBODY, NOBODY, NOBODY)
            return privileges.drop_from_env({"MINE_WORKER_UID": "1", "MINE_WORKER_GID": "1"})

        expected = "uid %d (not root: unchanged)" % (NOBODY if ROOT else os.geteuid())
        self.assertEqual(privileges.in_child(child), expected)


@unittest.skipUnless(ROOT, "chown and the preflight's drop need root")
class Folders(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.t = self.tmp.name
        os.chmod(self.t, 0o755)

    def tearDown(self):
        self.tmp.cleanup()

    def test_chown_tree_hands_over_links_not_their_targets(self):
        outside = os.path.join(self.t, "outside.txt")
        open(outside, "w").close()
        tree = os.path.join(self.t, "tree")
        os.makedirs(os.path.join(tree, "a", "b"))
        open(os.path.join(tree, "a", "b", "f"), "w").close()
        os.symlink(outside, os.path.join(tree, "a", "link"))
        privileges.chown_tree(tree, NOBODY, NOBODY)
        for p in ("", "a", "a/b", "a/b/f", "a/link"):
            self.assertEqual(os.lstat(os.path.join(tree, p)).st_uid, NOBODY, p)
        self.assertEqual(os.stat(outside).st_uid, 0)

    def test_preflight_names_what_nobody_cannot_reach(self):
        open_dir = os.path.join(self.t, "open")
        closed = os.path.join(self.t, "closed")
        theirs = os.path.join(self.t, "theirs")
        for d in (open_dir, closed, theirs):
            os.makedirs(d)
        os.chmod(closed, 0o700)
        open(os.path.join(closed, "inside.py"), "w").close()
        os.chown(theirs, NOBODY, NOBODY)
        problems = privileges.preflight(
            NOBODY, NOBODY, [open_dir, closed, os.path.join(closed, "inside.py"), os.path.join(self.t, "absent")],
            [theirs, open_dir])
        self.assertEqual(problems, ["cannot read %s" % closed,
                                    "cannot read %s (Permission denied)" % os.path.join(closed, "inside.py"),
                                    "cannot write in %s" % open_dir])

    def test_preflight_opens_device_nodes(self):
        self.assertEqual(privileges.preflight(NOBODY, NOBODY, [], [], ["/dev/null"]), [])
        self.assertEqual(privileges.preflight(NOBODY, NOBODY, [], [], ["/dev/mem"]),
                         ["cannot open /dev/mem (Permission denied)"] if os.path.exists("/dev/mem")
                         else ["cannot open /dev/mem (No such file or directory)"])


if __name__ == "__main__":
    unittest.main()
