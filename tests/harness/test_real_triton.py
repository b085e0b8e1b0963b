"""The harness against real Triton (and a GPU where there is one). Skipped on CI, which has
neither; run on the GPU machine by kernels/harness/gpu_check.sh."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from util import HARNESS, ROOT, RUN_BUNDLE, write_bundle

try:
    import triton  # noqa: F401
    HAVE_TRITON = True
except ImportError:
    HAVE_TRITON = False
HAVE_GPU = HAVE_TRITON and shutil.which("nvidia-smi") is not None and subprocess.run(
    ["nvidia-smi", "-L"], capture_output=True).returncode == 0
SHARED = os.environ.get("MINE_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
INDUCTOR = os.path.join(SHARED, "fixtures", "inductor")

HDR = "import triton\nimport triton.language as tl\n"
STORE_FAR = HDR + """
@triton.jit
def far(x_ptr, n, BLOCK: tl.constexpr):
    # 4 TiB past the buffer: no mapping there, so the store faults on the device.
    offs = tl.arange(0, BLOCK).to(tl.int64) + (tl.full([BLOCK], 1, tl.int64) << 40)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32))
"""
HOG = HDR + """
hog = bytearray(64 << 30)

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass
"""
FINE = HDR + """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)
"""
SIG = {"signature": {"x_ptr": "*fp32", "n": "i32"}, "constexprs": {"BLOCK": 256}}
# One block past the buffer the harness allocates for n (launch.buffer_elems: 4 * n * n
# elements): a read there lands in the guard zone; a write there changes it.
READ_PAST = HDR + """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + 4 * n * n + offs)
    tl.store(x_ptr + offs, v * 0.0, mask=offs < n)
"""
WRITE_PAST = HDR + """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + 4 * n * n + offs, tl.zeros([BLOCK], dtype=tl.float32))
"""


# One kernel per error class, each failing the way kernels from the wild do; the messages are
# Triton 3.x's own, so this pins classify.py to the real wording, not to our guesses.
BAD = {
    "syntax": ("k", HDR + "@triton.jit\ndef k(x_ptr, n, BLOCK: tl.constexpr):\n    x = (1,\n", {}),
    "missing_name": ("k", HDR + """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, undefined_helper(offs))
""", {}),
    "type_error": ("k", HDR + """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK)
    b = tl.arange(0, 2 * BLOCK)
    tl.store(x_ptr + a, a + b)
""", {}),
    "unsupported_op": ("k", HDR + """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    try:
        tl.store(x_ptr + offs, offs)
    except Exception:
        pass
""", {}),
    "illegal_address": ("far", STORE_FAR, {}),
    "timeout": ("k", HDR + """
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    i = n
    while i > 0:
        i = i * 1 + tl.load(x_ptr).to(tl.int32)
    tl.store(x_ptr, i.to(tl.float32))
