"""Blocked matmul, one output tile per program on a 2D grid, walking K in BLOCK_K steps.
fp16 inputs, fp32 accumulation and output."""
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def matmul(a, b, bm=64, bn=64, bk=32):
    (m, k), (_, n) = a.shape, b.shape
    c = torch.empty((m, n), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(m, bm), triton.cdiv(n, bn))
    matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)
    return c


def check():
    a = torch.randn(300, 130, device="cuda", dtype=torch.float16)
    b = torch.randn(130, 200, device="cuda", dtype=torch.float16)
    # The reference multiplies the same fp16 values in fp32: only summation order differs.
    return {"out": matmul(a, b), "ref": a.float() @ b.float(), "atol": 1e-2, "rtol": 1e-3}


MATMUL_SIG = {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32", "M": "i32", "N": "i32",
              "K": "i32", "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32",
              "stride_bn": "i32", "stride_cm": "i32", "stride_cn": "i32",
              "BLOCK_M": "constexpr", "BLOCK_N": "constexpr", "BLOCK_K": "constexpr"}
MATMUL_ARGS = {"M": 256, "N": 256, "K": 256, "stride_am": 256, "stride_ak": 1,
               "stride_bk": 256, "stride_bn": 1, "stride_cm": 256, "stride_cn": 1}
BUNDLE_SPEC = [{"entry": "matmul_kernel", "signature": MATMUL_SIG,
                "constexprs": {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
                "args": MATMUL_ARGS, "grid": [4, 4, 1]}]
