"""The worker's retries on a ported module, with its compile replaced: what a row says after a
retry and that Triton's allow_non_constexpr_globals knob is on for that retry only. Real Triton
runs them in test_real_triton."""
import os
import tempfile
import types
import unittest

import util  # noqa: F401 -- puts the harness on sys.path
import worker

REFUSED = "NameError(\"Cannot access global variable Ops from within @jit'ed function.\")"


class AllowGlobalsRetry(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        with open(os.path.join(self.dir, "k7.py"), "w") as f:
            f.write("SOURCE = 1\n")
        self.knobs = types.SimpleNamespace(allow_non_constexpr_globals=False)
        w = worker.Worker.__new__(worker.Worker)
        w.triton = types.SimpleNamespace(knobs=types.SimpleNamespace(compilation=self.knobs))
        w.marker = os.path.join(self.dir, ".stage")
        self.seen = []

        def check_module(task, spec, stage, row, ported=None):
            self.seen.append((ported, self.knobs.allow_non_constexpr_globals))
            if not self.knobs.allow_non_constexpr_globals:
                raise NameError("Cannot access global variable Ops from within @jit'ed function.")
            row["status"] = "ok"
        w.check_module = check_module
        self.worker = w
        self.task = {"bundle_dir": self.dir, "scratch": self.dir}
        self.spec = {"id": 7, "module": "k7.py", "entry": "k"}

    def tearDown(self):
        self.tmp.cleanup()

    def first_row(self):
        return {"id": 7, "stage_reached": "compile", "status": "fail", "error_class": "missing_name",
                "message": REFUSED, "compile_ms": None, "n_regs": None, "n_spills": None,
                "shared_bytes": None, "run_ms": None}

    def test_the_standalone_is_checked_again_with_the_knob_on_and_the_row_says_so(self):
        row = self.first_row()
        poisoned = self.worker.retry_allowing_globals(self.task, self.spec, "run", row)
        self.assertFalse(poisoned)
        self.assertEqual(row["status"], "ok")
        self.assertEqual(row["module_checked"], "ported")
        self.assertEqual(row["port"]["of"], "standalone")
        self.assertEqual(row["port"]["source"], "SOURCE = 1\n")
        self.assertEqual([r["move"] for r in row["port"]["rewrites"]], ["global.object"])
        self.assertEqual(row["unported"]["message"], REFUSED)
        self.assertEqual(self.seen, [(os.path.join(self.dir, "ported_7.py"), True)])
        self.assertFalse(self.knobs.allow_non_constexpr_globals)

    def test_a_ported_check_keeps_its_rewrites_and_first_verdict(self):
        row = dict(self.first_row(), module_checked="ported",
                   unported={"status": "fail", "message": "tl.libdevice moved"},
                   port={"of": "standalone", "source": "PORTED = 1\n",
                         "rewrites": [{"move": "tl.libdevice", "old": "a", "new": "b", "count": 1}]})
        self.worker.retry_allowing_globals(self.task, self.spec, "run", row)
        self.assertEqual(row["status"], "ok")
        self.assertEqual([r["move"] for r in row["port"]["rewrites"]], ["tl.libdevice", "global.object"])
        self.assertEqual(row["port"]["source"], "PORTED = 1\n")
        self.assertEqual(row["unported"]["message"], "tl.libdevice moved")

    def test_a_retry_that_fails_again_restores_the_knob_and_records_the_failure(self):
        def still_refused(task, spec, stage, row, ported=None):
            raise NameError("Cannot access global variable Other from within @jit'ed function.")
        self.worker.check_module = still_refused
        row = self.first_row()
        self.worker.retry_allowing_globals(self.task, self.spec, "run", row)
        self.assertEqual(row["status"], "fail")
        self.assertIn("Other", row["message"])
        self.assertFalse(self.knobs.allow_non_constexpr_globals)

    def test_a_triton_without_the_knob_is_not_retried(self):
        self.worker.triton = types.SimpleNamespace()
        row = self.first_row()
        self.assertFalse(self.worker.retry_allowing_globals(self.task, self.spec, "run", row))
        self.assertEqual(row["message"], REFUSED)
        self.assertEqual(self.seen, [])

    def test_a_refusal_deep_inside_a_long_message_is_still_retried(self):
        # The row keeps a trimmed message (head and tail); the refusal sits in the middle of a
        # CompilationError chain through helpers, and the retry is decided on the whole message.
        long = "CompilationError: at 95:4:\n" + "helper frame\n" * 400 + REFUSED + "\n" + "tail\n" * 400

        def check_module(task, spec, stage, row, ported=None):
            self.seen.append((ported, self.knobs.allow_non_constexpr_globals))
            if not self.knobs.allow_non_constexpr_globals:
                raise RuntimeError(long)
            row["status"] = "ok"
        self.worker.check_module = check_module
        self.worker.versions = {"triton_version": "3.6.0"}
        task = dict(self.task, scratch=os.path.join(self.dir, "scratch"), spec=self.spec, stage="run",
                    arch="sm_90")
        row = self.worker.run_task(task)
        self.assertNotIn("Cannot access global variable", row["unported"]["message"])  # trimmed away
        self.assertEqual(row["status"], "ok")
        self.assertEqual([r["move"] for r in row["port"]["rewrites"]], ["global.object"])


if __name__ == "__main__":
    unittest.main()
