"""Grouped matmul: a 1D grid whose program ids are reordered with tl.swizzle2d so that
GROUP_M consecutive programs share rows of A and columns of B in L2."""
import torch
import triton
import triton.language as tl


@triton.jit
def grouped_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                          stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BLOCK_M)
    num_n = tl.cdiv(N, BLOCK_N)
    pid_m, pid_n = tl.swizzle2d(pid // num_n, pid % num_n, num_m, num_n, GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
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


def grouped_matmul(a, b, bm=64, bn=64, bk=32, group=4):
    (m, k), (_, n) = a.shape, b.shape
    c = torch.empty((m, n), device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    grouped_matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                                b.stride(1), c.stride(0), c.stride(1),
                                BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=group)
    return c


def check():
    a = torch.randn(500, 260, device="cuda", dtype=torch.float16)
    b = torch.randn(260, 330, device="cuda", dtype=torch.float16)
    return {"out": grouped_matmul(a, b), "ref": a.float() @ b.float(),
            "atol": 1e-2, "rtol": 1e-3}


BUNDLE_SPEC = [{"entry": "grouped_matmul_kernel",
                "signature": {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp32",
                              "M": "i32", "N": "i32", "K": "i32", "stride_am": "i32",
                              "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
                              "stride_cm": "i32", "stride_cn": "i32", "BLOCK_M": "constexpr",
                              "BLOCK_N": "constexpr", "BLOCK_K": "constexpr",
                              "GROUP_M": "constexpr"},
                "constexprs": {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 4},
                "args": {"M": 256, "N": 256, "K": 256, "stride_am": 256, "stride_ak": 1,
                         "stride_bk": 256, "stride_bn": 1, "stride_cm": 256, "stride_cn": 1},
                "grid": [16, 1, 1]}]
