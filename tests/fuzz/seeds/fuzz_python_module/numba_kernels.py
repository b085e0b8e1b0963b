import numba
from numba import cuda, vectorize, guvectorize
import math as m

@cuda.jit(device=True)
def dev(a):
    return m.sqrt(a)

@cuda.jit("void(float32[:], float32[:])")
def kern(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = dev(x[i])

@vectorize(["float32(float32)"], target="cuda")
def vf(a):
    return a + 1

d = cuda.jit(device=True)(lambda q: q * 2)
