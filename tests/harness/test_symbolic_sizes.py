import unittest

from util import HARNESS  # noqa: F401
import symbolic_sizes
from launch import MISSING, plan

# A dynamic-shape pointwise kernel as Inductor writes it: the sizes multiply in the offsets.
POINTWISE = """
@triton.jit
def triton_poi_fused_softmax_2(in_out_ptr0, in_ptr0, ks0, ks1, ks2, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    xmask = xindex < xnumel
    x3 = xindex
    x0 = (xindex % ks0)
    x2 = xindex // ks1
    tmp0 = tl.load(in_out_ptr0 + (x3), xmask)
    tmp1 = tl.load(in_ptr0 + (x0 + ks2*x2*ks2), xmask)
    tl.store(in_out_ptr0 + (x3), tmp0 - tmp1, xmask)
"""

# A reduction whose x mask is all True (the numel divides into blocks) and whose offset a modulo
# bounds; its indirect load (an index read from memory) cannot be bounded.
REDUCTION = """
@triton.jit
def triton_red_fused_sum_4(in_ptr0, in_ptr1, out_ptr0, ks0, xnumel, rnumel, XBLOCK : tl.constexpr, RBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK, RBLOCK], True, tl.int1)
    rbase = tl.arange(0, RBLOCK)[None, :]
    x0 = xindex
    for roffset in range(0, rnumel, RBLOCK):
        rindex = roffset + rbase
        rmask = rindex < rnumel
        r1 = rindex
        tmp0 = tl.load(in_ptr0 + (64*(((r1 + 64*ks0*x0) // 64) % (32*ks0)) + (r1 % 64)), rmask)
        tmp9 = tl.load(in_ptr1 + (x0), None)
        tmp5 = tl.load(in_ptr0 + (tmp9), None)
    tl.store(out_ptr0 + (x0), tmp0, None)
"""


class OffsetBounds(unittest.TestCase):
    def test_pointwise_offsets_grow_with_the_sizes(self):
        b = symbolic_sizes.offset_bounds(POINTWISE, "triton_poi_fused_softmax_2",
                                         {"xnumel": 1024, "ks0": 8, "ks1": 4, "ks2": 2})
        self.assertEqual(b["in_out_ptr0"], 1023)
        self.assertEqual(b["in_ptr0"], 7 + 2 * (1023 // 4) * 2)

    def test_modulo_bounds_a_reduction_and_an_indirect_load_stays_unbounded(self):
        b = symbolic_sizes.offset_bounds(REDUCTION, "triton_red_fused_sum_4",
                                         {"xnumel": 64, "rnumel": 512, "ks0": 2})
        self.assertEqual(b["out_ptr0"], 63)  # xindex runs over xnumel though its mask is all True
        self.assertEqual(b["in_ptr1"], 63)
        self.assertIsNone(b["in_ptr0"])  # `in_ptr0 + tmp9`: a value read from memory

    def test_unknown_kernel(self):
        self.assertIsNone(symbolic_sizes.offset_bounds(POINTWISE, "other", {"xnumel": 8}))


class Fit(unittest.TestCase):
    def test_numels_shrink_until_every_offset_fits(self):
        values, numels, reached = symbolic_sizes.fit(
            POINTWISE, "triton_poi_fused_softmax_2", ["ks0", "ks1", "ks2"], {"xnumel": 1 << 25}, 1 << 22)
        self.assertEqual(values, {"ks0": 16, "ks1": 16, "ks2": 16})
        # x2 * 16 * 16 reaches xnumel * 16: the first halving under 2^22 / 16.
        self.assertEqual(numels, {"xnumel": 1 << 18})
        self.assertEqual(reached["in_out_ptr0"], 1 << 18)
        self.assertEqual(reached["in_ptr0"], 15 + 16 * 16 * (((1 << 18) - 1) // 16) + 1)
        self.assertLess(max(reached.values()), 1 << 22)

    def test_nothing_to_fit(self):
        self.assertIsNone(symbolic_sizes.fit(POINTWISE, "triton_poi_fused_softmax_2", [], {"xnumel": 8}, 1 << 22))


class PlanWithSymbolicSizes(unittest.TestCase):
    def test_plan_launches_the_fitted_sizes_over_buffers_that_hold_them(self):
        names = ["in_out_ptr0", "in_ptr0", "ks0", "ks1", "ks2", "xnumel", "XBLOCK"]
        spec = {"entry": "triton_poi_fused_softmax_2",
                "signature": {"in_out_ptr0": "*fp32", "in_ptr0": "*fp32", "ks0": "i32", "ks1": "i32",
                              "ks2": "i32", "xnumel": "i32", "XBLOCK": "constexpr"},
                "constexprs": {"XBLOCK": 1024}, "numels": {"xnumel": 1 << 25}, "grid": [32768, 1, 1]}
        p = plan(spec, [(n, n == "XBLOCK", MISSING) for n in names], POINTWISE)
        args = {a[0]: a for a in p["args"]}
        self.assertEqual(args["ks1"][2], 16)
        self.assertEqual(args["xnumel"][2], 1 << 18)
        self.assertEqual(p["grid"], [(1 << 18) // 1024, 1, 1])  # the grid follows the smaller numel
        self.assertEqual(args["in_ptr0"][2], ("float32", 15 + 16 * 16 * (((1 << 18) - 1) // 16) + 1))
        self.assertEqual(p["symbolic_sizes"], {"ks0": 16, "ks1": 16, "ks2": 16, "xnumel": 1 << 18})

    def test_sizes_the_launch_gave_are_kept(self):
        names = ["in_out_ptr0", "in_ptr0", "ks0", "ks1", "ks2", "xnumel", "XBLOCK"]
        spec = {"entry": "triton_poi_fused_softmax_2",
                "signature": {"in_out_ptr0": "*fp32", "in_ptr0": "*fp32", "ks0": "i32", "ks1": "i32",
                              "ks2": "i32", "xnumel": "i32", "XBLOCK": "constexpr"},
                "constexprs": {"XBLOCK": 1024}, "numels": {"xnumel": 4096},
                "args": {"ks0": 3, "ks1": 3, "ks2": 3}}
        p = plan(spec, [(n, n == "XBLOCK", MISSING) for n in names], POINTWISE)
        self.assertNotIn("symbolic_sizes", p)
        self.assertEqual({a[0]: a[2] for a in p["args"]}["ks1"], 3)


if __name__ == "__main__":
    unittest.main()
