import triton
@triton.jit
def k(x):
    return ((((((((x))))))))

@triton.jit
def broken(x:
    tl.store(x, 1 +* 2)
