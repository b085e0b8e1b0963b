0import torch
from torch._inductor.async_compile import AsyncCompile
async_compile = AsyncCompile()

# kernel path: /tmp/torchinductor_u/ab/cabc.py
# Topologically Sorted Source Nodes: [x, y], Original ATen: [aten.relu, aten.mul]
# x => relu
# y => mul
triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''
import triton
import triton.language as tl
from torch._inductor.runtime import triton_helpers, triton_heuristics

@triton_heuristics.pointwise(
    size_hints={'x': 1024},
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr0': '*fp32', 'xnumel': 'i32'}, 'device': DeviceProperties(type='cuda', index=0), 'constants': {'x': -1, 'y': 1.5e3, 'z': 0x1F, 'w': "a\\x41\\u00e9\\n"}, 'configs': [{(0,): [['tt.divisibility', 16]]}]},
    inductor_meta={'kernel_name': 'triton_poi_fused_0', 'mutated_arg_names': [], 'num_load': 1},
)
@triton.jit
def triton_poi_fused_0(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:]
    tmp0 = tl.load(in_ptr0 + (xindex), None)
    tl.store(out_ptr0 + (xindex), tmp0, None)
''', device_str='cuda')

# kernel path: /tmp/torchinductor_u/cd/ccd.py
# Original ATen: aten.sum, aten.add
triton_red_fused_1 = async_compile.triton('triton_red_fused_1')

def call(args):
    triton_poi_fused_0.run(args[0], args[1], 1024, grid=grid(1024), stream=stream0)
