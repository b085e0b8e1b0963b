"""RGB to greyscale on a 2D grid: each program owns a BLOCK_H x BLOCK_W tile of pixels of an
interleaved H x W x 3 image, with masks on both edges."""
import torch
import triton
import triton.language as tl

WEIGHTS = (0.2989, 0.5870, 0.1140)


@triton.jit
def grey_kernel(rgb_ptr, out_ptr, H, W, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_H + tl.arange(0, BLOCK_H)
    cols = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = (rows[:, None] < H) & (cols[None, :] < W)
    pix = rows[:, None] * W + cols[None, :]
    r = tl.load(rgb_ptr + pix * 3 + 0, mask=mask)
    g = tl.load(rgb_ptr + pix * 3 + 1, mask=mask)
    b = tl.load(rgb_ptr + pix * 3 + 2, mask=mask)
    tl.store(out_ptr + pix, 0.2989 * r + 0.5870 * g + 0.1140 * b, mask=mask)


def rgb_to_grey(img, bh=32, bw=32):
    h, w, _ = img.shape
    out = torch.empty((h, w), device=img.device, dtype=img.dtype)
    grey_kernel[(triton.cdiv(h, bh), triton.cdiv(w, bw))](img, out, h, w, BLOCK_H=bh, BLOCK_W=bw)
    return out


def check():
    img = torch.rand(481, 653, 3, device="cuda")
    ref = img @ torch.tensor(WEIGHTS, device="cuda")
    return {"out": rgb_to_grey(img), "ref": ref, "atol": 1e-5, "rtol": 1e-5}


BUNDLE_SPEC = [{"entry": "grey_kernel",
                "signature": {"rgb_ptr": "*fp32", "out_ptr": "*fp32", "H": "i32", "W": "i32",
                              "BLOCK_H": "constexpr", "BLOCK_W": "constexpr"},
                "constexprs": {"BLOCK_H": 32, "BLOCK_W": 32},
                "args": {"H": 256, "W": 256}, "grid": [8, 8, 1]}]