""", {}),
}


def run(bundle, *args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.jsonl")
        proc = subprocess.run([sys.executable, RUN_BUNDLE, bundle, "--out", out] + list(args),
                              capture_output=True, text=True, timeout=580)
        with open(out) as f:
            rows = [json.loads(line) for line in f]
    return proc, {r["id"]: r for r in rows}


def reference_bundle(tmp):
    subprocess.run([sys.executable, os.path.join(ROOT, "kernels", "reference", "make_bundle.py"),
                    tmp], check=True, capture_output=True)
    return tmp


def inductor_bundle(tmp):
    if os.environ.get("MINE_INDUCTOR_BUNDLE"):
        return os.environ["MINE_INDUCTOR_BUNDLE"]
    subprocess.run([sys.executable, os.path.join(HARNESS, "bundle_from_inductor.py"),
                    INDUCTOR, tmp], check=True, capture_output=True)
    return tmp


@unittest.skipUnless(HAVE_TRITON, "triton is not installed: real-Triton harness tests skipped")
class RealTritonCompile(unittest.TestCase):
    def test_reference_bundle_compiles_for_sm90(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc, rows = run(reference_bundle(tmp), "--stage", "compile", "--arch", "sm_90",
                             "--jobs", "4")
        self.assertEqual(len(rows), 7, proc.stderr[-2000:])
        for r in rows.values():
            self.assertEqual(r["status"], "ok", r["message"])
            self.assertGreater(r["compile_ms"], 0)


@unittest.skipUnless(HAVE_GPU, "no GPU (nvidia-smi) or no triton: GPU harness tests skipped")
class RealGpu(unittest.TestCase):
    def test_reference_bundle_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc, rows = run(reference_bundle(tmp), "--stage", "run", "--jobs", "7")
        self.assertEqual(len(rows), 7, proc.stderr[-2000:])
        for r in rows.values():
            self.assertEqual((r["status"], r["stage_reached"]), ("ok", "run"), r["message"])
            self.assertIsNotNone(r["n_regs"])
            self.assertIsNotNone(r["gpu_name"])

    @unittest.skipUnless(os.path.isdir(INDUCTOR) or os.environ.get("MINE_INDUCTOR_BUNDLE"),
                         "shared Inductor fixture absent")
    def test_inductor_fixture_runs(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc, rows = run(inductor_bundle(tmp), "--stage", "run", "--jobs", "16")
        self.assertEqual(len(rows), 40, proc.stderr[-2000:])
        bad = {k: r["message"][:300] for k, r in rows.items() if r["status"] != "ok"}
        self.assertEqual(bad, {})

    def test_error_classes_on_real_triton(self):
        with open(os.path.join(ROOT, "kernels", "reference", "matmul_naive.py")) as f:
            mm = f.read()
        kernels = [(i + 1, entry, src, SIG) for i, (entry, src, _) in enumerate(BAD.values())]
        # 256x256x128 fp32 tiles over 4 stages need far more than 228 KiB of shared memory.
        big = {"signature": {"a_ptr": "*fp32", "b_ptr": "*fp32", "c_ptr": "*fp32"},
               "constexprs": {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 128},
               "options": {"num_stages": 4}, "grid": [1, 1, 1]}
        sig = dict(big["signature"], **{n: "i32" for n in (
            "M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm",
            "stride_cn")})
        kernels.append((len(kernels) + 1, "matmul_kernel", mm, dict(big, signature=sig)))
        want = list(BAD) + ["resource_limit"]
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, kernels)
            # The shared-memory retry compiles the big matmul twice (num_stages=1 overflows too).
            proc, rows = run(tmp, "--stage", "run", "--jobs", "4", "--timeout", "90")
        got = {want[i - 1]: (rows[i]["error_class"], rows[i]["stage_reached"],
                             rows[i]["message"][:500]) for i in rows}
        for cls in want:
            with self.subTest(cls=cls):
                self.assertEqual(got[cls][0], cls, got[cls])

    def test_tuple_and_descriptor_arguments_run(self):
        tuples = HDR + """
