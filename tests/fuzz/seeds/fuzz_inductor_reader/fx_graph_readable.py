2class <lambda>(torch.nn.Module):
    def forward(self, arg0_1: "f32[1024]", arg1_1: "f32[8, 128]"):
        # File: /home/u/model.py:10 in forward, code: x = torch.relu(a)
        relu: "f32[1024]" = torch.ops.aten.relu.default(arg0_1);  arg0_1 = None

        # File: /home/u/model.py:11 in forward, code: y = x * 2
        mul: "f32[1024]" = torch.ops.aten.mul.Tensor(relu, 2.0)
        sum_1: "f32[8]" = torch.ops.aten.sum.dim_IntList(arg1_1, [-1]);  arg1_1 = None
        return (relu, mul, sum_1)
