"""Vector copy: the smallest complete Triton kernel, one 1D block per program."""
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def copy(x, block=1024):
    out = torch.empty_like(x)
    n = x.numel()
    copy_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
    return out


def check():
    # An odd length leaves a ragged last block that only the mask protects.
    x = torch.randn(1_000_003, device="cuda")
    return {"out": copy(x), "ref": x.clone(), "atol": 0.0, "rtol": 0.0}


BUNDLE_SPEC = [{"entry": "copy_kernel",
                "signature": {"src_ptr": "*fp32", "dst_ptr": "*fp32", "n": "i32",
                              "BLOCK": "constexpr"},
                "constexprs": {"BLOCK": 1024}, "args": {"n": 100000}, "grid": [98, 1, 1]}]
