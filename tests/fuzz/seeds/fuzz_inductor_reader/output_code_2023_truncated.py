0async_compile = AsyncCompile()
k0 = async_compile.triton(r"""
@triton_heuristics.reduction(size_hints=[8, 128], reduction_hint=ReductionHint.INNER, triton_meta={'signature': {0: '*fp32', 1: 'i32'}, 'constants': {}, 'configs': [AttrsDescriptor(divisible_by_16=(0,), equal_to_1=())]})
@triton.jit
def triton_(in_ptr0, xnumel, rnumel, XBLOCK : tl.constexpr, RBLOCK : tl.constexpr):
    pass
""" 'tail' "\101\0")
k1 = async_compile.triton(kernel_name='k1', source_code=f'''{x}''')
k2 = async_compile.triton('k2', '''
@triton.jit
def k2(x):
