import triton
import triton.language as tl

SCALE = 2.0

@triton.jit
def _helper(x):
    return x * SCALE

@triton.jit
def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, _helper(x), mask=mask)
