"""PyTorch -> Triton pairs with the real binary, no GPU: scan the torch_module fixtures, emit a
bundle of modules (read back by the harness's bundle reader), ingest the inductor-stage rows an
H100 wrote for those modules (tests/fixtures/torch_module_results), and check the pairs table,
the Inductor kernels stored from the output code, their links, re-ingestion, and
`mine export --format pairs|pairs-chat`."""
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
from bundle import load_bundle  # noqa: E402


def mine(*args):
    return subprocess.run([MINE, *args], check=True, capture_output=True, text=True)


def query(db, sql):
    return json.loads(mine("query", sql, "--db", db, "--format", "json").stdout)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


class TorchModulePairs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.tmp.name, "corpus.db")
        mine("scan", os.path.join(FIXTURES, "torch_module", "zoo"), "--db", cls.db, "--quiet")
        ids = {r["name"]: r["id"] for r in query(cls.db, "SELECT id, name FROM kernels WHERE plugin='torch_module'")}
        cls.ids = ids
        rows = read_jsonl(os.path.join(FIXTURES, "torch_module_results", "zoo_h100_torch2.11.jsonl"))
        for r in rows:
            r["id"] = ids[r["entry"]]
        cls.results = os.path.join(cls.tmp.name, "results.jsonl")
        with open(cls.results, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        cls.rows = rows
        cls.ingest = mine("check", "--db", cls.db, "--ingest", cls.results).stdout

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_emit_writes_modules_with_their_inputs(self):
        bundle = os.path.join(self.tmp.name, "bundle")
        mine("check", "--db", self.db, "--emit", bundle, "--where", "plugin='torch_module'", "--quiet")
        specs = {k["entry"]: k for k in load_bundle(bundle)}
        self.assertEqual(set(specs), set(self.ids))
        conv = specs["ConvBlock"]
        self.assertEqual(conv["language"], "torch_module")
        self.assertEqual(conv["inputs"]["forward"][0]["rank"], 4)
        self.assertEqual({a["name"]: a.get("literal") for a in conv["inputs"]["init"]}, {"in_ch": "3", "out_ch": "8"})

    def test_every_compiled_module_is_a_pair_with_its_inductor_kernels(self):
        pairs = query(self.db, "SELECT k.name, p.outputs_match, p.eager_ok, p.max_abs_error, "
                               "(SELECT count(*) FROM module_pair_kernels l WHERE l.pair_id = p.id) AS kernels "
                               "FROM module_pairs p JOIN kernels k ON k.id = p.module_id")
        self.assertEqual({p["name"] for p in pairs}, {r["entry"] for r in self.rows})
        with_triton = {r["entry"] for r in self.rows if "@triton.jit" in r["output_code"][0]}
        self.assertIn("Mlp", with_triton)
        for p in pairs:
            self.assertEqual((p["outputs_match"], p["eager_ok"]), (1, 1), p["name"])
            self.assertLess(p["max_abs_error"], 1e-3)
            # Attention's code is a matmul and attention in extern kernels: no Triton to link.
            self.assertEqual(p["kernels"] > 0, p["name"] in with_triton, p["name"])
        stored = query(self.db, "SELECT DISTINCT r.name FROM kernels k JOIN repos r ON r.id = k.repo_id "
                                "WHERE k.plugin = 'inductor'")
        self.assertEqual(len(stored), 1)
        self.assertTrue(stored[0]["name"].startswith("inductor:"))
        self.assertIn("PyTorch/Inductor pairs", self.ingest)

    def test_output_code_is_kept_once_not_in_check_results(self):
        extras = query(self.db, "SELECT extra FROM check_results")
        self.assertGreaterEqual(len(extras), len(self.rows))
        for e in extras:
            self.assertNotIn("output_code", json.loads(e["extra"]))
        codes = query(self.db, "SELECT output_code FROM module_pairs")
        self.assertTrue(all("def call(" in json.loads(c["output_code"])[0] for c in codes))

    def test_ingesting_again_keeps_pairs_and_kernel_ids(self):
        before = query(self.db, "SELECT pair_id, kernel_id FROM module_pair_kernels ORDER BY 1, 2")
        mine("check", "--db", self.db, "--ingest", self.results)
        after = query(self.db, "SELECT pair_id, kernel_id FROM module_pair_kernels ORDER BY 1, 2")
        self.assertEqual([r["kernel_id"] for r in before], [r["kernel_id"] for r in after])
        self.assertEqual(query(self.db, "SELECT count(*) AS n FROM module_pairs")[0]["n"], len(self.rows))

    def test_export_pairs_deduplicates_both_sides(self):
        out = os.path.join(self.tmp.name, "pairs.jsonl")
        mine("export", "--db", self.db, "--format", "pairs", "--out", out)
        records = read_jsonl(out)
        for r in records:
            for key in ("pytorch_code", "triton_code", "inputs", "verified", "repo", "commit", "path", "license"):
                self.assertIn(key, r)
            self.assertTrue(r["verified"])
            self.assertIn("class " + r["module"], r["pytorch_code"])
            self.assertIn("@triton.jit", r["triton_code"])
        self.assertEqual(len({r["pytorch_code"] for r in records}), len(records))
        self.assertEqual(len({r["triton_code"] for r in records}), len(records))
        distinct_outputs = {json.dumps(r["output_code"]) for r in self.rows if "@triton.jit" in r["output_code"][0]}
        # Base and Scaled compile to the same code; Attention's has no Triton kernel.
        self.assertEqual(len(records), len(distinct_outputs))
        self.assertNotIn("Attention", {r["module"] for r in records})

    def test_a_malformed_inductor_row_is_refused_with_its_line_and_nothing_stored(self):
        bad = os.path.join(self.tmp.name, "bad.jsonl")
        rows = [dict(r) for r in self.rows[:2]]
        rows[1]["output_code"] = "not a list"
        with open(bad, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        before = query(self.db, "SELECT count(*) AS n FROM check_results")
        p = subprocess.run([MINE, "check", "--db", self.db, "--ingest", bad], capture_output=True, text=True)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("bad.jsonl:2", p.stderr)
        self.assertIn("output_code", p.stderr)
        self.assertEqual(query(self.db, "SELECT count(*) AS n FROM check_results"), before)

    def test_merge_carries_pairs_and_links(self):
        merged = os.path.join(self.tmp.name, "merged.db")
        mine("merge", merged, self.db)
        mine("merge", merged, self.db)  # idempotent
        count = "SELECT (SELECT count(*) FROM module_pairs) AS pairs, (SELECT count(*) FROM module_pair_kernels) AS links"
        self.assertEqual(query(merged, count), query(self.db, count))
        linked = ("SELECT m.name AS module, k.source_sha256 AS kernel FROM module_pair_kernels l JOIN module_pairs p "
                  "ON p.id = l.pair_id JOIN kernels m ON m.id = p.module_id JOIN kernels k ON k.id = l.kernel_id "
                  "ORDER BY 1, 2")
        self.assertEqual(query(merged, linked), query(self.db, linked))

    def test_export_pairs_chat_and_kernel_formats(self):
        out = os.path.join(self.tmp.name, "chat.jsonl")
        mine("export", "--db", self.db, "--format", "pairs-chat", "--out", out)
        first = read_jsonl(out)[0]
        self.assertEqual([m["role"] for m in first["messages"]], ["user", "assistant"])
        self.assertIn("write Triton kernels and a `call` wrapper", first["messages"][0]["content"])
        prompts = [r["messages"][0]["content"] for r in read_jsonl(out)]
        # The module's inputs as the H100 run used them (the fixture rows' inputs_used).
        mlp = [p for p in prompts if p.endswith("It is built as `Mlp(dim=16)` and called on x: float32[2, 16, 16].")]
        self.assertEqual(len(mlp), 1)
        self.assertIn("class Mlp(nn.Module)", mlp[0])
        kernels = os.path.join(self.tmp.name, "kernels.jsonl")
        mine("export", "--db", self.db, "--format", "jsonl", "--out", kernels, "--dedup", "none")
        plugins = {r["plugin"] for r in read_jsonl(kernels)}
        self.assertEqual(plugins, {"inductor"})  # modules leave only as pairs

    def test_a_number_input_is_shown_as_its_value_in_the_prompt(self):
        # A forward parameter the harness passed a number (`size: Tuple[int, int]`): `value`, no shape.
        db = os.path.join(self.tmp.name, "numbers.db")
        mine("scan", os.path.join(FIXTURES, "torch_module", "zoo"), "--db", db, "--quiet")
        ids = {r["name"]: r["id"] for r in query(db, "SELECT id, name FROM kernels WHERE plugin='torch_module'")}
        rows = [json.loads(json.dumps(r)) for r in self.rows]
        for r in rows:
            r["id"] = ids[r["entry"]]
            if r["entry"] == "Mlp":
                r["inductor"]["inputs_used"]["forward"] += [{"name": "size", "value": [16, 16]},
                                                            {"name": "n", "value": 16}]
        results = os.path.join(self.tmp.name, "numbers.jsonl")
        with open(results, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        mine("check", "--db", db, "--ingest", results)
        out = os.path.join(self.tmp.name, "numbers-chat.jsonl")
        mine("export", "--db", db, "--format", "pairs-chat", "--out", out)
        prompts = [r["messages"][0]["content"] for r in read_jsonl(out)]
        want = "It is built as `Mlp(dim=16)` and called on x: float32[2, 16, 16], size=(16, 16), n=16."
        self.assertEqual(len([p for p in prompts if p.endswith(want)]), 1, [p[-120:] for p in prompts])


if __name__ == "__main__":
    unittest.main()
