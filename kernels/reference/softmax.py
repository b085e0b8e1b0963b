"""Row softmax: one program per row, the whole row in one power-of-two block, max-subtracted
for stability; padding lanes load -inf so they vanish in the sum."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, axis=0), mask=mask)


def softmax(x):
    rows, cols = x.shape
    out = torch.empty_like(x)
    block = triton.next_power_of_2(cols)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK=block,
                            num_warps=4 if block <= 2048 else 8)
    return out


def check():
    x = torch.randn(1823, 781, device="cuda") * 4
    return {"out": softmax(x), "ref": torch.softmax(x, dim=1), "atol": 1e-6, "rtol": 1e-5}


BUNDLE_SPEC = [{"entry": "softmax_kernel",
                "signature": {"out_ptr": "*fp32", "in_ptr": "*fp32", "in_stride": "i32",
                              "out_stride": "i32", "n_cols": "i32", "BLOCK": "constexpr"},
                "constexprs": {"BLOCK": 1024},
                "args": {"in_stride": 1000, "out_stride": 1000, "n_cols": 1000},
                "grid": [512, 1, 1]}]
