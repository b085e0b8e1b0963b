"""inductor_stage.run with a stand-in torch (CI has neither torch nor a GPU): the flow from
import to comparison, the deducer's retries on real Python errors, __init__ stand-ins and
missing arguments, and the failures it must report. The stand-in tensors carry a shape and a
fill value; compiling returns the module itself unless a test makes it differ."""
import contextlib
import os
import random
import sys
import tempfile
import textwrap
import types
import unittest
from unittest import mock

import util  # noqa: F401  (puts kernels/harness on the path)
import inductor_stage
import module_inputs


class FakeTensor:
    def __init__(self, shape, dtype="float32", fill=0.5):
        self.shape, self.dtype, self.fill = tuple(shape), dtype, fill

    def to(self, _device):
        return self

    def clone(self):
        return FakeTensor(self.shape, self.dtype, self.fill)

    def detach(self):
        return self

    def is_floating_point(self):
        return self.dtype.startswith("float")

    def is_complex(self):
        return False

    def double(self):
        return FakeTensor(self.shape, "float64", self.fill)

    @property
    def ndim(self):
        return len(self.shape)


def make_torch(compiled_offset=0.0, codes=("# AOT ID\n@triton.jit\ndef triton_poi_0(): pass\ndef call(args): pass\n",),
               distributed=None, compile_error=None):
    """`compile_error(torch)`: what the compiled call raises, if anything, given the stand-in
    torch (whose _dynamo.config and _inductor.config hold the settings of that compile)."""
    torch = types.ModuleType("torch")
    torch.distributed = distributed
    nn = types.ModuleType("torch.nn")

    class Module:
        def __call__(self, *args, **kwargs):
            return self.forward(*args, **kwargs)

        def to(self, _device):
            return self

        def train(self, mode=True):
            self.training = mode
            return self

        def eval(self):  # as torch's: what train() returns
            return self.train(False)

        def _apply(self, fn):
            for name, value in list(vars(self).items()):
                if isinstance(value, FakeTensor):
                    setattr(self, name, fn(value))
            return self

    class ReLU(Module):
        def forward(self, x):
            return x

    class Identity(Module):
        def __init__(self, *args, **kwargs):
            pass

        def forward(self, x):
            return x

    class Linear(Module):
        def __init__(self, in_features, out_features, bias=True):
            self.in_features, self.out_features = in_features, out_features
            self.weight = FakeTensor((out_features, in_features))
            self.bias = FakeTensor((out_features,)) if bias else None

        def forward(self, x):
            return x

    nn.Module, nn.ReLU, nn.Identity, nn.GELU, nn.Linear = Module, ReLU, Identity, ReLU, Linear
    torch.nn = nn
    torch.float32, torch.int64 = "float32", "int64"
    torch.device = lambda name: name
    rng = {"state": random.Random(0)}

    def manual_seed(seed):
        rng["state"] = random.Random(seed)

    torch.manual_seed = manual_seed
    # A number drawn from the global generator, as a fill (what torch.rand_like would draw).
    torch.rand_like = lambda x: FakeTensor(x.shape, x.dtype, rng["state"].random())

    class Generator:
        def __init__(self, device="cpu"):
            pass

        def manual_seed(self, seed):
            return self

    torch.Generator = Generator
    torch.rand = lambda shape, generator=None, dtype="float32": FakeTensor(shape, dtype)
    torch.randint = lambda lo, hi, shape, generator=None, dtype="int64": FakeTensor(shape, dtype, 0)
    torch.is_tensor = lambda x: isinstance(x, FakeTensor)
    torch.no_grad = contextlib.nullcontext
    torch.cuda = types.SimpleNamespace(is_available=lambda: True, synchronize=lambda: None)
    torch._dynamo = types.SimpleNamespace(reset=lambda: None, config=types.SimpleNamespace(specialize_float=False))
    torch.compile = lambda model: model

    def run_and_get_code(fn, *args, **kwargs):
        torch.compiled_with = {"fallback_random": inductor.config.fallback_random,
                               "specialize_float": torch._dynamo.config.specialize_float}
        error = compile_error(torch) if compile_error is not None else None
        if error is not None:
            raise error
        out = fn(*args, **kwargs)
        if compiled_offset and isinstance(out, FakeTensor):
            out = FakeTensor(out.shape, out.dtype, out.fill + compiled_offset)
        return out, list(codes)

    inductor = types.ModuleType("torch._inductor")
    utils = types.ModuleType("torch._inductor.utils")
    utils.run_and_get_code = run_and_get_code
    inductor.utils = utils
    inductor.config = types.SimpleNamespace(fallback_random=False)
    torch._inductor = inductor
    return torch, {"torch": torch, "torch.nn": nn, "torch._inductor": inductor, "torch._inductor.utils": utils}


def measure(a, b, rtol, atol):
    err = abs(a.fill - b.fill)
    return err, abs(b.fill), a.shape == b.shape, a.dtype == b.dtype, err <= atol + rtol * abs(b.fill)


