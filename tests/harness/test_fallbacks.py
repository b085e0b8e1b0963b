"""What the harness does about guesses and imports that are not the kernel's fault:
dtype constexprs that travel as text, guessed block sizes too big for Triton, and standalones
whose import fails while the kernel itself compiles (checked through the kernel-only module)."""
import os
import tempfile
import unittest

from util import run_standin, write_bundle

HDR = "import triton\nimport triton.language as tl\n"

DTYPE_KERNEL = HDR + '''
@triton.jit
def k(x_ptr, X_DTYPE: tl.constexpr):
    if not isinstance(X_DTYPE, tl.dtype) or X_DTYPE.name != "fp16":
        raise TypeError("X_DTYPE is %r, not tl.float16" % (X_DTYPE,))
'''

# A constexpr the kernel calls travels as "$jit:first/N" and arrives as a jitted function of N
# parameters that returns its first; "$jit:first/N/R" returns R of them in turn, for a kernel that
# unpacks the result (`dg, du = COMPUTE_FN(g, u, dy)`).
CALLED_KERNEL = HDR + '''
@triton.jit
def k(x_ptr, ACT: tl.constexpr, PAIR: tl.constexpr, SPLIT: tl.constexpr):
    if not hasattr(ACT, "fn") or ACT.fn(7) != 7 or PAIR.fn(3, 4) != 3 or SPLIT.fn(3, 4, 5) != (3, 4):
        raise TypeError("ACT is %r, PAIR is %r, SPLIT is %r" % (ACT, PAIR, SPLIT))
'''

# Triton refuses blocks over 2**20 elements; the stand-in body raises its message.
BIG_KERNEL = HDR + '''
@triton.jit
def k(x_ptr, BLOCK_A: tl.constexpr, BLOCK_B: tl.constexpr, BLOCK_C: tl.constexpr):
    n = BLOCK_A * BLOCK_B * BLOCK_C
    if n > 1048576:
        raise ValueError("numel (%d) exceeds triton maximum tensor numel (1048576)" % n)
'''

STATED_BIG = HDR + '''
@triton.jit
def k(x_ptr, BLOCK_A: tl.constexpr):
    raise ValueError("numel (%d) exceeds triton maximum tensor numel (1048576)" % BLOCK_A)
'''

RUNTIME_PROBE = HDR + '''
def probe_vendor():
    raise RuntimeError("No device were detected on your machine")

VENDOR = probe_vendor()

def libentry():
    return lambda f: f

@libentry()
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    pass
'''

KERNEL_ONLY = HDR + '''
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    pass
'''

BROKEN_BODY_ONLY = HDR + '''
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    undefined_helper(x_ptr)
'''

KERNEL_ONLY_IMPORT_FAILS = HDR + "raise RuntimeError('the kernel-only module fails to import')\n"

# ptxas refusing an instruction the target lacks: a kernel written for a newer GPU.
# Written for Blackwell: ptxas refuses its fp4 conversion on sm_90a and takes it on sm_100a. The
# second refuses every target: its failure stands.
NEWER_GPU = HDR + """
import triton.compiler
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    if triton.compiler.current_target.arch < 100:
        raise RuntimeError("ptxas /tmp/k.ptx, line 12; error   : Instruction 'cvt with .e2m1x2' not supported on .target 'sm_90a'")
"""
NEWER_GPU_BROKEN = HDR + """
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    raise RuntimeError("ptxas /tmp/k.ptx, line 12; error   : Instruction 'cvt with .e2m1x2' not supported on .target 'sm_90a'")
"""

# Pipelining multiplies shared memory by num_stages; the launch's 4 stages overflow it here.
SHARED_KERNEL = HDR + '''
import triton.compiler
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    need = triton.compiler.current_options.get("num_stages", 3) * BLOCK * 1024
    if need > 232448:
        raise RuntimeError("out of resource: shared memory, Required: %d, Hardware limit: 232448" % need)
'''

