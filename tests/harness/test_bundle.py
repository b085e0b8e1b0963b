import json
import os
import tempfile
import unittest

from util import write_bundle
from bundle import BundleError, load_bundle


class LoadBundle(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, doc):
        with open(os.path.join(self.dir, "bundle.json"), "w") as f:
            json.dump(doc, f)

    def test_defaults_filled(self):
        write_bundle(self.dir, [(7, "k", "x = 1\n", {"grid": [4]})])
        [k] = load_bundle(self.dir)
        self.assertEqual(k["grid"], [4, 1, 1])
        for field in ("constexprs", "numels", "args", "attrs", "options"):
            self.assertEqual(k[field], {})
        self.assertEqual(k["guessed"], [])
        self.assertEqual(k["language"], "triton")

    def test_rejections(self):
        open(os.path.join(self.dir, "k1.py"), "w").close()
        good = {"id": 1, "entry": "k", "module": "k1.py"}
        bad = [
            ({"version": 2, "kernels": []}, "version"),
            ({"version": 1}, "kernels must be a list"),
            ({"version": 1, "kernels": [dict(good, id="1")]}, "id must be an integer"),
            ({"version": 1, "kernels": [good, good]}, "duplicate id"),
            ({"version": 1, "kernels": [dict(good, module="../k1.py")]}, "escapes"),
            ({"version": 1, "kernels": [dict(good, module="/etc/passwd")]}, "escapes"),
            ({"version": 1, "kernels": [dict(good, module="k2.py")]}, "missing"),
            ({"version": 1, "kernels": [dict(good, language="opencl")]}, "not supported"),
            ({"version": 1, "kernels": [dict(good, grid=[0])]}, "grid"),
            ({"version": 1, "kernels": [dict(good, grid=[1, 1, 1, 1])]}, "grid"),
            ({"version": 1, "kernels": [dict(good, signature={"x": 1})]}, "signature"),
            ({"version": 1, "kernels": [dict(good, entry="")]}, "entry"),
        ]
        for doc, words in bad:
            with self.subTest(words=words):
                self.write(doc)
                with self.assertRaisesRegex(BundleError, words):
                    load_bundle(self.dir)

    def test_not_json(self):
        with open(os.path.join(self.dir, "bundle.json"), "w") as f:
            f.write("{nope")
        with self.assertRaisesRegex(BundleError, "not JSON"):
            load_bundle(self.dir)
        with self.assertRaisesRegex(BundleError, "cannot read"):
            load_bundle(os.path.join(self.dir, "absent"))


if __name__ == "__main__":
    unittest.main()