def against_reference(a, b, r, rtol, atol):
    k = 10.0
    trusted = abs(a.fill - r.fill) <= k * atol + k * rtol * abs(r.fill)
    return trusted, abs(a.fill - r.fill), abs(b.fill - r.fill)


class InductorStage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def run_module(self, source, entry, inputs, **torch_options):
        with open(os.path.join(self.tmp.name, "k1.py"), "w") as f:
            f.write(textwrap.dedent(source))
        torch, modules = make_torch(**torch_options)
        task = {"spec": {"id": 1, "entry": entry, "module": "k1.py", "inputs": inputs},
                "bundle_dir": self.tmp.name}
        row = {"stage_reached": "import"}
        with mock.patch.dict(sys.modules, modules), mock.patch.object(inductor_stage, "_measure", lambda t: measure), \
                mock.patch.object(inductor_stage, "_against_reference", lambda t: against_reference):
            try:
                inductor_stage.run(task, row, torch, lambda stage: None)
                return row, None
            except Exception as e:  # the worker records what the stage raises
                return row, e
            finally:
                sys.modules.pop("mined_module_1", None)

    def test_shape_deduced_from_unpacking_then_compiled_and_matched(self):
        row, error = self.run_module("""
            import torch
            class Tokens(torch.nn.Module):
                def forward(self, x):
                    B, N, C = x.shape
                    return x
            """, "Tokens", {"forward": [{"name": "x", "rank": 4, "rank_known": False}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertTrue(info["eager_ok"] and info["compiled_ok"] and info["match"])
        self.assertEqual(info["inputs_used"]["forward"][0]["shape"], [module_inputs.BATCH, module_inputs.SIZE, module_inputs.SIZE])
        self.assertEqual(len(info["deduce"]), 1)
        self.assertIn("unpacking", info["deduce"][0]["change"])
        self.assertEqual(row["stage_reached"], "run")
        self.assertEqual(info["phase"], "done")
        self.assertIn("def call(", row["output_code"][0])

    def test_stand_ins_and_missing_init_arguments(self):
        row, error = self.run_module("""
            import torch
            class Block(torch.nn.Module):
                def __init__(self, config, act_layer, dim):
                    super().__init__()
                    self.width = config.hidden_size + dim
                    self.act = act_layer()
                def forward(self, x):
                    assert self.width == 32, self.width
                    return self.act(x)
            """, "Block", {"init": [{"name": "config", "stand_in": "config", "source": "stand_in"},
                                    {"name": "act_layer", "stand_in": "class:torch.nn.ReLU", "source": "stand_in"}],
                           "forward": [{"name": "x", "rank": 2}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertTrue(info["match"])
        self.assertEqual(info["inputs_used"]["init"]["dim"], "16")  # given after __init__ said it was missing
        self.assertEqual(info["deduce"][0]["change"], "init dim = 16")

    def test_a_class_of_the_file_is_passed_as_the_call_site_passes_it(self):
        source = """
            import torch
            class Wide(torch.nn.Module):
                expansion = 2
                def __init__(self, dim):
                    super().__init__()
                    self.dim = dim
                def forward(self, x):
                    return x
            class Net(torch.nn.Module):
                def __init__(self, block, dim):
                    super().__init__()
                    self.block = block(dim)
                    self.out = dim * block.expansion
                def forward(self, x):
                    assert (self.block.dim, self.out) == (8, 16), (self.block.dim, self.out)
                    return self.block(x)
            """
        inputs = {"init": [{"name": "block", "stand_in": "module:Wide", "source": "call_site"},
                           {"name": "dim", "literal": "8", "source": "call_site"}],
                  "forward": [{"name": "x", "rank": 2, "dims": {"-1": 8}}]}
        row, error = self.run_module(source, "Net", inputs)
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual(row["inductor"]["inputs_used"]["init"], {"block": "Wide", "dim": "8"})
        # A name the standalone lacks: an nn.Identity class stands in, which has no `expansion`.
        inputs["init"][0]["stand_in"] = "module:Narrow"
        row, error = self.run_module(source, "Net", inputs)
        self.assertIsInstance(error, AttributeError)
        self.assertEqual(row["inductor"]["phase"], "instantiate")

    def test_a_network_a_call_site_builds_is_built_so(self):
        source = """
            import torch
            CFG = {'A': [3, 4]}
            class Backbone(torch.nn.Module):
                def __init__(self, dim, mults=(1, 1)):
                    super().__init__()
                    self.dim, self.mults = dim, mults
                def forward(self, x):
                    return x
            def make_layers(cfg):
                return Backbone(sum(cfg), mults=tuple(cfg))
            class Wrapper(torch.nn.Module):
                def __init__(self, model, features):
                    super().__init__()
                    self.model, self.features = model, features
                def forward(self, x):
                    assert (self.model.dim, self.model.mults, self.features.dim) == (32, (1, 2), 7), (
                        self.model.dim, self.model.mults, self.features.dim)
                    return self.model(x)
            """
        inputs = {"init": [{"name": "model", "stand_in": "expression:Backbone(32, mults=(1, 2))", "source": "call_site"},
                           {"name": "features", "stand_in": "expression:make_layers(({'A': [3, 4]})['A'])",
                            "source": "call_site"}],
                  "forward": [{"name": "x", "rank": 3}]}
        row, error = self.run_module(source, "Wrapper", inputs)
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual(row["inductor"]["inputs_used"]["init"],
                         {"model": "Backbone(32, mults=(1, 2))", "features": "make_layers(({'A': [3, 4]})['A'])"})
        # What the standalone cannot build (a name it lacks): an nn.Identity instance, as for any object.
        inputs["init"][0]["stand_in"] = "expression:Missing(32)"
        row, error = self.run_module(source, "Wrapper", inputs)
        self.assertIsInstance(error, AttributeError)  # the Identity has no `dim`
        self.assertEqual(row["inductor"]["phase"], "eager")

    def test_a_network_the_code_annotates_or_checks_is_made_with_guessed_arguments(self):
        source = """
            import torch
            class ViT(torch.nn.Module):
                def __init__(self, *, image_size, dim, depth):
                    super().__init__()
                    self.sizes = (image_size, dim, depth)
                def forward(self, x):
                    return x
            class Distillable(ViT):
                def __init__(self, *args, **kwargs):
                    super().__init__(*args, **kwargs)
            class Masked(torch.nn.Module):
                def __init__(self, vit: ViT, student, norm: torch.nn.Module, ratio=0.5):
                    super().__init__()
                    assert isinstance(student, (Distillable, ViT))
                    self.vit, self.student = vit, student
                    assert norm.__class__.__name__ == "StandInIdentity", norm
                def forward(self, x):
                    assert self.vit.sizes == (16, 16, 2) and type(self.student).__name__ == "Distillable", (
                        self.vit.sizes, type(self.student))
                    return self.vit(x)
            """
        inputs = {"init": [{"name": "vit", "literal": "16", "source": "fallback"},
                           {"name": "student", "stand_in": "instance:torch.nn.Identity", "source": "use"},
                           {"name": "norm", "stand_in": "instance:torch.nn.Identity", "source": "stand_in"},
                           {"name": "ratio", "source": "default"}],
                  "forward": [{"name": "x", "rank": 3}]}
        row, error = self.run_module(source, "Masked", inputs)
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertTrue(info["match"])
        self.assertEqual(info["inputs_used"]["init"]["vit"], "ViT(image_size=16, dim=16, depth=2)")
        self.assertEqual(info["inputs_used"]["init"]["student"], "Distillable(image_size=16, dim=16, depth=2)")
        self.assertIn("the class the code names", info["deduce"][0]["change"])

    CONFIG_MODULE = """
        import dataclasses
        import torch
        @dataclasses.dataclass
        class NetConfig:
            hidden_size: int = 48
            num_hidden_layers: int = 12
            fused_mlp: bool = False
        class Base(torch.nn.Module):
            def __init__(self, config):
                super().__init__()
                if not isinstance(config, NetConfig):
                    raise ValueError("config should be an instance of class NetConfig")
                self.config = config
        class Net(Base):
            def __init__(self, config: NetConfig):
                super().__init__(config)
                self.shape = (config.hidden_size, config.num_hidden_layers, getattr(config, "use_flash_attn", False),
                              hasattr(config, "quantization_config"), config.vocab_size)
            def forward(self, x):
                assert self.shape == (48, 2, False, False, 100), self.shape
                return x
        class Checked(Base):
            def __init__(self, config):
                super().__init__(config)
            def forward(self, x):
                return x
        """

    def config_inputs(self):
        return {"init": [{"name": "config", "stand_in": "config", "source": "stand_in"}],
                "forward": [{"name": "x", "rank": 2}]}

    def test_an_annotated_config_class_is_made_with_its_defaults_and_fewer_layers(self):
        row, error = self.run_module(self.CONFIG_MODULE, "Net", self.config_inputs())
        self.assertIsNone(error)
        # 48 of its own, 12 layers cut to 2; of what it lacks, what the code reads off `config`
        # guessed (vocab_size), the rest lacking (the code's getattr default, a library's hasattr
        # probe false)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual(row["inductor"]["deduce"], [])

    def test_a_config_class_checked_by_isinstance_in_a_base_class(self):
        row, error = self.run_module(self.CONFIG_MODULE, "Checked", self.config_inputs())
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["eager_ok"])
        self.assertTrue(row["inductor"]["inputs_used"]["init"]["config"].startswith("NetConfig("))

    def test_a_config_class_init_refuses_is_tried_again_as_the_stand_in(self):
        row, error = self.run_module("""
            import torch
            class Settings:
                def __init__(self, width=8):
                    self.width = width
            class Net(torch.nn.Module):
                def __init__(self, config: Settings):
                    super().__init__()
                    assert config.width == 16, "the class's own width is refused"
                def forward(self, x):
                    return x
            """, "Net", self.config_inputs())
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual(row["inductor"]["deduce"][0]["change"], "config stand-in for Settings")

    def test_the_stand_in_answers_what_the_code_reads_with_a_default(self):
        # flash-attn: `getattr(config, "fused_bias_fc", False)` guessed as 16 asked for fused_dense
        row, error = self.run_module("""
            import torch
            FusedDense = None
            class Pooler(torch.nn.Module):
                def __init__(self, config):
                    super().__init__()
                    fused_bias_fc = getattr(config, "fused_bias_fc", False)
                    if fused_bias_fc and FusedDense is None:
                        raise ImportError("fused_dense is not installed")
                    self.width = config.hidden_size
                def forward(self, x):
                    return x
            """, "Pooler", self.config_inputs())
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])

    def test_a_process_group_argument_gets_a_group_of_one_rank(self):
        # mamba's ColumnParallelLinear(in_features, out_features, process_group: ProcessGroup): the
        # plugin guessed a size for it ('int' object has no attribute 'size')
        source = """
            import torch
            class ProcessGroup:
                pass
            class ColumnParallel(torch.nn.Module):
                def __init__(self, in_features, process_group: ProcessGroup, group_size=1):
                    super().__init__()
                    self.world = process_group.size()
                def forward(self, x):
                    assert self.world == 1
                    return x
            """
        inputs = {"init": [{"name": "in_features", "literal": "16", "source": "size_name"},
                           {"name": "process_group", "literal": "16", "source": "fallback"}],
                  "forward": [{"name": "x", "rank": 2}]}
        inits = []

        def init_process_group(backend, store, rank, world_size):
            inits.append((backend, rank, world_size))
            world.initialized = True
        world = types.SimpleNamespace(initialized=False, size=lambda: 1)
        distributed = types.SimpleNamespace(is_initialized=lambda: world.initialized, HashStore=object,
                                            init_process_group=init_process_group,
                                            group=types.SimpleNamespace(WORLD=world))
        row, error = self.run_module(source, "ColumnParallel", inputs, distributed=distributed)
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual(inits, [("nccl", 0, 1)])
        self.assertIn("process group of one rank", row["inductor"]["deduce"][0]["change"])

    def test_distributed_size_globals_left_none_are_those_of_one_process(self):
        # A model-parallel example whose `initialize(world_size, rank)` the closure left out (the
        # module never calls it): its helpers raise while the globals are None.
        source = """
            import functools
            from typing import Optional
            import torch
            _GROUP = None
            _WORLD_SIZE: Optional[int] = None
            _LOCAL_RANK: Optional[int] = None
            BATCH_SIZE = None
            @functools.cache
            def get_world_size() -> int:
                if _WORLD_SIZE is None:
                    raise RuntimeError("model parallelism was not initialized")
                return _WORLD_SIZE
            class FeedForward(torch.nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    self.local = dim // get_world_size()
                def forward(self, x):
                    assert (self.local, _LOCAL_RANK, _GROUP, BATCH_SIZE) == (16, 0, None, None)
                    return x
            """
        row, error = self.run_module(source, "FeedForward", {"init": [{"name": "dim", "literal": "16", "source": "size_name"}],
                                                             "forward": [{"name": "x", "rank": 2}]})
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual(row["inductor"]["deduce"][0]["change"], "globals _WORLD_SIZE = 1, _LOCAL_RANK = 0 (one process)")

    def test_an_assertion_of_an_input_size_is_read_in_the_failing_frame(self):
        row, error = self.run_module("""
            import torch
            class Mapper(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.bits = 3
                    self.max_len = 8
                def forward(self, logits, tokens):
                    b, n = tokens.shape
                    assert logits.shape[-1] == self.bits, f'logits must have a last dimension of {self.bits}'
                    assert n == self.max_len
                    return logits
            """, "Mapper", {"forward": [{"name": "logits", "rank": 2},
                                        {"name": "tokens", "rank": 2, "dims": {"1": 1024}, "dtype": "int64"}]})
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual([t["shape"] for t in row["inductor"]["inputs_used"]["forward"]], [[2, 3], [2, 8]])

    def test_a_train_override_that_returns_nothing_leaves_the_module(self):
        # timm's attention layers clear a cache in `train(mode)` and return None, so `eval()` does.
        row, error = self.run_module("""
            import torch
            class Cached(torch.nn.Module):
                def train(self, mode=True):
                    super().train(mode)
                    self.cache = {}
                def forward(self, x):
                    assert not self.training
                    return x
            """, "Cached", {"forward": [{"name": "x", "rank": 2}]})
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])

    def test_an_object_argument_whose_weights_init_reads_is_a_linear_layer(self):
        # x-transformers' LowRankLinear(module, low_rank_dim) factorises the weight of the layer
        # it is given: an Identity has none.
        source = """
            import torch
            class LowRank(torch.nn.Module):
                def __init__(self, module, low_rank_dim):
                    super().__init__()
                    assert module.weight.ndim == 2
                    out_dim, in_dim = module.weight.shape
                    assert low_rank_dim < min(out_dim, in_dim)
                    self.dims = (out_dim, in_dim, low_rank_dim)
                def forward(self, x):
                    assert self.dims == (64, 64, 16), self.dims
                    return x
            class Wrapper(torch.nn.Module):
                def __init__(self, net):
                    super().__init__()
                    self.net = net
                def forward(self, x):
                    assert type(self.net).__name__ == "StandInIdentity"
                    return self.net(x)
            """
        for entry, name in (("LowRank", "module"), ("Wrapper", "net")):
            inputs = {"init": [{"name": name, "stand_in": "instance:torch.nn.Identity", "source": "stand_in"}],
                      "forward": [{"name": "x", "rank": 2}]}
            if entry == "LowRank":
                inputs["init"].append({"name": "low_rank_dim", "literal": "16", "source": "size_name"})
            row, error = self.run_module(source, entry, inputs)
            self.assertIsNone(error, entry)
            self.assertTrue(row["inductor"]["match"])

    def test_a_residual_that_wants_wider_inputs_widens_the_module(self):
        # A ResNet bottleneck Bottleneck(inplanes, planes) with `out + x`: planes * 4 channels come
        # out, so x has them too, and then inplanes (guessed as 16 like planes) is the wrong guess.
        row, error = self.run_module("""
            import torch
            class Bottleneck(torch.nn.Module):
                def __init__(self, inplanes, planes):
                    super().__init__()
                    self.inplanes, self.planes = inplanes, planes
                def forward(self, x):
                    c = x.shape[1]
                    if c != self.inplanes:
                        raise RuntimeError("Given groups=1, weight of size [%d, %d, 1, 1], expected input[%s] to "
                                           "have %d channels, but got %d channels instead"
                                           % (self.planes, self.inplanes, ", ".join(map(str, x.shape)), self.inplanes, c))
                    if c != self.planes * 4:
                        raise RuntimeError("The size of tensor a (%d) must match the size of tensor b (%d) at "
                                           "non-singleton dimension 1" % (self.planes * 4, c))
                    return x
            """, "Bottleneck", {"init": [{"name": "inplanes", "literal": "16", "source": "size_name"},
                                         {"name": "planes", "literal": "16", "source": "size_name"}],
                                "forward": [{"name": "x", "rank": 4}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertTrue(info["match"])
        self.assertEqual([d["change"] for d in info["deduce"]],
                         ["dim 1: 16 -> 64 (broadcast)", "init inplanes -> 64 (the input's width)"])
        self.assertEqual(info["inputs_used"]["init"], {"inplanes": "64", "planes": "16"})
        self.assertEqual(info["inputs_used"]["forward"][0]["shape"], [2, 64, 16, 16])

    def test_keyword_only_inputs_are_passed_by_name(self):
        row, error = self.run_module("""
            import torch
            class Conditioned(torch.nn.Module):
                def forward(self, x, *, condition):
                    assert condition.shape == (2, 16), condition.shape
                    return x
            """, "Conditioned", {"forward": [{"name": "x", "rank": 3},
                                             {"name": "condition", "rank": 2, "keyword": True}]})
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        self.assertEqual(row["inductor"]["deduce"], [])

    def test_sizes_init_rejects_are_tried_larger_with_the_inputs(self):
        row, error = self.run_module("""
            import torch
            class Heads(torch.nn.Module):
                def __init__(self, dim, dim_head=32, heads=4):
                    super().__init__()
                    assert dim % dim_head == 0, "dim must be divisible by dim_head"
                    self.dim = dim
                def forward(self, x):
                    assert x.shape[-1] == self.dim, (x.shape, self.dim)
                    return x
            """, "Heads", {"init": [{"name": "dim", "literal": "16", "source": "size_name"},
                                    {"name": "dim_head", "source": "default"},
                                    {"name": "heads", "literal": "4", "source": "call_site"}],
                           "forward": [{"name": "x", "rank": 3, "dims": {"-1": 16}}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertEqual(info["inputs_used"]["init"], {"dim": "64", "heads": "4"})  # a call site's number stays
        self.assertEqual(info["inputs_used"]["forward"][0]["shape"], [module_inputs.BATCH, module_inputs.SIZE, 64])
        self.assertIn("guessed sizes 16 -> 64", info["deduce"][0]["change"])

    def test_sizes_rejected_again_grow_once_more(self):
        # A bottleneck of an eighth of its width under GroupNorm's 32 groups: 16 gives 2, 64 gives
        # 8, 256 gives the 32 it needs.
        row, error = self.run_module("""
            import torch
            class Bottleneck(torch.nn.Module):
                def __init__(self, out_chs, ratio=0.125, groups=32):
                    super().__init__()
                    mid = int(out_chs * ratio)
                    if mid % groups:
                        raise ValueError("num_channels (%d) must be divisible by num_groups (%d)" % (mid, groups))
                    self.out_chs = out_chs
                def forward(self, x):
                    assert x.shape[1] == self.out_chs
                    return x
            """, "Bottleneck", {"init": [{"name": "out_chs", "literal": "16", "source": "size_name"}],
                                "forward": [{"name": "x", "rank": 4, "dims": {"1": 16}}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertEqual(info["inputs_used"]["init"], {"out_chs": "256"})
        self.assertEqual(info["inputs_used"]["forward"][0]["shape"][1], 256)
        self.assertEqual([d["change"] for d in info["deduce"]], ["guessed sizes 16 -> 64", "guessed sizes 16 -> 256"])

    def test_a_size_no_growth_divides_takes_a_multiple_of_the_divisors_init_asserts(self):
        # CrossViT: patches of 12 and of 16 over one image side, asserted where each embedder is
        # built; 64 and 256 are no multiples of 12, 48 is the least of both.
        row, error = self.run_module("""
            import torch
            class Embedder(torch.nn.Module):
                def __init__(self, image_size, patch_size):
                    super().__init__()
                    assert image_size % patch_size == 0, 'Image dimensions must be divisible by the patch size.'
            class Cross(torch.nn.Module):
                def __init__(self, image_size, dim, sm_patch_size=12, lg_patch_size=16):
                    super().__init__()
                    self.sm = Embedder(image_size, sm_patch_size)
                    self.lg = Embedder(image_size, lg_patch_size)
                    self.size = image_size
                def forward(self, img):
                    assert img.shape[-1] == self.size == 48, (img.shape, self.size)
                    return img
            """, "Cross", {"init": [{"name": "image_size", "literal": "16", "source": "size_name"},
                                    {"name": "dim", "literal": "16", "source": "size_name"}],
                           "forward": [{"name": "img", "rank": 4, "dims": {"1": 3, "-1": 16, "-2": 16}}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertEqual(info["inputs_used"]["init"], {"image_size": "48", "dim": "16"})
        self.assertEqual(info["inputs_used"]["forward"][0]["shape"], [2, 3, 48, 48])
        self.assertEqual([d["change"] for d in info["deduce"]][-2:],
                         ["init image_size = 24 (a multiple of 12 the __init__ asserts)",
                          "init image_size = 48 (a multiple of 48 the __init__ asserts)"])

    def test_sizes_of_call_sites_are_not_grown(self):
        row, error = self.run_module("""
            import torch
            class Heads(torch.nn.Module):
                def __init__(self, dim):
                    super().__init__()
                    assert dim % 32 == 0
                def forward(self, x):
                    return x
            """, "Heads", {"init": [{"name": "dim", "literal": "16", "source": "call_site"}],
                           "forward": [{"name": "x", "rank": 3}]})
        self.assertIsInstance(error, AssertionError)
        self.assertEqual(row["inductor"]["phase"], "instantiate")

    def test_a_divisibility_the_forward_checks_grows_the_guessed_sizes(self):
        row, error = self.run_module("""
            import torch
            class Groups(torch.nn.Module):
                def __init__(self, num_features, groups=32):
                    super().__init__()
                    self.groups = groups
                def forward(self, x):
                    C = x.shape[1]
                    assert C % self.groups == 0, ''
                    return x
            """, "Groups", {"init": [{"name": "num_features", "literal": "16", "source": "size_name"},
                                     {"name": "groups", "source": "default"}],
                            "forward": [{"name": "x", "rank": 4, "dims": {"1": 16}}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertEqual(info["inputs_used"]["init"], {"num_features": "64"})
        self.assertEqual(info["inputs_used"]["forward"][0]["shape"], [module_inputs.BATCH, 64, 64, 64])
        self.assertIn("a divisibility the forward checks", info["deduce"][0]["change"])

    def test_the_failing_line_s_rank_check_and_a_none_default_it_needs(self):
        row, error = self.run_module("""
            import torch
            class Pairs(torch.nn.Module):
                def forward(self, seq, lens=None, other=None):
                    assert seq.ndim == 2
                    assert lens is not None, 'lens must be given'
                    return seq
            """, "Pairs", {"forward": [{"name": "seq", "rank": 4, "rank_known": False}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertEqual(info["inputs_used"]["forward"], [
            {"name": "seq", "shape": [module_inputs.BATCH, module_inputs.SIZE], "dtype": "float32"},
            {"name": "lens", "shape": [module_inputs.BATCH, module_inputs.SIZE], "dtype": "float32"}])
        self.assertIn("the failing line checks it", info["deduce"][0]["change"])
        self.assertIn("added input lens", info["deduce"][1]["change"])

    def test_number_parameters_of_forward_get_numbers(self):
        row, error = self.run_module("""
            import torch
            from typing import Tuple
            class Bias(torch.nn.Module):
                def forward(self, x, i, j, size: Tuple[int, int]):
                    assert isinstance(size, tuple) and isinstance(i, int), (size, i)
                    return x if list(range(j - i, j)) == [] else x
            """, "Bias", {"forward": [{"name": "x", "rank": 3}, {"name": "i", "rank": 4, "rank_known": False},
                                      {"name": "j", "rank": 4, "rank_known": False},
                                      {"name": "size", "rank": 4, "rank_known": False}]})
        self.assertIsNone(error)
        used = row["inductor"]["inputs_used"]["forward"]
        self.assertEqual(used[1:], [{"name": "i", "value": 16}, {"name": "j", "value": 16},
                                    {"name": "size", "value": (16, 16)}])

    def test_a_tensor_whose_device_a_range_reads_stays_a_tensor(self):
        row, error = self.run_module("""
            import torch
            class Sampled(torch.nn.Module):
                def forward(self, tokens):
                    n = tokens.shape[1]
                    return tokens if list(range(n // 2, len(tokens.shape))) is not None else tokens
            """, "Sampled", {"forward": [{"name": "tokens", "rank": 3}]})
        self.assertIsNone(error)
        self.assertEqual(row["inductor"]["inputs_used"]["forward"][0]["shape"], [2, 16, 16])

    def test_an_identity_stand_in_takes_further_arguments(self):
        row, error = self.run_module("""
            import torch
            class Block(torch.nn.Module):
                def __init__(self, dim, mixer_cls):
                    super().__init__()
                    self.mixer = mixer_cls(dim)
                def forward(self, x):
                    return self.mixer(x, inference_params=None)
            """, "Block", {"init": [{"name": "dim", "literal": "16", "source": "size_name"},
                                    {"name": "mixer_cls", "stand_in": "class:torch.nn.Identity", "source": "use"}],
                           "forward": [{"name": "x", "rank": 3}]})
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])

    def test_an_identity_stand_in_answers_the_sizes_a_wrapper_reads_off_it(self):
        # AutoregressiveWrapper(net) reads `net.max_seq_len`; a network the standalone cannot
        # build is an identity, which now answers such sizes, and still lacks submodules.
        source = """
            import torch
            class Wrapper(torch.nn.Module):
                def __init__(self, net):
                    super().__init__()
                    self.max_seq_len, self.dim = net.max_seq_len, net.dim
                    self.net = net
                def forward(self, x):
                    assert isinstance(self.max_seq_len, int) and self.max_seq_len > 0
                    return self.net(x)
            """
        inputs = {"init": [{"name": "net", "stand_in": "expression:Missing(32)", "source": "call_site"}],
                  "forward": [{"name": "x", "rank": 3}]}
        row, error = self.run_module(source, "Wrapper", inputs)
        self.assertIsNone(error)
        self.assertTrue(row["inductor"]["match"])
        row, error = self.run_module(source.replace("net.dim", "net.token_emb"), "Wrapper", inputs)
        self.assertIsInstance(error, AttributeError)  # a submodule: nothing to guess
        self.assertEqual(row["inductor"]["phase"], "instantiate")

    def test_compiled_output_that_differs_is_a_mismatch(self):
        row, error = self.run_module("""
            import torch
            class Same(torch.nn.Module):
                def forward(self, x):
                    return x
            """, "Same", {"forward": [{"name": "x", "rank": 2}]}, compiled_offset=0.5)
        self.assertIsInstance(error, inductor_stage.OutputMismatch)
        self.assertTrue(row["inductor"]["compiled_ok"])
        self.assertFalse(row["inductor"]["match"])
        self.assertAlmostEqual(row["inductor"]["max_abs_error"], 0.5)
        # Eager is exact in float64 too: the reference refuses the compiled output's error.
        self.assertTrue(row["inductor"]["float64_reference"])
        self.assertEqual(row["inductor"]["comparison"], "float64_reference")
        self.assertTrue(row["inductor"]["reference_refused"]["trusted"])

    def test_an_output_as_close_to_its_float64_value_as_eager_s_matches(self):
        # Eager float32 is 2e-3 off the true value (TF32 convolutions); the compiled output is
        # 3e-3 from eager, outside the float32 tolerance, and 1e-3 from the true value.
        row, error = self.run_module("""
            import torch
            class Conv(torch.nn.Module):
                def __init__(self):
                    self.weight = torch.rand((4, 4))
                def forward(self, x):
                    off = 0.0 if self.weight.dtype == "float64" else 0.002
                    return type(x)(x.shape, x.dtype, 3 * x.fill + off)
            """, "Conv", {"forward": [{"name": "x", "rank": 2}]}, compiled_offset=-0.003)
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertTrue(info["match"])
        self.assertEqual(info["comparison"], "float64_reference")
        self.assertAlmostEqual(info["max_abs_error"], 0.003)
        self.assertAlmostEqual(info["reference"]["eager_rmse"], 0.002)
        self.assertAlmostEqual(info["reference"]["compiled_rmse"], 0.001)

    def test_outputs_within_the_tolerance_need_no_reference(self):
        row, error = self.run_module("""
            import torch
            class Same(torch.nn.Module):
                def forward(self, x):
                    return x
            """, "Same", {"forward": [{"name": "x", "rank": 2}]})
        self.assertIsNone(error)
        self.assertEqual(row["inductor"]["comparison"], "allclose")
        self.assertNotIn("float64_reference", row["inductor"])

    def test_a_module_that_samples_draws_the_same_numbers_eager_and_compiled(self):
        # The deducer's first try fails, so the generator has moved on before the eager run that
        # works; the compiled run comes later still. Both start from the same seed, and Inductor
        # is told to draw with ATen's generator (fallback_random).
        row, error = self.run_module("""
            import torch
            class Sampler(torch.nn.Module):
                def forward(self, x):
                    noise = torch.rand_like(x)
                    b, n, d = x.shape
                    return type(x)(x.shape, x.dtype, x.fill + noise.fill)
            """, "Sampler", {"forward": [{"name": "x", "rank": 2}]})
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertTrue(info["match"])
        self.assertEqual(info["max_abs_error"], 0.0)
        self.assertEqual(info["compile_settings"], {"fallback_random": True})

    def test_a_compile_that_fails_on_a_float64_scalar_is_tried_with_floats_specialised(self):
        def fp64_scalars(torch):
            if not torch._dynamo.config.specialize_float:
                return RuntimeError("CompilationError: at 28:8: AssertionError('Loop-carried variable m_i has "
                                    "initial type fp32 but is re-assigned to fp64 in loop!')")
        row, error = self.run_module("""
            import torch
            class Loss(torch.nn.Module):
                def forward(self, x):
                    return x
            """, "Loss", {"forward": [{"name": "x", "rank": 2}]}, compile_error=fp64_scalars)
        self.assertIsNone(error)
        info = row["inductor"]
        self.assertTrue(info["match"])
        self.assertIn("fp64", info["compile_retry"]["error"])
        self.assertEqual(info["compile_settings"], {"fallback_random": True, "specialize_float": True})

    def test_other_compile_errors_are_not_tried_again(self):
        tries = []

        def broken(torch):
            tries.append(torch._dynamo.config.specialize_float)
            return RuntimeError("InductorError: NameError: name '_REDUCTION_MODE_BATCHMEAN' is not defined")
        row, error = self.run_module("""
            import torch
            class Loss(torch.nn.Module):
                def forward(self, x):
                    return x
            """, "Loss", {"forward": [{"name": "x", "rank": 2}]}, compile_error=broken)
        self.assertIsInstance(error, RuntimeError)
        self.assertEqual(tries, [False])
        self.assertEqual(row["inductor"]["phase"], "compile")
        self.assertNotIn("compile_retry", row["inductor"])

    def test_a_forward_the_deducer_cannot_fix_fails_in_the_eager_stage(self):
        row, error = self.run_module("""
            import torch
            class Broken(torch.nn.Module):
                def forward(self, x):
                    raise RuntimeError("CUDA error: device-side assert triggered")
            """, "Broken", {"forward": [{"name": "x", "rank": 2}]})
        self.assertIsInstance(error, RuntimeError)
        self.assertEqual(row["stage_reached"], "load")
        self.assertEqual(row["inductor"]["phase"], "eager")
        self.assertFalse(row["inductor"]["eager_ok"])

    def test_a_class_that_is_no_module_is_refused(self):
        row, error = self.run_module("""
            class Plain:
                def forward(self, x):
                    return x
            """, "Plain", {})
        self.assertIsInstance(error, inductor_stage.NotAModule)
        self.assertEqual(row["stage_reached"], "import")


class TorchSubmodules(unittest.TestCase):
    """inductor_stage.torch_submodules on a package called torch written for the test."""

    def test_a_submodule_the_code_reaches_as_an_attribute_is_imported(self):
        with tempfile.TemporaryDirectory() as tmp:
            files = {"torch/__init__.py": "from . import distributed\n",
                     "torch/distributed/__init__.py": "",
                     "torch/distributed/_private/__init__.py": "",
                     "torch/testing/__init__.py": "",
                     "torch/distributed/tensor/__init__.py": "class DTensor:\n    pass\n"}
            for path, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(tmp, path)), exist_ok=True)
                with open(os.path.join(tmp, path), "w") as f:
                    f.write(text)
            saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
            for k in saved:
                del sys.modules[k]
            sys.path.insert(0, tmp)
            try:
                import torch
                self.assertFalse(hasattr(torch.distributed, "tensor"))
                source = ("if isinstance(a, torch.distributed.tensor.DTensor) or torch.distributed.missing.x: pass\n"
                          "torch.distributed._private.x, torch.testing.y")
                self.assertEqual(inductor_stage.torch_submodules(torch, source), ["torch.distributed.tensor"])
                self.assertTrue(hasattr(torch.distributed.tensor, "DTensor"))
            finally:
                sys.path.remove(tmp)
                for k in [k for k in sys.modules if k == "torch" or k.startswith("torch.")]:
                    del sys.modules[k]
                sys.modules.update(saved)


if __name__ == "__main__":
    unittest.main()
