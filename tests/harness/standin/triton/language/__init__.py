class constexpr:
    """Annotation marker, as in triton.language."""


class dtype:
    """A Triton element type; kernels compare constexpr dtypes against these."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "triton.language." + self.name


float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
int32 = dtype("int32")

from . import math  # noqa: E402,F401  (as in Triton: tl.math is an attribute of tl)
