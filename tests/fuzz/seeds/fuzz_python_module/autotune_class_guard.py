import triton as tt
from triton import language as tl, jit
try:
    from fast import exp as fexp
except ImportError:
    fexp = None

if True:
    @tt.autotune(configs=[tt.Config({'B': 64}, num_warps=4)], key=['n'])
    @tt.heuristics({'EVEN': lambda a: a['n'] % a['B'] == 0})
    @jit
    def k1(x, n, B: tl.constexpr, EVEN: tl.constexpr):
        y = [i for i in range(B) if i]
        return fexp(x) if fexp else x

class Ops:
    @staticmethod
    @tt.jit(do_not_specialize=["n"])
    def k2(p, n):
        def inner(z):
            nonlocal n
            return z + n
        return inner(p)

k3 = tt.jit(Ops.k2)
__all__ = ["k1", "Ops"]

if __name__ == "__main__":
    k1[(1,)](None, 1)
