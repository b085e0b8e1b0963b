"""Standalones built across files (tests/fixtures/crossfile/<case>/, each scanned as one repository
by the real `mine` binary) are Python modules that stand on their own:
- each parses, and a kernel marked self-contained reads no global it does not define or import
  (ast + symtable);
- each self-contained one runs top to bottom in a fresh interpreter that has nothing of the
  fixture on its path, with stub `triton`/`triton.language` modules written here (definition time
  only: the decorators are identity functions) and a stub `torch.nn.Module` for the nn.Modules
  a case holds;
- `# expect: kernel Q defines a, b` lists exactly the top-level names the standalone defines, and
  `# expect: kernel Q returns EXPR == VALUE` is evaluated in it (the stubs make jitted functions
  plain Python), which shows that renamed clashes still call what the original code called."""
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from standalone_check import unbound_globals  # noqa: E402

MINE = os.environ["MINE"]
CASES = os.path.join(os.environ["MINE_FIXTURES_DIR"], "crossfile")

STUB_TRITON = '''
class _Anything:
    """Stands for whatever a kernel module touches at definition time."""
    def __init__(self, *args, **kwargs): pass
    def __call__(self, *args, **kwargs): return _Anything()
    def __getattr__(self, name): return _Anything()
    def __getitem__(self, key): return _Anything()

def jit(fn=None, **kwargs):
    return fn if fn is not None else (lambda f: f)

def autotune(*args, **kwargs):
    return lambda f: f

def heuristics(*args, **kwargs):
    return lambda f: f

class Config:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

def cdiv(a, b):
    return -(-a // b)

def next_power_of_2(n):
    return 1 << (int(n) - 1).bit_length()

__version__ = "3.0.0"

def __getattr__(name):
    return _Anything()
'''

STUB_LANGUAGE = '''
import math as _math
from triton import _Anything

class constexpr:
    def __init__(self, value=None): self.value = value

float32 = float16 = bfloat16 = int32 = int64 = _Anything()

def exp(x): return _math.exp(x)
def exp2(x): return 2.0 ** x
def sigmoid(x): return 1.0 / (1.0 + _math.exp(-x))
def erf(x): return _math.erf(x)

def __getattr__(name):
    return _Anything()
'''


def expectations(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".ipynb"):
        cells = json.loads(text)["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    defines, returns = {}, {}
    for line in text.splitlines():
        m = re.match(r"\s*# expect: kernel (\S+) defines (.*)", line)
        if m:
            defines[m.group(1)] = {n.strip() for n in m.group(2).split(",") if n.strip()}
        m = re.match(r"\s*# expect: kernel (\S+) returns (.*)", line)
        if m:
            returns[m.group(1)] = m.group(2).strip()
    return defines, returns


def defined_names(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


class CrossFileStandalones(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        stubs = os.path.join(cls.tmp.name, "stubs", "triton")
        os.makedirs(os.path.join(stubs, "language"))
        with open(os.path.join(stubs, "__init__.py"), "w") as f:
            f.write(STUB_TRITON)
        with open(os.path.join(stubs, "language", "__init__.py"), "w") as f:
            f.write(STUB_LANGUAGE)
        torch_nn = os.path.join(cls.tmp.name, "stubs", "torch", "nn")
        os.makedirs(torch_nn)
        with open(os.path.join(torch_nn, "..", "__init__.py"), "w") as f:
            f.write("from . import nn\n")
        with open(os.path.join(torch_nn, "__init__.py"), "w") as f:
            f.write("class Module:\n    def __init__(self, *args, **kwargs):\n        pass\n")
        cls.stub_path = os.path.join(cls.tmp.name, "stubs")
        cls.kernels = []
        for case in sorted(os.listdir(CASES)):
            root = os.path.join(CASES, case)
            if not os.path.isdir(root):
                continue
            db = os.path.join(cls.tmp.name, case + ".db")
            subprocess.run([MINE, "scan", root, "--db", db, "--quiet"], check=True)
            out = subprocess.run(
                [MINE, "query", "SELECT path, qualname, standalone, self_contained, meta FROM kernels", "--db", db,
                 "--format", "json"], check=True, capture_output=True, text=True).stdout
            for k in json.loads(out):
                k["case"], k["file"] = case, os.path.join(root, k["path"])
                cls.kernels.append(k)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_standalone(self, k, expression=None):
        """Runs the standalone as __main__ in a fresh interpreter from an empty folder."""
        work = tempfile.mkdtemp(dir=self.tmp.name)
        module = os.path.join(work, "standalone.py")
        with open(module, "w") as f:
            f.write(k["standalone"])
        probe = "import runpy; ns = runpy.run_path('standalone.py', run_name='standalone')\n"
        if expression:
            probe += "result = eval(%r, ns)\nprint(result)\nassert result is True, result\n" % expression
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": self.stub_path}
        return subprocess.run([sys.executable, "-c", probe], cwd=work, env=env, capture_output=True, text=True)

    def test_found_every_case(self):
        self.assertGreaterEqual(len({k["case"] for k in self.kernels}), 10)

    def test_standalones_parse_and_bind_their_globals(self):
        for k in self.kernels:
            with self.subTest(case=k["case"], kernel=k["qualname"]):
                missing = unbound_globals(k["standalone"])
                if k["self_contained"]:
                    self.assertEqual(missing, set(), k["standalone"])
                else:
                    unresolved = json.loads(k["meta"]).get("unresolved", [])
                    self.assertTrue(missing or unresolved, "marked not self-contained without a reason")

    def test_self_contained_standalones_execute(self):
        ran = 0
        for k in self.kernels:
            if not k["self_contained"]:
                continue
            with self.subTest(case=k["case"], kernel=k["qualname"]):
                done = self.run_standalone(k)
                self.assertEqual(done.returncode, 0, done.stderr + "\n" + k["standalone"])
                ran += 1
        self.assertGreaterEqual(ran, 12)

    def test_defines_and_returns_what_the_fixtures_say(self):
        checked = 0
        for k in self.kernels:
            defines, returns = expectations(k["file"])
            with self.subTest(case=k["case"], kernel=k["qualname"]):
                if k["qualname"] in defines:
                    names = defined_names(ast.parse(k["standalone"]))
                    self.assertEqual(names, defines[k["qualname"]], k["standalone"])
                    checked += 1
                if k["qualname"] in returns:
                    done = self.run_standalone(k, returns[k["qualname"]])
                    self.assertEqual(done.returncode, 0, done.stdout + done.stderr + "\n" + k["standalone"])
                    checked += 1
        self.assertGreaterEqual(checked, 15)


if __name__ == "__main__":
    unittest.main(verbosity=2)
