import unittest

from util import HARNESS  # noqa: F401
import launch
import worker
from launch import MISSING, plan

INDUCTOR_PERSISTENT = """
def k(in_out_ptr0, in_ptr0, xnumel, r0_numel, XBLOCK : tl.constexpr):
    xnumel = 128
    r0_numel = 128
    R0_BLOCK: tl.constexpr = 128
"""

INDUCTOR_2D = """
def k(in_ptr0, out_ptr0, ynumel, xnumel, YBLOCK : tl.constexpr, XBLOCK : tl.constexpr):
    ynumel = 262144
    xnumel = 9
"""


def params(*names, constexprs=()):
    return [(n, n in constexprs, MISSING) for n in names]


class Plan(unittest.TestCase):
    def test_inductor_persistent_reduction(self):
        spec = {"signature": {"in_out_ptr0": "*fp32", "in_ptr0": "*i64", "xnumel": "i32",
                              "r0_numel": "i32", "XBLOCK": "constexpr"}}
        p = plan(spec, params("in_out_ptr0", "in_ptr0", "xnumel", "r0_numel", "XBLOCK",
                              constexprs=("XBLOCK",)), INDUCTOR_PERSISTENT)
        # R0_BLOCK is fixed at 128 in the body, so XBLOCK keeps the tile near 2048 elements.
        self.assertEqual(p["constexprs"], {"XBLOCK": 16})
        self.assertEqual(p["grid"], [8, 1, 1])
        self.assertEqual([a[1] for a in p["args"]],
                         ["tensor", "tensor", "scalar", "scalar", "constexpr"])
        self.assertEqual(p["args"][1][2][0], "int64")
        self.assertEqual(p["args"][2], ("xnumel", "scalar", 128))
        self.assertIn("XBLOCK", p["guessed"])
        self.assertNotIn("xnumel", p["guessed"])

    def test_inductor_2d_overflows_into_z(self):
        spec = {"signature": {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "ynumel": "i32",
                              "xnumel": "i32"}, "constexprs": {"YBLOCK": 2, "XBLOCK": 16}}
        p = plan(spec, params("in_ptr0", "out_ptr0", "ynumel", "xnumel", "YBLOCK", "XBLOCK",
                              constexprs=("YBLOCK", "XBLOCK")), INDUCTOR_2D)
        # 262144/2 = 131072 y-blocks do not fit CUDA's 65535 limit on grid axis 1.
        self.assertEqual(p["grid"], [1, 65535, 3])  # 2 full rows of 65535 + a partial one
        self.assertEqual(p["guessed"], [])

    def test_generic_block_and_defaults(self):
        spec = {"signature": {"x_ptr": "*fp16", "y_ptr": "*fp16", "n_elements": "i32",
                              "eps": "fp32", "stride_x": "i32"},
                "numels": {"n_elements": 10000}}
        ps = params("x_ptr", "y_ptr", "n_elements", "eps", "stride_x", "BLOCK_SIZE",
                    constexprs=("BLOCK_SIZE",))
        p = plan(spec, ps)
        self.assertEqual(p["constexprs"], {"BLOCK_SIZE": 1024})
        self.assertEqual(p["grid"], [10, 1, 1])
        values = {a[0]: a[2] for a in p["args"]}
        self.assertEqual(values["eps"], 1e-5)
        self.assertEqual(values["stride_x"], 1)
        self.assertEqual(values["x_ptr"][0], "float16")
        self.assertGreaterEqual(values["x_ptr"][1], 4 * 10000)

    def test_python_default_beats_guess(self):
        ps = [("x_ptr", False, MISSING), ("BLOCK", True, 256), ("ACT", True, MISSING)]
        p = plan({"signature": {"x_ptr": "*fp32"}}, ps)
        self.assertEqual(p["constexprs"], {"BLOCK": 256, "ACT": 1})
        self.assertEqual(p["guessed"], ["ACT"])

    def test_matmul_blocks_and_explicit_grid(self):
        names = ("a", "b", "c", "M", "N", "K", "BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M")
        ps = params(*names, constexprs=names[6:])
        spec = {"signature": {"a": "*fp16", "b": "*fp16", "c": "*fp16", "M": "i32", "N": "i32",
                              "K": "i32"}, "args": {"M": 256, "N": 256, "K": 256},
                "grid": [16, 1, 1]}
        p = plan(spec, ps)
        self.assertEqual(p["constexprs"],
                         {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64, "GROUP_M": 8})
        self.assertEqual(p["grid"], [16, 1, 1])
        self.assertNotIn("M", p["guessed"])

    def test_a_stand_in_grid_past_cudas_limits_is_cut_to_them(self):
        # `(cdiv(N, BLOCK_M), Z * H)` with Z read as the numel of an offsets tensor given rank 3:
        # 1,048,544 blocks on y, which CUDA refuses ('invalid argument') whatever the kernel.
        spec = {"signature": {"x": "*fp32"}, "grid": [1, 1048544, 70000]}
        self.assertEqual(plan(spec, params("x"))["grid"], [1, 65535, 65535])

    def test_sizes_a_launcher_leaves_open_stay_near_its_tensors(self):
        # log_softmax_backward-style: M, N, K computed in a loop over the shape; the launched
        # tensors have the launcher's nominal sizes, so open sizes are nominal too, not 1024 each.
        names = ("out", "grad", "M", "N", "K")
        spec = {"signature": {"out": "*fp32", "grad": "*fp32", "M": "i32", "N": "i32", "K": "i32"},
                "tensors": {"out": {"shape": [32], "dtype": "fp32"}}}
        values = {a[0]: a[2] for a in plan(dict(spec, launch={"id": 1}), params(*names))["args"]}
        self.assertEqual((values["M"], values["N"], values["K"]), (32, 32, 32))
        values = {a[0]: a[2] for a in plan(spec, params(*names))["args"]}
        self.assertEqual(values["M"], launch.DEFAULT_INT)  # no launch: the old guess

    def test_errors_name_the_parameter(self):
        with self.assertRaisesRegex(ValueError, "'n'"):
            plan({"signature": {"x": "*fp32"}}, params("x", "n"))
        with self.assertRaisesRegex(ValueError, "does not have: y"):
            plan({"signature": {"x": "*fp32", "y": "i32"}}, params("x"))
        with self.assertRaisesRegex(ValueError, "unknown pointer type"):
            plan({"signature": {"x": "*weird"}}, params("x"))

    def test_descriptor_parameters_carry_type_and_block(self):
        p = plan({"signature": {"a_desc": "tensordesc<fp8e4nv[64, 128]>", "c": "*fp16", "M": "i32"},
                  "constexprs": {"BM": 64}}, params("a_desc", "c", "M", "BM", constexprs=("BM",)))
        kinds = {name: (kind, detail) for name, kind, detail in p["args"]}
        self.assertEqual(kinds["a_desc"], ("descriptor", ("float8_e4m3fn", [64, 128])))
        self.assertEqual(kinds["c"][0], "tensor")
        self.assertEqual([n for n, _, _ in p["args"]], ["a_desc", "c", "M", "BM"])
        # Two blocks per dimension, never under 16 elements (16-byte rows for TMA).
        self.assertEqual(launch.descriptor_shape([64, 8]), [128, 16])
        with self.assertRaisesRegex(ValueError, "unknown descriptor type .* for 'a_desc'"):
            plan({"signature": {"a_desc": "tensordesc<fp16>"}}, params("a_desc"))

    def test_addresses_are_buffers_handed_by_address(self):
        # `a_ptr.to(tl.pointer_type(tl.float32))` of an integer: a buffer of fp32, sized as a
        # tensor would be (its launcher's shape included), in the parameter's place.
        spec = {"signature": {"a_ptr": "i64", "c": "*fp16", "n": "i32"}, "addresses": {"a_ptr": "fp32"},
                "tensors": {"a_ptr": {"shape": [4096, 1024], "dtype": "fp32"}}, "args": {"n": 64}}
        p = plan(spec, params("a_ptr", "c", "n"))
        self.assertEqual([n for n, _, _ in p["args"]], ["a_ptr", "c", "n"])
        kind, (dtype, n) = p["args"][0][1], p["args"][0][2]
        self.assertEqual((kind, dtype), ("address", "float32"))
        self.assertEqual(n, 4096 * 1024)
        self.assertEqual(p["args"][1][1], "tensor")
        with self.assertRaisesRegex(ValueError, "unknown address element type .* for 'a_ptr'"):
            plan(dict(spec, addresses={"a_ptr": "weird"}), params("a_ptr", "c", "n"))

    def test_only_gluon_layout_texts_are_layouts(self):
        # Anything else passes through as it was (a string constexpr, a dtype name, a number).
        for value in ("relu", "tl.float16", 128, "$gluon:os.system('x')", "$gluon:BlockedLayout"):
            self.assertIsNone(worker.gluon_layout(value))

    def test_tuple_parameters(self):
        p = plan({"signature": {"x": "*fp32", "stride_q": "(i32,i32,i32)", "ptrs": "(*fp16,*fp16)"},
                  "args": {"stride_q": [64, 8, 1]}}, params("x", "stride_q", "ptrs"))
        kinds = {name: (kind, detail) for name, kind, detail in p["args"]}
        self.assertEqual(kinds["stride_q"], ("tuple", [("scalar", 64), ("scalar", 8), ("scalar", 1)]))
        self.assertEqual([k for k, _ in kinds["ptrs"][1]], ["tensor", "tensor"])
        self.assertEqual(kinds["ptrs"][1][0][1][0], "float16")
        self.assertEqual(launch.signature_for_triton({"a": "(i32,i32)", "b": "*fp32"}),
                         {"a": ("i32", "i32"), "b": "*fp32"})
        with self.assertRaisesRegex(ValueError, "unknown tuple type .* for 'ptrs'"):
            plan({"signature": {"ptrs": "(*weird)"}}, params("ptrs"))

    def test_dot_partner_type(self):
        self.assertEqual(launch.dot_partner_type("... Both operands must be same dtype. Got fp32 and bf16"), "bf16")
        self.assertEqual(launch.dot_partner_type("Both operands must be same dtype. Got fp16 and fp32"), "fp16")
        self.assertEqual(launch.dot_partner_type(
            "Loop-carried variable acc has initial type <['128', '128'], fp16> but is re-assigned to "
            "<['128', '128'], fp32> in loop!"), "fp16")
        self.assertIsNone(launch.dot_partner_type(
            "Loop-carried variable i has initial type int32 but is re-assigned to int64 in loop!"))
        self.assertIsNone(launch.dot_partner_type("Both operands must be same dtype. Got fp16 and bf16"))
        self.assertIsNone(launch.dot_partner_type("Both operands must be same dtype. Got i8 and fp32"))
        self.assertIsNone(launch.dot_partner_type("out of resource: shared memory"))
        # values of a half type stored through a block pointer assumed fp32
        self.assertEqual(launch.dot_partner_type("Block element type(fp32) and value element type(fp16) mismatch"),
                         "fp16")
        self.assertIsNone(launch.dot_partner_type("Block element type(fp16) and value element type(fp32) mismatch"))
        # an fp8 operand made in the kernel, the other loaded from a pointer assumed fp32
        self.assertEqual(launch.dot_partner_type("accumulator += tl.dot(a, b)\nUnsupported lhs dtype fp8e4nv"),
                         "fp8e4nv")

    def test_buffer_bounds(self):
        self.assertEqual(launch.buffer_elems({}, []), launch.MIN_BUFFER_ELEMS)
        self.assertEqual(launch.buffer_elems({"xnumel": 1 << 30}, []), launch.MAX_BUFFER_ELEMS)
        self.assertEqual(launch.numels_from_source(INDUCTOR_2D), {"ynumel": 262144, "xnumel": 9})


