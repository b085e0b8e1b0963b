"""Every self-contained CUDA kernel the cuda fixtures produce compiles on its own:
`nvcc -cubin -arch=sm_90` of its standalone translation unit. Skipped when nvcc is absent."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kernels", "harness"))
import cuda_kernel  # noqa: E402  the flags the check's harness compiles with

MINE = os.environ["MINE"]
FIXTURES = os.path.join(os.environ["MINE_FIXTURES_DIR"], "cuda")
NVCC = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def nvcc_cubin(source, workdir, name):
    """(ok, diagnostics) of compiling `source` to a cubin for sm_90."""
    src = os.path.join(workdir, name + ".cu")
    with open(src, "w") as f:
        f.write(source)
    r = subprocess.run([NVCC, "-cubin", "-arch=sm_90", cuda_kernel.RELAXED_CONSTEXPR, cuda_kernel.EXTENDED_LAMBDA,
                        *cuda_kernel.include_flags(src), "-o", os.path.join(workdir, name + ".cubin"), src],
                       capture_output=True, text=True, timeout=300)
    return r.returncode == 0, r.stderr


@unittest.skipUnless(os.path.exists(NVCC), f"nvcc not found (looked for {NVCC}); CUDA compile check skipped")
class CudaStandalonesCompile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        db = os.path.join(cls.tmp.name, "corpus.db")
        subprocess.run([MINE, "scan", FIXTURES, "--db", db, "--quiet"], check=True)
        out = subprocess.run(
            [MINE, "query", "SELECT path, qualname, standalone, self_contained FROM kernels WHERE plugin = 'cuda'",
             "--db", db, "--format", "json"], check=True, capture_output=True, text=True).stdout
        cls.kernels = json.loads(out)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_self_contained_standalones_compile(self):
        contained = [k for k in self.kernels if k["self_contained"]]
        self.assertGreaterEqual(len(contained), 8)
        for i, k in enumerate(contained):
            with self.subTest(kernel=k["qualname"], path=k["path"]):
                # A PyTorch extension's unit compiles where torch's headers are, as on the GPU machine.
                if cuda_kernel.includes_torch(k["standalone"]) and not cuda_kernel.torch_include_flags():
                    self.skipTest("torch is not installed here: its headers are not either")
                # Ported for the installed toolkit first, as the check's harness compiles it.
                ok, errors = nvcc_cubin(cuda_kernel.cuda_ports(k["standalone"])[0], self.tmp.name, f"k{i}")
                self.assertTrue(ok, errors + "\n--- standalone ---\n" + k["standalone"])

    def test_unused_definitions_stay_out(self):
        by_name = {k["qualname"]: k["standalone"] for k in self.kernels}
        self.assertNotIn("unused_helper", by_name["scale_rows"])
        self.assertNotIn("UNUSED_MACRO", by_name["scale_rows"])
        self.assertNotIn("void launch", by_name["scale_rows"])
        self.assertNotIn("not_requested", by_name["add_one"].split("__global__ void add_one")[1])


if __name__ == "__main__":
    unittest.main(verbosity=2)