@triton.jit
def k(x_ptr, strides, ptrs, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(ptrs[0] + offs * strides[1], mask=offs < n)
    tl.store(x_ptr + offs * strides[0], v + 1.0, mask=offs < n)
"""
        tma = HDR + """
@triton.jit
def k(a_desc, c_desc, BM: tl.constexpr, BN: tl.constexpr):
    a = a_desc.load([tl.program_id(0) * BM, 0])
    c_desc.store([tl.program_id(0) * BM, 0], a * 2)
"""
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [
                (1, "k", tuples, {"signature": {"x_ptr": "*fp32", "strides": "(i32,i32)", "ptrs": "(*fp32)",
                                                "n": "i32"}, "constexprs": {"BLOCK": 64}}),
                (2, "k", tma, {"signature": {"a_desc": "tensordesc<fp16[64, 32]>", "c_desc": "tensordesc<fp16[64, 32]>"},
                               "constexprs": {"BM": 64, "BN": 32}, "grid": [2, 1, 1]})])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        for i in (1, 2):
            self.assertEqual(rows[i]["status"], "ok", rows[i]["message"])

    def test_reads_past_a_buffer_pass_and_writes_there_grow_it(self):
        sized = dict(SIG, args={"n": 1024})
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", READ_PAST, sized), (2, "k", WRITE_PAST, sized)])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        self.assertNotIn("grown", rows[1])
        # The write lands in the guard zone; the buffer's size was a stand-in, so it grows and the
        # kernel runs again, and the row keeps what the first run found.
        self.assertEqual(rows[2]["status"], "ok", rows[2]["message"])
        self.assertEqual(rows[2]["grown"], {"x_ptr": 16})
        self.assertIn("wrote past the end of 'x_ptr'", rows[2]["first_try"]["message"])

    def test_a_launched_stride_of_one_is_a_constant_as_triton_launches_it(self):
        # make_tensor_descriptor needs to know its last stride is 1 when it compiles; Triton's
        # launcher compiles an integer argument equal to 1 in as a constant, and so does the check.
        desc = HDR + """
@triton.jit
def k(x_ptr, M, K, stride_m, stride_k, BM: tl.constexpr, BK: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, shape=[M, K], strides=[stride_m, stride_k], block_shape=[BM, BK])
    v = d.load([tl.program_id(0) * BM, 0])
    d.store([tl.program_id(0) * BM, 0], v + 1)
"""
        sig = {"signature": {"x_ptr": "*fp32", "M": "i32", "K": "i32", "stride_m": "i32", "stride_k": "i32"},
               "constexprs": {"BM": 32, "BK": 32}, "args": {"M": 64, "K": 32, "stride_m": 32, "stride_k": 1},
               "grid": [2, 1, 1]}
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", desc, sig)])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        self.assertEqual(rows[1]["constexprs"]["stride_k"], 1)

    def test_indices_read_past_an_integer_buffer_are_zeros_and_writes_there_are_seen(self):
        index_past = HDR + """
@triton.jit
def k(x_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    i = tl.load(idx_ptr + 4 * n * n + offs)
    tl.store(x_ptr + i, tl.full([BLOCK], 1.0, tl.float32))
"""
        int_write_past = HDR + """
@triton.jit
def k(x_ptr, idx_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(idx_ptr + 4 * n * n + offs, tl.full([BLOCK], 7, tl.int32))
"""
        sig = {"signature": {"x_ptr": "*fp32", "idx_ptr": "*i32", "n": "i32"}, "constexprs": {"BLOCK": 256},
               "args": {"n": 1024}}
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", index_past, sig), (2, "k", int_write_past, sig)])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        self.assertNotIn("first_try", rows[1])
        self.assertIn("wrote past the end of 'idx_ptr'", rows[2]["first_try"]["message"])

    def test_pointer_tables_hold_addresses_the_kernel_may_write_through(self):
        peer_copy = HDR + """
@triton.jit
def k(x_ptr, peer_ptrs, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    dst = tl.load(peer_ptrs + 1).to(tl.pointer_type(tl.float32))
    tl.store(dst + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
"""
        sig = {"signature": {"x_ptr": "*fp32", "peer_ptrs": "*i64", "n": "i32"}, "constexprs": {"BLOCK": 256},
               "args": {"n": 1024}}
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", peer_copy, dict(sig, pointer_tables=["peer_ptrs"])), (2, "k", peer_copy, sig)])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        # Without the fact, the table holds zeros and the store goes to address 0.
        self.assertNotEqual(rows[2]["status"], "ok")

    def test_an_integer_address_is_handed_a_buffer_of_its_elements(self):
        raw = HDR + """
@triton.jit
def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):
    a_ptr = a_ptr.to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""
        sig = {"signature": {"a_ptr": "i64", "out_ptr": "*fp32", "n": "i32"}, "constexprs": {"BLOCK": 256},
               "args": {"n": 1024}}
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", raw, dict(sig, addresses={"a_ptr": "fp32"})),
                               (2, "k", raw, dict(sig, args={"n": 1024, "a_ptr": 32}))])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        # Without the fact, the kernel reads at address 32.
        self.assertNotEqual(rows[2]["status"], "ok")

    def test_a_gluon_layout_the_launcher_builds_is_built_for_the_kernel(self):
        gluon_copy = """import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.jit
def k(in_ptr, out_ptr, n, XBLOCK: gl.constexpr, layout: gl.constexpr):
    offs = gl.program_id(0) * XBLOCK + gl.arange(0, XBLOCK, layout=layout)
    gl.store(out_ptr + offs, gl.load(in_ptr + offs, mask=offs < n), mask=offs < n)
"""
        sig = {"signature": {"in_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}, "args": {"n": 1024},
               "options": {"num_warps": 4}, "grid": [8, 1, 1]}
        layout = "$gluon:BlockedLayout([1], [32], [4], [0])"
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", gluon_copy, dict(sig, constexprs={"XBLOCK": 128, "layout": layout})),
                               (2, "k", gluon_copy, dict(sig, constexprs={"XBLOCK": 128, "layout": 128}))])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        # An integer guess is no layout.
        self.assertNotEqual(rows[2]["status"], "ok")

    def test_each_pointer_table_leads_to_its_own_buffer(self):
        # Symmetric memory: one table of peers' data buffers, one of their signal pads. Data
        # written through the first must not show in the slots read through the second (a kernel
        # spinning on such a slot never ends); here a slot holding data faults at once instead.
        two_tables = HDR + """
@triton.jit
def k(x_ptr, data_ptrs, signal_ptrs, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    data = tl.load(data_ptrs).to(tl.pointer_type(tl.float32))
    tl.store(data + offs, tl.full([BLOCK], 7.0, tl.float32))
    tl.debug_barrier()
    signal = tl.load(signal_ptrs).to(tl.pointer_type(tl.float32))
    seen = tl.load(signal + offs, volatile=True)
    far = tl.where(seen != 0.0, 1 << 40, 0).to(tl.int64)
    tl.store(x_ptr + far + offs, seen)
"""
        sig = {"signature": {"x_ptr": "*fp32", "data_ptrs": "*i64", "signal_ptrs": "*i64"},
               "constexprs": {"BLOCK": 256}, "pointer_tables": ["data_ptrs", "signal_ptrs"]}
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", two_tables, sig)])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])

    def test_a_class_of_jitted_helpers_read_as_a_global_runs_with_the_knob_for_that_kernel(self):
        class_global = HDR + """
class Ops:
    @staticmethod
    @triton.jit
    def double(x):
        return x * 2


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, Ops.double(tl.load(x_ptr + offs, mask=offs < n)), mask=offs < n)
"""
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "k", class_global, dict(SIG, args={"n": 1024}))])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1")
        self.assertEqual(rows[1]["status"], "ok", rows[1]["message"])
        self.assertIn("Cannot access global variable Ops", rows[1]["unported"]["message"])
        self.assertEqual([r["move"] for r in rows[1]["port"]["rewrites"]], ["global.object"])

    def test_cuda_errors_and_memory_are_contained(self):
        with tempfile.TemporaryDirectory() as tmp:
            write_bundle(tmp, [(1, "far", STORE_FAR, SIG), (2, "k", FINE, SIG),
                               (3, "k", HOG, SIG), (4, "k", FINE, SIG)])
            proc, rows = run(tmp, "--stage", "run", "--jobs", "1", "--mem-limit-mb", "8192")
        self.assertEqual(rows[1]["error_class"], "illegal_address", rows[1]["message"])
        # 4 TiB away is past any grown buffer: the second try, on a fresh worker, faults too.
        self.assertEqual(rows[1]["grown_retry"]["error_class"], "illegal_address", rows[1]["grown_retry"])
        # The same slot goes on with a fresh worker: the poisoned CUDA context is gone.
        self.assertEqual(rows[2]["status"], "ok", rows[2]["message"])
        self.assertNotEqual(rows[1]["worker_pid"], rows[2]["worker_pid"])
        # RLIMIT_DATA stops a 64 GiB allocation yet leaves CUDA's address space reservations be.
        self.assertEqual(rows[3]["error_class"], "resource_limit", rows[3]["message"])
        self.assertEqual(rows[4]["status"], "ok", rows[4]["message"])


if __name__ == "__main__":
    unittest.main()
