"""2024-era Inductor kernels with the real binary, without Triton or a GPU (issue 16): scan
tests/fixtures/inductor_2024, emit a bundle whose kernel-only modules need no Inductor header or
heuristics, plan every launch with the harness's own planner, ingest results that include a
ported check, and read both forms back through stats, a query and export --form."""
import ast
import json
import os
import subprocess
import sys
import tempfile
import unittest

MINE = os.environ["MINE"]
SOURCE = os.environ.get("MINE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
FIXTURES = os.environ.get("MINE_FIXTURES_DIR", os.path.join(SOURCE, "tests", "fixtures"))
sys.path.insert(0, os.path.join(SOURCE, "kernels", "harness"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import launch  # noqa: E402
import specialize  # noqa: E402
from test_check_emit import kernel_params  # noqa: E402

# The header lines no kernel-only module may keep: they are what fails on torch 2.11 / triton 3.6.
OLD_HEADER = ("AttrsDescriptor", "triton_heuristics", "instance_descriptor", "set_driver_to_gpu",
              "from torch._inductor import", "torch._inductor.triton_helpers")


def mine(*args, check=True):
    return subprocess.run([MINE, *args], check=check, capture_output=True, text=True)


def query(db, sql):
    return json.loads(mine("query", sql, "--db", db, "--format", "json").stdout)


class Inductor2024(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.tmp.name, "c.db")
        mine("scan", os.path.join(FIXTURES, "inductor_2024"), "--db", cls.db, "--quiet")
        cls.bundle = os.path.join(cls.tmp.name, "b")
        mine("check", "--emit", cls.bundle, "--db", cls.db)
        with open(os.path.join(cls.bundle, "bundle.json")) as f:
            cls.kernels = json.load(f)["kernels"]
        cls.by_name = {}
        for k in cls.kernels:
            with open(os.path.join(cls.bundle, k["module"])) as f:
                name = f.read().split("'kernel_name': '")[1].split("'")[0]
            cls.by_name[name] = k

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def kernel_only(self, k):
        with open(os.path.join(self.bundle, k["kernel_only_module"])) as f:
            return f.read()

    def test_every_kernel_has_a_kernel_only_module_without_the_old_header(self):
        self.assertEqual(len(self.kernels), 15)  # the fixture's fifteen kernels (two graphs)
        for k in self.kernels:
            with self.subTest(kernel=k["id"]):
                text = self.kernel_only(k)
                ast.parse(text)
                for old in OLD_HEADER:
                    self.assertNotIn(old, text)
                self.assertIn("@triton.jit\ndef %s(" % k["entry"], text)

    def test_every_launch_plans_from_the_stored_signature_and_size_hints(self):
        for name, k in self.by_name.items():
            with self.subTest(kernel=name):
                text = self.kernel_only(k)
                p = specialize.attach(launch.plan(k, kernel_params(text, k["entry"]), text), k)
                self.assertTrue(all(g >= 1 for g in p["grid"]))
        # Looped reduction: RBLOCK from rnumel (capped at 1024), one row per program.
        red = launch.plan(self.by_name["triton_red_fused_sum_2"], kernel_params(
            self.kernel_only(self.by_name["triton_red_fused_sum_2"]), "triton_"), "")
        self.assertEqual((red["constexprs"]["XBLOCK"], red["constexprs"]["RBLOCK"], red["grid"]), (1, 1024, [64, 1, 1]))
        # 2D tile: [y, x] list hints give both numels.
        tile = self.by_name["triton_poi_fused_clone_4"]
        self.assertEqual(tile["numels"], {"ynumel": 256, "xnumel": 1024})

    def test_triton_meta_configs_become_specialization(self):
        add = self.by_name["triton_poi_fused_add_5"]  # AttrsDescriptor(divisible_by_16=(0, 1), equal_to_1=(2,))
        self.assertEqual(add["signature"]["ks0"], "constexpr")
        self.assertEqual(add["constexprs"]["ks0"], 1)
        self.assertEqual(set(add["attrs"]), {"in_ptr0", "out_ptr0"})
        tanh = self.by_name["triton_poi_fused_tanh_8"]  # 2023 instance_descriptor(divisible_by_16=(0, 1, 2))
        self.assertEqual(set(tanh["attrs"]), {"in_ptr0", "out_ptr0", "xnumel"})

    def test_ported_and_kernel_only_results_are_stored_and_exported(self):
        db = os.path.join(self.tmp.name, "ported.db")
        mine("scan", os.path.join(FIXTURES, "inductor_2024"), "--db", db, "--quiet")
        names = {r["id"]: r["kn"] for r in query(
            db, "SELECT k.id, o.qualname AS kn FROM kernels k JOIN kernel_occurrences o ON o.kernel_id = k.id")}
        tanh_id = next(i for i, n in names.items() if n == "triton_poi_fused_tanh_8")
        gelu_id = next(i for i, n in names.items() if n == "triton_poi_fused_gelu_0")
        env = {"triton_version": "3.6.0", "torch_version": "2.11.0", "gpu_name": "NVIDIA H100", "arch": "sm_90"}
        rows = [
            dict(env, id=gelu_id, stage_requested="run", stage_reached="run", status="ok", module_checked="kernel_only",
                 standalone_import={"error_class": "missing_name", "message": "cannot import name 'AttrsDescriptor'"}),
            dict(env, id=tanh_id, stage_requested="run", stage_reached="run", status="ok", module_checked="ported",
                 unported={"stage_reached": "compile", "status": "fail", "error_class": "missing_name",
                           "message": "module 'triton.language.math' has no attribute 'tanh'",
                           "module_checked": "kernel_only"},
                 port={"of": "kernel_only", "source": "# ported\nimport triton\n",
                       "rewrites": [{"move": "tl.math.libdevice", "old": "tl.math.tanh", "new": "libdevice.tanh",
                                     "count": 1}]}),
        ]
        results = os.path.join(self.tmp.name, "results.jsonl")
        with open(results, "w") as f:
            f.write("\n".join(json.dumps(r) for r in rows) + "\n")
        out = mine("check", "--ingest", results, "--db", db).stdout
        self.assertIn("stored 3 results", out)  # the ported check counts its first outcome too
        forms = query(db, "SELECT kernel_id, form, status, rewrites FROM check_results ORDER BY id")
        self.assertEqual([(r["form"], r["status"]) for r in forms],
                         [("kernel_only", "ok"), ("kernel_only", "fail"), ("ported", "ok")])
        self.assertEqual(json.loads(forms[2]["rewrites"])[0]["old"], "tl.math.tanh")
        self.assertEqual(query(db, "SELECT count(*) AS n FROM kernel_forms WHERE form = 'ported'")[0]["n"], 1)

        stats = mine("stats", "--db", db).stdout
        self.assertIn("Check pass rate by Triton version and form checked", stats)
        self.assertIn("3.6.0", stats)
        self.assertIn("tl.math.libdevice", stats)

        for form in ("kernel-only", "ported", "original"):
            out_file = os.path.join(self.tmp.name, form + ".jsonl")
            summary = mine("export", "--out", out_file, "--format", "jsonl", "--dedup", "none", "--form", form,
                           "--db", db).stdout
            with open(out_file) as f:
                records = {r["kernel_id"]: r for r in map(json.loads, f)}
            self.assertEqual(len(records), 15)
            if form == "kernel-only":
                self.assertIn("forms written: kernel-only 15;", summary)
                for r in records.values():
                    for old in OLD_HEADER:
                        self.assertNotIn(old, r["code"])
            elif form == "ported":
                self.assertEqual(records[tanh_id]["code"], "# ported\nimport triton\n")
                self.assertEqual(records[tanh_id]["form"], "ported")
                self.assertEqual(records[gelu_id]["form"], "original")
            else:
                self.assertIn("AttrsDescriptor", records[gelu_id]["code"])
        bad = mine("export", "--out", os.path.join(self.tmp.name, "x.jsonl"), "--form", "modern", "--db", db,
                   check=False)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("original, kernel-only or ported", bad.stderr)


if __name__ == "__main__":
    unittest.main()
