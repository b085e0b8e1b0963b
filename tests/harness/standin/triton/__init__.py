"""A stand-in for the slice of Triton's API the harness uses, so the pool, isolation and
classification can be tested on CI machines without Triton or a GPU.

"Compiling" calls the kernel's Python body with None for tensors and the constexpr values,
so whatever the body does (raise, hang, crash, allocate) happens during the compile stage,
inside the worker, just as a real compile-time failure would.
"""
import os as _os

# Tests of version-dependent behaviour (ports) state the version they pretend to be.
__version__ = _os.environ.get("MINE_STANDIN_TRITON_VERSION", "0.0+standin")

from . import language  # noqa: E402,F401
from .runtime.jit import JITFunction, jit  # noqa: E402,F401
from . import runtime  # noqa: E402,F401
from .compiler import compile  # noqa: E402,F401
from . import compiler  # noqa: E402,F401
