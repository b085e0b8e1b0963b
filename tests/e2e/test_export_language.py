"""Export fences and prompts follow each kernel's language: a corpus of Triton, numba and CUDA
fixtures (CUDA C++ from .cu files and from Python strings) is exported as torchtune and chat
records; every python-fenced record parses with ast, every other record carries its own fence,
and --language keeps one language only."""
import ast
import json
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mine_cli import mine, read_json, read_jsonl  # noqa: E402

FIXTURES = os.environ["MINE_FIXTURES_DIR"]
FENCE = re.compile(r"\A```(\w+)\n(.*)\n```\Z", re.S)


class ExportLanguage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.tmp.name, "corpus.db")
        mine("scan", *(os.path.join(FIXTURES, d) for d in ("triton", "numba", "cuda")), "--db", cls.db, "--quiet")
        mine("dedup", "--db", cls.db, "--quiet")
        # Kernels written to fail (tests/fixtures/triton/written_to_fail.py) are not exported.
        rows = json.loads(mine("query", "SELECT plugin, count(*) AS n FROM kernels WHERE "
                                        "json_extract(meta, '$.expects_error') IS NULL AND "
                                        "json_extract(meta, '$.source_placeholders') IS NULL GROUP BY plugin",
                               "--db", cls.db, "--format", "json").stdout)
        cls.by_plugin = {r["plugin"]: r["n"] for r in rows}
        embedded = json.loads(mine("query", "SELECT count(*) AS n FROM kernels WHERE plugin = 'cuda' AND "
                                            "json_extract(meta, '$.embedded_in') IS NOT NULL", "--db", cls.db,
                                   "--format", "json").stdout)
        cls.embedded_cuda = embedded[0]["n"]

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def export(self, fmt, *extra):
        out = os.path.join(self.tmp.name, "out." + ("json" if fmt == "torchtune" else "jsonl"))
        result = mine("export", "--db", self.db, "--out", out, "--format", fmt, "--dedup", "none", *extra)
        records = read_json(out) if fmt == "torchtune" else read_jsonl(out)
        return records, result.stdout

    def test_the_corpus_mixes_languages(self):
        self.assertGreater(self.by_plugin.get("cuda", 0), 0)
        self.assertGreater(self.embedded_cuda, 0, "the cuda fixtures hold CUDA taken from a Python string")
        self.assertGreater(self.by_plugin.get("triton", 0), 0)
        self.assertGreater(self.by_plugin.get("numba", 0), 0)

    def test_every_fence_matches_its_language(self):
        records, summary = self.export("torchtune")
        fences = {"python": 0, "cuda": 0}
        for r in records:
            m = FENCE.match(r["text"])
            self.assertIsNotNone(m, r["text"][:80])
            lang, code = m.group(1), m.group(2)
            fences[lang] = fences.get(lang, 0) + 1
            if lang == "python":
                ast.parse(code)  # a python fence holds Python
            else:
                self.assertEqual(lang, "cuda")
                self.assertIn("__global__", code)
                with self.assertRaises(SyntaxError, msg="CUDA code must not sit in a python fence"):
                    ast.parse(code)
        self.assertEqual(fences["cuda"], self.by_plugin["cuda"])
        self.assertEqual(fences["python"], sum(n for p, n in self.by_plugin.items() if p != "cuda"))
        self.assertIn("written by language: cuda %d; python %d;" % (fences["cuda"], fences["python"]), summary)

    def test_chat_prompts_name_the_language(self):
        records, _ = self.export("chat")
        for r in records:
            user, assistant = r["messages"][0]["content"], r["messages"][1]["content"]
            lang = FENCE.match(assistant).group(1)
            if lang == "cuda":
                self.assertIn("CUDA C++ kernel", user)
                self.assertIn("CUDA C++ source file", user)
                self.assertNotIn("Python", user)
                if "Use this signature" in user:
                    self.assertIn("```cuda\n", user)
                    self.assertIn("__global__", user)
            else:
                self.assertNotIn("CUDA C++", user)
                self.assertIn("Python module", user)
                ast.parse(FENCE.match(assistant).group(2))

    def test_language_option_keeps_one_language(self):
        cuda, summary = self.export("jsonl", "--language", "cuda")
        self.assertEqual(len(cuda), self.by_plugin["cuda"])
        self.assertEqual({r["language"] for r in cuda}, {"cuda"})
        self.assertEqual({r["plugin"] for r in cuda}, {"cuda"})
        self.assertIn("selected in cuda", summary)
        python, _ = self.export("jsonl", "--language", "python")
        self.assertEqual({r["language"] for r in python}, {"python"})
        self.assertEqual(len(python) + len(cuda), sum(self.by_plugin.values()))

    def test_unknown_language_is_a_usage_error(self):
        result = mine("export", "--db", self.db, "--out", os.path.join(self.tmp.name, "x.jsonl"), "--language",
                      "fortran", check=False)
        self.assertEqual(result.returncode, 2)
        self.assertIn("unknown --language 'fortran'", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