# Each warp's threads share the SM's registers: ptxas refuses an instruction at 32 warps, as a
# launch tuned for Intel's GPUs asks, and compiles it at 8 or fewer.
REGISTERS_KERNEL = HDR + '''
import triton.compiler
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    warps = triton.compiler.current_options.get("num_warps", 4)
    if warps > 8:
        raise RuntimeError("PTXAS error: ptxas fatal   : (C7602) Insufficient registers (%d) to compile instruction"
                           % (65536 // (32 * warps)))
'''

# Triton dots one type: the stand-in raises its message when the two pointers differ.
DOT_KERNEL = HDR + '''
import triton.compiler
@triton.jit
def k(a_ptr, b_ptr, BLOCK: tl.constexpr):
    sig = triton.compiler.current_signature
    if sig["a_ptr"] != sig["b_ptr"]:
        raise ValueError("Both operands must be same dtype. Got %s and %s" % (sig["a_ptr"][1:], sig["b_ptr"][1:]))
'''

# Tiles sized for half precision: even one stage overflows with the 4-byte elements the check
# assumed for a tensor the launcher takes from its caller.
WIDE_KERNEL = HDR + '''
import triton.compiler
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    width = 4 if triton.compiler.current_signature["x_ptr"] == "*fp32" else 2
    need = triton.compiler.current_options.get("num_stages", 3) * BLOCK * 512 * width
    if need > 232448:
        raise RuntimeError("out of resource: shared memory, Required: %d, Hardware limit: 232448" % need)
'''

# As WIDE_KERNEL, storing through x_ptr a value cast to DTYPE, which must be x_ptr's type.
WIDE_DTYPE_KERNEL = HDR + '''
import triton.compiler
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr, DTYPE: tl.constexpr):
    pointer = triton.compiler.current_signature["x_ptr"]
    width = 4 if pointer == "*fp32" else 2
    need = triton.compiler.current_options.get("num_stages", 3) * BLOCK * 512 * width
    if need > 232448:
        raise RuntimeError("out of resource: shared memory, Required: %d, Hardware limit: 232448" % need)
    if DTYPE.name != pointer[1:]:
        raise ValueError("Block element type(%s) and value element type(%s) mismatch" % (pointer[1:], DTYPE.name))
'''

# Written for HEAD_DIM == BLOCK_N (a mask of the wrong orientation): other sizes do not broadcast.
MATCHED_KERNEL = HDR + '''
@triton.jit
def k(x_ptr, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr):
    if HEAD_DIM != BLOCK_N:
        raise ValueError("Cannot make_shape_compatible: incompatible dimensions at index 1: %d and %d" % (HEAD_DIM, BLOCK_N))
'''

# A weight block of the launch's literal sizes dotted with rows as wide as a stand-in size: the
# kernel was written for D == W0; Triton's message names no sizes.
REDUCTION_KERNEL = HDR + '''
@triton.jit
def k(x_ptr, D: tl.constexpr, W0: tl.constexpr, W1: tl.constexpr, ROWS: tl.constexpr):
    if D != W0:
        raise AssertionError("input and other must have equal reduction dimensions")
'''

SIG = {"signature": {"x_ptr": "*fp32"}}
DOT_SIG = {"signature": {"a_ptr": "*fp32", "b_ptr": "*fp16"}, "constexprs": {"BLOCK": 64}}


# A kernel whose file imports a helper library this machine lacks, and a module Triton no longer
# has (as triton.ops on Triton 3.2 and later) for an autotuner's perf model it never calls here.
LIBRARY_IMPORTS = HDR + """from mine_absent_lib.ops import gelu
from triton.mine_gone.perf_model import early_config_prune


@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    if BLOCK != 64:
        raise TypeError("BLOCK is %r" % BLOCK)
"""

