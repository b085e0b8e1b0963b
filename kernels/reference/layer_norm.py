"""Layer norm forward: one program per row, two passes over the row in BLOCK chunks (mean,
then variance), then normalise with weight and bias. Rows may be wider than one block."""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, stride, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride
    y_row = y_ptr + row * stride
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
        d = tl.where(cols < n_cols, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / n_cols + eps)
    for off in range(0, n_cols, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=mask)
        b = tl.load(b_ptr + cols, mask=mask)
        tl.store(y_row + cols, (x - mean) * rstd * w + b, mask=mask)


def layer_norm(x, weight, bias, eps=1e-5, block=1024):
    rows, cols = x.shape
    y = torch.empty_like(x)
    layer_norm_kernel[(rows,)](x, y, weight, bias, x.stride(0), cols, eps, BLOCK=block)
    return y


def check():
    x = torch.randn(1151, 3000, device="cuda") + 3.0
    w = torch.rand(3000, device="cuda")
    b = torch.randn(3000, device="cuda")
    ref = torch.nn.functional.layer_norm(x, (3000,), w, b, 1e-5)
    return {"out": layer_norm(x, w, b), "ref": ref, "atol": 1e-4, "rtol": 1e-4}


BUNDLE_SPEC = [{"entry": "layer_norm_kernel",
                "signature": {"x_ptr": "*fp32", "y_ptr": "*fp32", "w_ptr": "*fp32",
                              "b_ptr": "*fp32", "stride": "i32", "n_cols": "i32",
                              "eps": "fp32", "BLOCK": "constexpr"},
                "constexprs": {"BLOCK": 1024},
                "args": {"stride": 3000, "n_cols": 3000, "eps": 1e-5}, "grid": [256, 1, 1]}]