if __name__ == "__main__":
    unittest.main()


class OnesAsConstants(unittest.TestCase):
    """Triton's launcher compiles an integer argument equal to 1 in as the constexpr 1; the check
    makes the same decision, except where the kernel says do_not_specialize."""

    SPEC = {"signature": {"x": "*fp32", "n": "i32", "stride_row": "i32", "stride_col": "i32",
                          "flag": "i1", "scale": "fp32", "BLOCK": "constexpr"},
            "args": {"n": 1024, "stride_row": 64, "stride_col": 1, "flag": 1, "scale": 1.0},
            "constexprs": {"BLOCK": 64}}

    def planned(self, spec, unspecialized=()):
        import specialize
        p = plan(spec, params(*spec["signature"], constexprs=("BLOCK",)))
        return specialize.ones_as_constants(p, spec, unspecialized)

    def test_an_integer_one_becomes_a_constexpr(self):
        p = self.planned(self.SPEC)
        self.assertEqual(p["signature"]["stride_col"], "constexpr")
        self.assertEqual(p["constexprs"]["stride_col"], 1)
        self.assertIn(("stride_col", "constexpr", 1), p["args"])
        # Other values, booleans and floats keep their types.
        self.assertEqual((p["signature"]["n"], p["signature"]["stride_row"]), ("i32", "i32"))
        self.assertEqual((p["signature"]["flag"], p["signature"]["scale"]), ("i1", "fp32"))
        self.assertEqual([a[0] for a in p["args"]], list(self.SPEC["signature"]))

    def test_a_guessed_one_stays_a_scalar(self):
        spec = dict(self.SPEC, signature=dict(self.SPEC["signature"], stride_guessed="i32"))
        p = self.planned(spec)
        self.assertIn("stride_guessed", p["guessed"])
        self.assertIn(("stride_guessed", "scalar", 1), p["args"])
        self.assertEqual(p["signature"]["stride_col"], "constexpr")

    def test_a_parameter_the_kernel_converts_is_no_one_its_launches_give(self):
        import specialize
        src = "def k(x, stride_col, n):\n    off = stride_col.to(tl.int64) * n + x.dtype.to(1)\n    y = tl.x.to(1)\n"
        self.assertEqual(specialize.converted_names(src), {"stride_col"})
        p = self.planned(self.SPEC, specialize.converted_names(src))
        self.assertIn(("stride_col", "scalar", 1), p["args"])

    def test_do_not_specialize_and_inductor_kernels_keep_the_scalar(self):
        p = self.planned(self.SPEC, {"stride_col"})
        self.assertEqual(p["signature"]["stride_col"], "i32")
        p = self.planned(dict(self.SPEC, plugin="inductor"))
        self.assertEqual(p["signature"]["stride_col"], "i32")
        self.assertIn(("stride_col", "scalar", 1), p["args"])
