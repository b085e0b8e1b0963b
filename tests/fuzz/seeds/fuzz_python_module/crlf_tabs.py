import triton

@triton.jit
def k(x_ptr):
	v = 1
	return v