class Fallbacks(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        bundle = os.path.join(cls.tmp.name, "bundle")
        os.makedirs(bundle)
        big = dict(SIG, constexprs={"BLOCK_A": 128, "BLOCK_B": 128, "BLOCK_C": 128},
                   guessed=["BLOCK_A", "BLOCK_B", "BLOCK_C"])
        kernels = [
            (1, "k", DTYPE_KERNEL, dict(SIG, constexprs={"X_DTYPE": "tl.float16"})),
            (2, "k", BIG_KERNEL, big),
            (3, "k", STATED_BIG, dict(SIG, constexprs={"BLOCK_A": 4096})),  # not guessed: no retry
            (4, "k", RUNTIME_PROBE, dict(SIG, constexprs={"BLOCK": 64}, kernel_only_module="k4_kernel.py")),
            (5, "k", RUNTIME_PROBE, dict(SIG, constexprs={"BLOCK": 64})),  # no kernel-only module
            (6, "k", RUNTIME_PROBE, dict(SIG, constexprs={"BLOCK": 64}, kernel_only_module="k6_kernel.py")),
            (7, "k", SHARED_KERNEL, dict(SIG, constexprs={"BLOCK": 128}, options={"num_stages": 4})),
            # As 5, in a bundle entry that says the kernel is written for another accelerator.
            (8, "k", RUNTIME_PROBE, dict(SIG, constexprs={"BLOCK": 64},
                                         target={"backend": "ascend", "evidence": "in the folder _ascend/"})),
            (9, "k", DOT_KERNEL, dict(DOT_SIG, guessed=["a_ptr"])),  # a_ptr's fp32 was assumed
            (10, "k", DOT_KERNEL, dict(DOT_SIG, guessed=[])),  # stated: the error stands
            # A launch tensor the launcher takes from its caller: typed, not guessed, yet assumed fp32.
            (11, "k", DOT_KERNEL, dict(DOT_SIG, guessed=[], assumed_fp32=["a_ptr"])),
            (12, "k", CALLED_KERNEL, dict(SIG, constexprs={"ACT": "$jit:first/1", "PAIR": "$jit:first/2",
                                                           "SPLIT": "$jit:first/3/2"})),
            (13, "k", LIBRARY_IMPORTS, dict(SIG, constexprs={"BLOCK": 64})),
            (14, "k", RUNTIME_PROBE, dict(SIG, constexprs={"BLOCK": 64}, kernel_only_module="k14_kernel.py")),
            (15, "k", NEWER_GPU, dict(SIG, constexprs={"BLOCK": 64})),
            (16, "k", NEWER_GPU_BROKEN, dict(SIG, constexprs={"BLOCK": 64})),
            (17, "k", WIDE_KERNEL, dict(SIG, constexprs={"BLOCK": 128}, options={"num_stages": 2},
                                        guessed=[], assumed_fp32=["x_ptr"])),
            (18, "k", WIDE_KERNEL, dict(SIG, constexprs={"BLOCK": 128}, options={"num_stages": 2}, guessed=[])),
            # DTYPE at its fp32 default because the launch hands the caller's type: assumed too.
            (19, "k", WIDE_DTYPE_KERNEL, dict(SIG, constexprs={"BLOCK": 128, "DTYPE": "tl.float32"},
                                              options={"num_stages": 2}, guessed=[],
                                              assumed_fp32=["x_ptr", "DTYPE"])),
            # DTYPE stated: it stays, and the store's mismatch is reported.
            (20, "k", WIDE_DTYPE_KERNEL, dict(SIG, constexprs={"BLOCK": 128, "DTYPE": "tl.float32"},
                                              options={"num_stages": 2}, guessed=[],
                                              assumed_fp32=["x_ptr"])),
            # HEAD_DIM follows from the stand-in sizes; BLOCK_N is the launch's literal.
            (21, "k", MATCHED_KERNEL, dict(SIG, constexprs={"HEAD_DIM": 32, "BLOCK_N": 64}, nominal=["HEAD_DIM"])),
            (22, "k", MATCHED_KERNEL, dict(SIG, constexprs={"HEAD_DIM": 32, "BLOCK_N": 64})),  # both stated
            # D is a stand-in; the nearest stated block size to its 32 other than 32 is 64.
            (23, "k", REDUCTION_KERNEL, dict(SIG, constexprs={"D": 32, "W0": 64, "W1": 32, "ROWS": 256},
                                             nominal=["D"])),
            (24, "k", REDUCTION_KERNEL, dict(SIG, constexprs={"D": 32, "W0": 64, "W1": 32, "ROWS": 256})),
            (25, "k", REGISTERS_KERNEL, dict(SIG, constexprs={"BLOCK": 64}, options={"num_warps": 32})),
        ]
        write_bundle(bundle, kernels)
        for kid, text in ((4, KERNEL_ONLY), (6, BROKEN_BODY_ONLY), (14, KERNEL_ONLY_IMPORT_FAILS)):
            with open(os.path.join(bundle, "k%d_kernel.py" % kid), "w") as f:
                f.write(text)
        cls.proc, cls.rows = run_standin(bundle, os.path.join(cls.tmp.name, "out.jsonl"),
                                         "--stage", "compile", "--jobs", "2", "--timeout", "30")
        cls.import_only_proc, cls.import_rows = run_standin(
            bundle, os.path.join(cls.tmp.name, "import.jsonl"), "--stage", "import", "--jobs", "1")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_all_kernels_reported(self):
        self.assertEqual(sorted(self.rows), list(range(1, 26)), self.proc.stderr[-2000:])

    def test_results_of_other_targets_name_the_target(self):
        self.assertEqual(self.rows[8]["target"], "ascend")
        self.assertEqual(self.rows[8]["status"], "fail")  # still checked, and still failing here
        self.assertNotIn("target", self.rows[5])

    def test_assumed_fp32_pointers_take_the_half_type_a_dot_names(self):
        r = self.rows[9]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["retyped"], {"a_ptr": "*fp16"})
        r = self.rows[10]
        self.assertEqual(r["status"], "fail")
        self.assertIn("Both operands must be same dtype", r["message"])
        self.assertNotIn("retyped", r)
        self.assertEqual(self.rows[11]["retyped"], {"a_ptr": "*fp16"})

    def test_imports_of_libraries_this_machine_lacks_wait_for_their_first_use(self):
        r = self.rows[13]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["deferred_imports"], ["mine_absent_lib", "mine_absent_lib.ops",
                                                 "triton.mine_gone", "triton.mine_gone.perf_model"])
        self.assertNotIn("module_checked", r)  # the standalone itself imported

    def test_called_constexpr_becomes_a_function_returning_its_first_argument(self):
        self.assertEqual(self.rows[12]["status"], "ok", self.rows[12]["message"])

    def test_dtype_text_becomes_a_triton_dtype(self):
        self.assertEqual(self.rows[1]["status"], "ok", self.rows[1]["message"])

    def test_guessed_blocks_are_halved_until_they_fit(self):
        r = self.rows[2]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["shrunk"], 1)
        self.assertEqual(r["constexprs"], {"BLOCK_A": 64, "BLOCK_B": 64, "BLOCK_C": 64})

    def test_shared_memory_overflow_retries_unpipelined(self):
        # The stated block stays; one stage is the same kernel without software pipelining.
        r = self.rows[7]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["num_stages"], 1)
        self.assertEqual(r["constexprs"], {"BLOCK": 128})
        self.assertNotIn("shrunk", r)

    def test_shared_memory_overflow_unpipelined_narrows_assumed_fp32_tensors(self):
        r = self.rows[17]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual((r["num_stages"], r["retyped"]), (1, {"x_ptr": "*bf16"}))
        # A stated fp32 stays: the overflow is the kernel's at that type.
        r = self.rows[18]
        self.assertEqual((r["status"], r["error_class"]), ("fail", "resource_limit"), r["message"])
        self.assertNotIn("retyped", r)

    def test_an_assumed_dtype_constexpr_moves_with_the_assumed_pointers(self):
        r = self.rows[19]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["retyped"], {"x_ptr": "*bf16", "DTYPE": "tl.bfloat16"})
        r = self.rows[20]
        self.assertEqual(r["status"], "fail")
        self.assertIn("Block element type(bf16) and value element type(fp32) mismatch", r["message"])
        self.assertEqual(r["retyped"], {"x_ptr": "*bf16"})

    def test_a_stand_in_size_takes_the_block_size_it_must_match(self):
        r = self.rows[21]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["matched_sizes"], {"HEAD_DIM": 64})
        r = self.rows[22]
        self.assertEqual((r["status"], r["error_class"]), ("fail", "type_error"), r["message"])
        self.assertNotIn("matched_sizes", r)

    def test_a_stand_in_size_takes_a_stated_size_a_dot_reduction_needs(self):
        r = self.rows[23]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["matched_sizes"], {"D": 64})
        r = self.rows[24]
        self.assertEqual((r["status"], r["error_class"]), ("fail", "type_error"), r["message"])
        self.assertNotIn("matched_sizes", r)

    def test_too_few_registers_per_thread_retries_with_fewer_warps(self):
        r = self.rows[25]
        self.assertEqual(r["status"], "ok", r["message"])
        self.assertEqual(r["num_warps"], 8)

    def test_stated_blocks_are_not_changed(self):
        r = self.rows[3]
        self.assertEqual((r["status"], r["error_class"]), ("fail", "type_error"), r["message"])
        self.assertNotIn("shrunk", r)

    def test_kernel_only_module_when_the_standalone_cannot_import(self):
        r = self.rows[4]
        self.assertEqual((r["status"], r["stage_reached"]), ("ok", "compile"), r["message"])
        self.assertEqual(r["module_checked"], "kernel_only")
        self.assertIn("No device were detected", r["standalone_import"]["message"])

    def test_without_kernel_only_module_the_import_failure_stands(self):
        r = self.rows[5]
        self.assertEqual((r["status"], r["stage_reached"]), ("fail", "import"))
        self.assertNotIn("module_checked", r)

    def test_kernel_only_module_failures_are_the_kernels_own(self):
        r = self.rows[6]
        self.assertEqual((r["status"], r["stage_reached"], r["error_class"]), ("fail", "compile", "missing_name"))
        self.assertEqual(r["module_checked"], "kernel_only")

    def test_a_kernel_only_import_failure_is_reported_as_its_own(self):
        r = self.rows[14]
        self.assertEqual((r["status"], r["stage_reached"], r["module_checked"]), ("fail", "import", "kernel_only"))
        self.assertIn("the kernel-only module fails to import", r["message"])
        self.assertNotIn("No device were detected", r["message"])  # that is standalone_import's
        self.assertIn("No device were detected", r["standalone_import"]["message"])

    def test_instructions_the_target_lacks_are_named_in_the_row(self):
        r = self.rows[16]
        self.assertEqual((r["status"], r["error_class"], r["stage_reached"]), ("fail", "unsupported_op", "compile"))
        self.assertEqual(r["unsupported_on_target"], {"target": "sm_90a", "instructions": ["cvt with .e2m1x2"]})
        self.assertNotIn("unsupported_on_target", self.rows[6])

    def test_a_kernel_for_a_newer_gpu_that_compiles_for_it_stops_at_load(self):
        r = self.rows[15]
        self.assertEqual((r["status"], r["error_class"], r["stage_reached"]), ("fail", "unsupported_op", "load"))
        self.assertEqual(r["unsupported_on_target"], {"target": "sm_90a", "instructions": ["cvt with .e2m1x2"],
                                                      "compiles_for": "sm_100a"})
        self.assertTrue(r["message"].startswith("compiles for sm_100a; a sm_90a GPU cannot load it."), r["message"])
        self.assertIn("not supported on .target 'sm_90a'", r["message"])

    def test_import_stage_never_falls_back(self):
        r = self.import_rows[4]
        self.assertEqual((r["status"], r["stage_reached"]), ("fail", "import"))
        self.assertNotIn("module_checked", r)


if __name__ == "__main__":
    unittest.main()
