"""offset_reach: how far a hand-written kernel's addresses reach, read from its code at the values it
is launched with; and the fault's second try that sizes buffers to it (worker.reach_buffers)."""
import unittest

from util import HARNESS  # noqa: F401
import offset_reach
import worker

# A tiled matmul: program ids over the grid, pointers advanced in a loop by its trip count.
MATMUL = """
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, BLOCK_M: tl.constexpr,
           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(axis=1)
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)).to(tl.int64)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_m[:, None] < M, other=0.0)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * stride_bk
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)
"""

# A pointer advanced by rebinding it to itself plus a step, as `+=` does.
REBOUND = """
@triton.jit
def rebound(x_ptr, n, BLOCK: tl.constexpr):
    p = x_ptr + tl.arange(0, BLOCK)
    for i in range(0, n, BLOCK):
        tl.store(p, 0.0)
        p = p + BLOCK
"""

# A row of a mask indexed by a row count the launcher computes (`M = bs * s1 * s2`) with the
# mask's own stride: what the stand-ins give it need not agree with the mask's stand-in shape.
GATHER = """
@triton.jit
def gather(mask_ptr, idx_ptr, out_ptr, M, stride_mask_m, HAS_MASK: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if HAS_MASK:
        row = mask_ptr + offs * stride_mask_m
    else:
        row = mask_ptr + offs
    m = tl.load(row, mask=offs < M)
    j = tl.load(idx_ptr + offs)
    tl.store(out_ptr + j, m)
"""

# A pointer walked in a while loop, and one handed to a helper: neither can be bounded.
UNBOUNDED = """
@triton.jit
def walk(x_ptr, y_ptr, n):
    p = x_ptr
    while n > 0:
        tl.store(p, 1.0)
        p += 1
        n -= 1
    helper(y_ptr)
"""


class Reach(unittest.TestCase):
    def test_loop_advanced_pointers_reach_their_last_trip(self):
        values = {"M": 100, "N": 64, "K": 96, "stride_am": 96, "stride_bk": 64,
                  "BLOCK_M": 32, "BLOCK_N": 64, "BLOCK_K": 32}
        r = offset_reach.reach(MATMUL, "matmul", values, [4, 1, 1])
        # rows up to 4 * 32 - 1 (masks are not applied: an upper bound), 3 trips of BLOCK_K
        self.assertEqual(r["a_ptr"], 127 * 96 + 31 + 2 * 32)
        self.assertEqual(r["b_ptr"], 31 * 64 + 63 + 2 * 32 * 64)
        self.assertEqual(r["c_ptr"], 127 * 64 + 63)

    def test_a_pointer_rebound_to_itself_plus_a_step_is_advanced_by_the_trips(self):
        r = offset_reach.reach(REBOUND, "rebound", {"n": 256, "BLOCK": 64}, [1, 1, 1])
        self.assertEqual(r["x_ptr"], 63 + 3 * 64)

    def test_both_branches_bound_a_pointer_and_a_loaded_index_does_not(self):
        values = {"M": 4096, "stride_mask_m": 1024, "HAS_MASK": True, "BLOCK": 256}
        r = offset_reach.reach(GATHER, "gather", values, [16, 1, 1])
        self.assertEqual(r["mask_ptr"], 4095 * 1024)
        self.assertEqual(r["idx_ptr"], 4095)
        self.assertIsNone(r["out_ptr"])  # `out_ptr + j`, j read from memory

    def test_while_loops_and_helpers(self):
        r = offset_reach.reach(UNBOUNDED, "walk", {"n": 8}, [1, 1, 1])
        self.assertIsNone(r["x_ptr"])
        self.assertNotIn("y_ptr", r)  # never addressed in the kernel's own body

    def test_unknown_kernel(self):
        self.assertIsNone(offset_reach.reach(GATHER, "other", {}, [1, 1, 1]))


class ReachBuffers(unittest.TestCase):
    def plan(self):
        return {"args": [("mask_ptr", "tensor", ("float16", 1 << 20)),
                         ("idx_ptr", "tensor", ("int32", 1 << 20)),
                         ("out_ptr", "tensor", ("float16", 1 << 20)),
                         ("M", "scalar", 4096), ("stride_mask_m", "scalar", 1024)],
                "constexprs": {"HAS_MASK": True, "BLOCK": 256}, "grid": [16, 1, 1]}

    def test_a_fault_grows_what_the_code_bounds_to_what_it_reaches(self):
        p = self.plan()
        reach = worker.kernel_reach(GATHER, "gather", p)
        reached, used = worker.reach_buffers(p, reach, worker.MAX_SECOND_TRY_BYTES)
        self.assertEqual(reached, {"mask_ptr": 4095 * 1024 + 1})
        self.assertEqual(used, (4095 * 1024 + 1 - (1 << 20)) * 2)
        self.assertEqual(p["args"][0], ("mask_ptr", "tensor", ("float16", 4095 * 1024 + 1)))
        self.assertEqual(p["args"][1], ("idx_ptr", "tensor", ("int32", 1 << 20)))  # reached within
        # the rest grow by the blanket factor: the unbounded output only
        rest = [label for _, _, _, _, label in worker.planned_buffers(p) if reach.get(label) is None]
        self.assertEqual(rest, ["out_ptr"])

    def test_growth_past_the_budget_is_left_to_the_blanket_factor(self):
        task = {"grow": 16}
        p = self.plan()
        p["reach"] = {"mask_ptr": 1 << 40, "idx_ptr": (1 << 21) - 1, "out_ptr": 10}
        w = worker.Worker.__new__(worker.Worker)
        w.compile_load_run = lambda *a: {"status": "ok"}
        row = {}
        w.compile_shrinking(None, {}, p, task, "run", row)
        self.assertEqual(row["reached"], {"idx_ptr": 1 << 21})
        self.assertEqual(row["grown"], {"mask_ptr": 16})  # out of the budget: the blanket factor
        self.assertEqual(p["args"][0][2][1], 16 << 20)
        self.assertEqual(p["args"][2][2][1], 1 << 20)  # out_ptr reaches within its buffer


if __name__ == "__main__":
    unittest.main()
