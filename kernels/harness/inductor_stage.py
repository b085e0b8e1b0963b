"""The `inductor` stage for PyTorch modules (`"language": "torch_module"` in a bundle): import the
module's standalone, instantiate the class with the inferred __init__ arguments, run it eagerly
on the inferred inputs (module_inputs.deduce corrects them, a few tries at most), compile it with
torch.compile (default mode), run that, compare the two (output_compare.py; outside the
tolerance, against the module run in float64 as well) and capture the code Inductor generated
(torch._inductor.utils.run_and_get_code). Every compared forward starts from the same seed, and
Inductor draws random numbers with ATen's generator (fallback_random), so modules that sample
compare too. Runs inside a worker (worker.py): the sandbox, limits and privilege drop are
already in place."""
import ast
import contextlib
import importlib.util
import inspect
import linecache
import math
import os
import random
import re
import sys
import textwrap
import time
import traceback

import bundle_libraries
import deferred_imports
import module_inputs
import output_compare
import torch_workarounds
from classify import trim

MAX_TRIES = 6      # deducer corrections per module, as paritybench bounds its own
MAX_INIT_TRIES = 3


class NotAModule(Exception):
    pass


class OutputMismatch(Exception):
    pass


def _import(path, name, deferred=None):
    """Imports the standalone; its unguarded imports of libraries this machine lacks are
    deferred to their first use (deferred_imports.py) and their names appended to `deferred`."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    with open(path, encoding="utf-8") as f:
        source = f.read()
    placeholders = deferred_imports.install(deferred_imports.missing_imports(source))
    if deferred is not None:
        deferred.extend(n for n in placeholders if "." not in n)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    finally:
        deferred_imports.remove(placeholders)
    unbound = deferred_imports.bind_unbound_guarded(module, source)
    if deferred is not None:
        deferred.extend(unbound)
    return module


def make_tensors(torch, specs, device, seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    out = []
    for s in specs:
        if s.get("value") is not None:  # a number or a tuple of them (scalar_inputs)
            out.append(s["value"])
            continue
        shape = module_inputs.shape_of(s)
        dtype = s["dtype"]
        if dtype == "bool":
            t = torch.rand(shape, generator=g) > 0.5
        elif dtype.startswith("int") or dtype == "uint8":
            high = max(int(s.get("high") or module_inputs.DEFAULT_HIGH), 1)
            t = torch.randint(0, high, shape, generator=g, dtype=getattr(torch, dtype))
        else:
            t = torch.rand(shape, generator=g, dtype=getattr(torch, dtype, torch.float32))
        out.append(t.to(device))
    return out


def _measure(torch):
    def measure(a, b, rtol, atol):
        if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
            return None, None, tuple(a.shape) == tuple(b.shape), a.dtype == b.dtype, False
        if a.numel() == 0:
            return 0.0, 0.0, True, True, True
        if a.is_floating_point() or a.is_complex():
            x, y = a.detach().double(), b.detach().double()
            both_nan = torch.isnan(x) & torch.isnan(y)
            diff = torch.where(both_nan, torch.zeros_like(x), (x - y).abs())
            diff = torch.nan_to_num(diff, nan=float("inf"))
            err = float(diff.max())
            close = bool(torch.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
            return err, float(y.abs().max()), True, True, close
        same = bool(torch.equal(a, b))
        return (0.0 if same else 1.0), None, True, True, same
    return measure


def _clone(torch, args):
    return [a.clone() if hasattr(a, "clone") else a for a in args]


def _call(fn, specs, args):
    """fn on fresh copies of args, keyword-only inputs by name."""
    positional, keywords = module_inputs.call_arguments(specs, _clone(None, args))
    return fn(*positional, **keywords)


def _annotation_text(annotation):
    if annotation is inspect.Parameter.empty:
        return ""
    if isinstance(annotation, str):
        return annotation
    return getattr(annotation, "__name__", None) if isinstance(annotation, type) else repr(annotation).replace("typing.", "")


def _counted_names(function):
    """Parameters of `function` its body makes a range of (`range(n)`, `torch.arange(j - i, j)`):
    numbers, not tensors."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        return set()
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if name in ("range", "arange"):
                for a in node.args:
                    out.update(_arithmetic_names(a))
    return out


def _arithmetic_names(node):
    """The names an expression computes with (`j - i`, `n`), not those it reads an attribute,
    an item or a call's result of (`x.device`, `x.shape[1]`, `len(x)`: a tensor's)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.BinOp):
        return _arithmetic_names(node.left) | _arithmetic_names(node.right)
    if isinstance(node, ast.UnaryOp):
        return _arithmetic_names(node.operand)
    return set()


def scalar_inputs(cls, specs):
    """The forward inputs that are numbers (module_inputs.scalar_value: annotated `int`,
    `Tuple[int, int]`, ..., or counted in a range) get their value instead of a tensor."""
    try:
        parameters = inspect.signature(cls.forward).parameters
    except (TypeError, ValueError, AttributeError):
        return specs
    counted = None
    for s in specs:
        p = parameters.get(s["name"])
        if p is None:
            continue
        text = _annotation_text(p.annotation)
        if not text and counted is None:
            counted = _counted_names(cls.forward)
        value = module_inputs.scalar_value(text, s["name"] in (counted or ()), s["name"])
        if value is not None:
            s.update(value=value, dtype="python", rank=0, dims={}, rank_known=True)
    return specs


def optional_parameters(model, specs):
    """{name: annotation} of forward's parameters left to a None default (module_inputs.deduce's
    `optional`)."""
    try:
        parameters = inspect.signature(model.forward).parameters
    except (TypeError, ValueError, AttributeError):
        return {}
    given = {s["name"] for s in specs}
    return {n: _annotation_text(p.annotation) or "" for n, p in parameters.items()
            if p.default is None and n not in given and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def failing_line(error, path):
    """The source line of the innermost frame of the standalone at `path` in `error`'s traceback
    (the module's own code, not torch's), stripped; None when no frame is in it."""
    return failing_frame(error, path)[0]


def failing_frame(error, path):
    """(failing_line, that frame); (None, None) when no frame of `path` is in the traceback."""
    found = (None, None)
    if not path:
        return found
    for frame, lineno in traceback.walk_tb(error.__traceback__):
        if os.path.abspath(frame.f_code.co_filename) == os.path.abspath(path):
            found = (linecache.getline(path, lineno).strip(), frame)
    return found


_READ_NODES = (ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Constant, ast.Tuple, ast.List,
               ast.BinOp, ast.UnaryOp, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
               ast.USub, ast.UAdd, ast.Load, ast.Slice, ast.Call)


def frame_reader(frame):
    """A function giving the value of an expression of the failing line in that frame, as the
    line saw it (`self.bits`, `(teacher_input.shape[0],)`, `h * w`): names, attributes, items,
    arithmetic and calls of `len` or `.size()` only (module_inputs.deduce's `evaluate`); None for
    anything else or when it raises."""
    if frame is None:
        return None

    def evaluate(text):
        try:
            tree = ast.parse(text, mode="eval")
        except (SyntaxError, ValueError):
            return None
        for node in ast.walk(tree):
            if not isinstance(node, _READ_NODES):
                return None
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                return None
            if isinstance(node, ast.Name) and node.id.startswith("__"):
                return None
            if isinstance(node, ast.Call) and not (
                    isinstance(node.func, ast.Name) and node.func.id == "len"
                    or isinstance(node.func, ast.Attribute) and node.func.attr == "size"):
                return None
        try:
            return eval(compile(tree, "<failing line>", "eval"), dict(frame.f_globals), dict(frame.f_locals))
        except Exception:
            return None
    return evaluate


_IDENTITIES = {}


# Attributes a wrapper reads off the network it wraps that are numbers by their names
# (`self.max_seq_len = net.max_seq_len`, `dim = encoder.dim`, `net.num_tokens`); a name that is
# a submodule (`net.token_emb`, `net.attn_layers`) is none of these.
_SIZE_ATTRIBUTE = re.compile(r"(?:^|_)(?:dim|dims|len|length|size|tokens|heads|channels)$|^(?:num|n)_")


def _identity(torch):
    """torch.nn.Identity that also takes the further arguments the submodule it stands for is
    called with (`self.mixer(x, inference_params=p)`), returning its first input as Identity does,
    and that answers the sizes a wrapper reads off the network it stands for (`net.max_seq_len`)
    as a config stand-in answers them."""
    if id(torch) not in _IDENTITIES:
        class StandInIdentity(torch.nn.Identity):
            def forward(self, input, *args, **kwargs):
                return input

            def __getattr__(self, name):
                try:
                    return super().__getattr__(name)
                except AttributeError:
                    if name.startswith("_") or not _SIZE_ATTRIBUTE.search(name.lower()):
                        raise
                    return module_inputs.guess_attribute(name)
        _IDENTITIES[id(torch)] = StandInIdentity
    return _IDENTITIES[id(torch)]


CONFIG_DEPTH = 2  # the layer count a real config class's default network is cut to


def _annotation_class(annotation, namespace):
    if isinstance(annotation, str):
        annotation = getattr(namespace, annotation, None) if annotation.isidentifier() else None
    return annotation if isinstance(annotation, type) and annotation.__module__ != "builtins" else None


def config_class(cls, name, namespace):
    """The class the __init__ parameter `name` of `cls` is meant to be an instance of: its
    annotation (`config: GPT2Config`), else the class an `isinstance(config, BertConfig)` in an
    __init__ of `cls` or its bases checks; None when the code names none (or a builtin)."""
    for klass in getattr(cls, "__mro__", ())[:-1]:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            parameter = inspect.signature(init).parameters.get(name)
        except (TypeError, ValueError):
            parameter = None
        if parameter is not None and parameter.annotation is not inspect.Parameter.empty:
            found = _annotation_class(parameter.annotation, namespace)
            if found is not None:
                return found
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(init)))
        except (OSError, TypeError, SyntaxError, IndentationError):
            continue
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance"
                    and len(node.args) == 2 and isinstance(node.args[0], ast.Name) and node.args[0].id == name):
                # `isinstance(student, (DistillableViT, DistillableT2TViT))`: the first the code names
                names = node.args[1].elts if isinstance(node.args[1], ast.Tuple) else [node.args[1]]
                for n in names:
                    found = _annotation_class(n.id, namespace) if isinstance(n, ast.Name) else None
                    if found is not None:
                        return found
    return None


def make_config(klass, read=(), defaults=None):
    """An instance of the config class `klass` made with its own defaults (required arguments
    guessed from their names), its layer counts cut to CONFIG_DEPTH; None when it cannot be made.
    Of what it lacks, the attributes the module's code reads off it by name (`read`: a field a
    newer release of the library dropped, `config.position_embedding_type`) are answered as
    ConfigStandIn answers them; anything else stays lacking: library code probes optional
    attributes (transformers' `hasattr(self, "quantization_config")` when Dynamo prints the
    config), and the code's `getattr(config, name, default)` takes its default."""
    try:
        obj = klass()
    except Exception:
        try:
            required = [p.name for p in inspect.signature(klass).parameters.values()
                        if p.default is inspect.Parameter.empty
                        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
            obj = klass(**{n: module_inputs.guess_attribute(n) for n in required})
        except Exception:
            return None
    try:
        for key, value in list(vars(obj).items()):
            if type(value) is int and value > CONFIG_DEPTH and re.search(r"layers?$|depth$|^n_layer", key):
                setattr(obj, key, CONFIG_DEPTH)
    except Exception:
        pass
    read, known = frozenset(read or ()), dict(defaults or {})
    if not read:
        return obj

    def __getattr__(self, attr):
        if attr.startswith("_") or attr not in read:
            raise AttributeError(attr)
        return known[attr] if attr in known else module_inputs.guess_attribute(attr)
    try:
        obj.__class__ = type(klass.__name__, (klass,), {"__getattr__": __getattr__, "__module__": klass.__module__})
    except Exception:
        pass
    return obj


def resolve_stand_ins(torch, kwargs, namespace=None, cls=None, defaults=None, config_classes=True, made=None,
                      source=""):
    """StandIn markers (module_inputs.py) as the objects they stand for; "module" ones are names
    of the standalone (`namespace`, its module), which the plugin had the closure define; where it
    does not, an nn.Identity class stands in, as for any class argument. A config is an instance
    of the class the code annotates or checks it as (config_class, make_config) when
    `config_classes` and that class can be made (its name appended to `made`), else a
    ConfigStandIn answering `defaults`."""
    out = {}
    for name, value in kwargs.items():
        if isinstance(value, module_inputs.StandIn):
            if value.kind == "module":
                found = getattr(namespace, value.target, None)
                value = found if isinstance(found, type) else _identity(torch)
            elif value.kind == "expression":
                value = build_expression(torch, value, namespace)
            elif value.kind == "config":
                klass = config_class(cls, name, namespace) if config_classes and cls is not None else None
                config = (make_config(klass, module_inputs.attributes_read(source, name), defaults)
                          if klass is not None else None)
                if config is not None and made is not None:
                    made.append(klass.__name__)
                value = config if config is not None else module_inputs.ConfigStandIn(defaults)
            else:
                name_in_nn = value.target.rsplit(".", 1)[1]
                if value.kind == "instance" and name_in_nn == "Identity" and _reads_weights(cls, name):
                    torch.manual_seed(0)
                    value = torch.nn.Linear(LAYER_WIDTH, LAYER_WIDTH)
                else:
                    layer = _identity(torch) if name_in_nn == "Identity" else getattr(torch.nn, name_in_nn)
                    value = layer if value.kind == "class" else layer()
        out[name] = value
    return out


# The sides of the linear layer that stands in for an object argument whose weights __init__
# reads: larger than the guessed sizes, which such a wrapper compares them with (a low-rank
# factorisation asserts its rank of 16 is below them).
LAYER_WIDTH = module_inputs.SIZE * module_inputs.LARGER


def _reads_weights(cls, name):
    """Whether an __init__ of `cls` reads a layer's weights off its parameter `name`
    (`module.weight.shape`, `layer.in_features`): the object is a layer, not any network."""
    for klass in getattr(cls, "__mro__", ())[:-1]:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            text = textwrap.dedent(inspect.getsource(init))
        except (OSError, TypeError):
            continue
        if module_inputs.attributes_read(text, name) & {"weight", "in_features", "out_features"}:
            return True
    return False


def build_expression(torch, stand_in, namespace):
    """The object an "expression" stand-in builds (`Unet(dim=64)`, as a call site of the module's
    file builds the network it passes), evaluated among the standalone's names, which the plugin
    had the closure define; an nn.Identity instance, as for any object argument, where that fails
    (a library the network needs is missing here)."""
    if namespace is None:
        return _identity(torch)()
    try:
        torch.manual_seed(0)
        return eval(compile(stand_in.tree, "<call site>", "eval"), dict(vars(namespace)))
    except (Exception, SystemExit):  # a function that exits (an argument parser) builds nothing
        return _identity(torch)()


NETWORK_TRIES = 4  # __init__ calls of a network class, each giving what a TypeError says is missing


def make_network(torch, klass):
    """An instance of the module class `klass` with its required arguments guessed from their
    names (module_inputs.guess_attribute; more where a TypeError says they are missing, as a
    subclass taking *args says only then), and the text that builds it; (None, None) when it
    cannot be made."""
    try:
        parameters = inspect.signature(klass).parameters.values()
    except (TypeError, ValueError):
        parameters = []
    kwargs = {p.name: module_inputs.guess_attribute(p.name) for p in parameters
              if p.default is inspect.Parameter.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    for _ in range(NETWORK_TRIES):
        try:
            torch.manual_seed(0)
            net = klass(**kwargs)
            return net, "%s(%s)" % (klass.__name__, ", ".join("%s=%r" % kv for kv in kwargs.items()))
        except TypeError as e:
            missing = [n for n in module_inputs.missing_init_args(str(e)) if n not in kwargs]
            if not missing:
                return None, None
            kwargs.update({n: module_inputs.guess_attribute(n) for n in missing})
        except Exception:
            return None, None
    return None, None


# Sources of __init__ arguments that are guesses (module_inputs.GUESSED_SOURCES) or object stand-ins.
NETWORK_SOURCES = module_inputs.GUESSED_SOURCES + ("stand_in",)


def named_networks(torch, cls, inputs, kwargs, namespace, record, built):
    """kwargs with the guessed arguments that the code annotates or checks as a module class of
    the standalone (`vit: ViT`, `isinstance(student, (DistillableViT, ...))`: config_class) made as
    that network (make_network); `built` gets the text each was made with."""
    if cls is None or namespace is None:
        return kwargs
    for arg in (inputs or {}).get("init", []):
        name = arg.get("name") if isinstance(arg, dict) else None
        if (name not in kwargs or arg.get("source") not in NETWORK_SOURCES or arg.get("stand_in") == "config"
                or isinstance(kwargs[name], type)):  # a class is asked for, not an instance
            continue
        klass = config_class(cls, name, namespace)
        # A class of the repository's code (the standalone defines it), not torch's own nn.Module.
        if (klass is None or klass is cls or not issubclass(klass, torch.nn.Module)
                or klass.__module__ != getattr(namespace, "__name__", None)):
            continue
        net, text = make_network(torch, klass)
        if net is not None:
            kwargs[name], built[name] = net, text
            record.append({"error": "", "change": "init %s = %s (the class the code names)" % (name, text)})
    return kwargs


PROCESS_GROUP_NAMES = ("process_group", "tp_group", "tensor_parallel_group", "pg")


def _wants_process_group(cls, name):
    """Whether the __init__ parameter `name` of `cls` is a torch.distributed process group: its
    annotation says so (`process_group: ProcessGroup`), or its name does."""
    try:
        parameter = inspect.signature(cls.__init__).parameters.get(name)
    except (TypeError, ValueError):
        parameter = None
    if parameter is not None and parameter.annotation is not inspect.Parameter.empty:
        annotation = parameter.annotation
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", repr(annotation))
        if "ProcessGroup" in text:
            return True
    return name in PROCESS_GROUP_NAMES


def single_rank_group(torch):
    """The default process group of this one process (world size 1, an in-process store), which
    tensor-parallel layers take to split nothing: NCCL on the GPU, gloo without one."""
    dist = torch.distributed
    if not dist.is_initialized():
        backend = "nccl" if torch.cuda.is_available() else "gloo"
        dist.init_process_group(backend=backend, store=dist.HashStore(), rank=0, world_size=1)
    return dist.group.WORLD


def process_groups(torch, cls, kwargs, record):
    """kwargs with the process groups __init__ takes (guessed as sizes by the plugin) made."""
    for name in list(kwargs):
        if _wants_process_group(cls, name) and not hasattr(kwargs[name], "size"):
            kwargs[name] = single_rank_group(torch)
            record.append({"error": "", "change": "init %s = a process group of one rank" % name})
    return kwargs


# Module-level globals a standalone keeps for its distributed set-up, None until an `initialize`
# function (which the closure left out: the module does not call it) sets them, and read by
# helpers that raise while they are None ("model parallelism was not initialized"): the worker is
# one process, so the sizes are 1 and the ranks 0, as that function would set them for one rank.
_WORLD_SIZE_GLOBAL = re.compile(r"(?:^|_)(?:WORLD|(?:MODEL|TENSOR|PIPELINE|DATA|EXPERT|CONTEXT|SEQUENCE)_PARALLEL"
                                r"(?:_WORLD)?|MP|TP|PP|DP|EP|CP)_SIZE$")
_RANK_GLOBAL = re.compile(r"(?:^|_)RANK$")


def single_process_globals(module, record):
    """Sets the standalone's distributed size and rank globals that are still None (see
    _WORLD_SIZE_GLOBAL) to those of one process; each one set goes to `record`."""
    names = []
    for name, value in list(vars(module).items()):
        if value is not None or not name.isupper():
            continue
        if _WORLD_SIZE_GLOBAL.search(name):
            setattr(module, name, 1)
            names.append("%s = 1" % name)
        elif _RANK_GLOBAL.search(name):
            setattr(module, name, 0)
            names.append("%s = 0" % name)
    if names:
        record.append({"error": "", "change": "globals %s (one process)" % ", ".join(names)})
    return names


_TORCH_CHAIN = re.compile(r"\btorch((?:\.[A-Za-z_]\w*)+)")


def torch_submodules(torch, source):
    """Imports the submodules of torch the code reaches as attributes (`torch.distributed.tensor.DTensor`)
    without importing them: `import torch` does not import every submodule, so such a name works
    only where something else imported it first (another module of the same worker; Dynamo once
    it has compiled). Returns the submodules imported."""
    imported = []
    for m in sorted(set(_TORCH_CHAIN.findall(source or ""))):
        parent, dotted = torch, "torch"
        for part in m.strip(".").split("."):
            dotted += "." + part
            # Private modules, test utilities (which read sys.argv, set defaults) and the operator
            # namespaces (torch.ops.x: looked up, not imported) stay as they are.
            if part.startswith("_") or part in ("testing", "ops", "classes"):
                break
            try:
                if hasattr(parent, part):
                    parent = getattr(parent, part)
                    if not isinstance(parent, type(torch)):
                        break
                    continue
                parent = importlib.import_module(dotted)
            except Exception:  # not a submodule (a name the code reads off one), or one that cannot import here
                break
            imported.append(dotted)
    return imported


def instantiate(cls, kwargs, record, torch=None):
    """cls(**kwargs), giving module_inputs.SIZE to arguments a TypeError says are missing and a
    process group of one rank to those that are process groups."""
    if torch is not None:
        process_groups(torch, cls, kwargs, record)
    for attempt in range(MAX_INIT_TRIES + 1):
        try:
            return cls(**kwargs)
        except TypeError as e:
            missing = module_inputs.missing_init_args(str(e))
            if not missing or attempt == MAX_INIT_TRIES:
                raise
            for name in missing:
                kwargs[name] = module_inputs.SIZE
            record.append({"error": trim(str(e), 200), "change": "init %s = %d" % (", ".join(missing), module_inputs.SIZE)})
    raise AssertionError("unreachable")


def build(torch, cls, inputs, record, namespace=None, defaults=None, source="", built=None):
    """(module, its __init__ arguments, the specs of its forward inputs) from the inferred inputs;
    the deducer's changes are appended to `record`. `namespace`: the standalone's module, where
    classes the inputs name are defined; `defaults`: module_inputs.code_defaults of its source,
    `source` its text (what a config class made from is read for).
    A config made from its class (make_config) that __init__ refuses is tried once more as a
    ConfigStandIn. `built`: where the text that made each network argument (named_networks) goes."""
    built = {} if built is None else built
    torch.manual_seed(0)
    specs = module_inputs.tensor_specs(inputs)
    made = []
    kwargs = resolve_stand_ins(torch, module_inputs.init_kwargs(inputs), namespace, cls, defaults, made=made,
                               source=source)
    kwargs = named_networks(torch, cls, inputs, kwargs, namespace, record, built)
    try:
        return instantiate(cls, kwargs, record, torch), kwargs, specs
    except Exception as e:
        if not made:
            return _build_larger(torch, cls, inputs, record, namespace, defaults, specs, e)
        record.append({"error": trim("%s: %s" % (type(e).__name__, e), 300),
                       "change": "config stand-in for %s" % ", ".join(made)})
    torch.manual_seed(0)
    kwargs = resolve_stand_ins(torch, module_inputs.init_kwargs(inputs), namespace, cls, defaults, False)
    kwargs = named_networks(torch, cls, inputs, kwargs, namespace, [], built)
    try:
        return instantiate(cls, kwargs, record, torch), kwargs, specs
    except Exception as e:
        return _build_larger(torch, cls, inputs, record, namespace, defaults, specs, e)


SIZE_CHECKS = (AssertionError, ValueError, ZeroDivisionError)  # what __init__ raises on sizes it rejects
GROWTHS = (module_inputs.LARGER, module_inputs.LARGER ** 2)  # 16 -> 64, then 256


def _build_larger(torch, cls, inputs, record, namespace, defaults, specs, error):
    """What __init__ checks of its sizes (divisibility, positive group counts): once more with the
    guessed sizes larger, the forward inputs with them, and once more still larger when that is
    rejected the same way (a bottleneck's width of a quarter or an eighth of the guessed one
    under GroupNorm's 32 groups wants 256); `error` again when that cannot help."""
    for factor in GROWTHS:
        larger = module_inputs.larger_init_kwargs(inputs, factor)
        if larger is None or not isinstance(error, SIZE_CHECKS):
            raise error
        record.append({"error": trim("%s: %s" % (type(error).__name__, error), 300),
                       "change": "guessed sizes %d -> %d" % (module_inputs.SIZE, module_inputs.SIZE * factor)})
        torch.manual_seed(0)
        kwargs = resolve_stand_ins(torch, larger, namespace, cls, defaults, False)
        try:
            return instantiate(cls, kwargs, record, torch), kwargs, module_inputs.larger_specs(specs, factor)
        except SIZE_CHECKS as e:
            error = e
    return _build_divisible(torch, cls, inputs, record, namespace, defaults, specs, error)


DIVISIBLE_TRIES = 3
_DIVISIBILITY = re.compile(r"assert\s+\(?\s*(\w+)\s*%\s*(.+?)\s*\)?\s*==\s*0\b")


def _build_divisible(torch, cls, inputs, record, namespace, defaults, specs, error):
    """Last: an __init__ that asserts a guessed size divisible by a number of its own (`assert
    image_size % patch_size == 0`, patches of 12 and of 16 in one network) that no growth of 16
    meets. The guessed argument of that name takes the least multiple of every divisor met so far
    that is at least the guess (24, then 48), the forward dimensions that were the guess with it;
    `error` again when the failing line asserts no such thing."""
    path = getattr(namespace, "__file__", None)
    guessed = {a.get("name") for a in (inputs or {}).get("init", []) if a.get("source") in module_inputs.GUESSED_SOURCES}
    base = module_inputs.init_kwargs(inputs)
    multiple, name = 1, None
    for _ in range(DIVISIBLE_TRIES):
        line, frame = failing_frame(error, path)
        m = _DIVISIBILITY.match(line or "") if isinstance(error, AssertionError) else None
        divisor = frame_reader(frame)(m.group(2)) if m and frame is not None else None
        if (not m or type(divisor) is not int or divisor <= 1 or m.group(1) not in guessed
                or type(base.get(m.group(1))) is not int or name not in (None, m.group(1))):
            raise error
        name = m.group(1)
        multiple = multiple * divisor // math.gcd(multiple, divisor)
        old = base[name]
        value = -(-old // multiple) * multiple
        record.append({"error": trim("%s: %s" % (type(error).__name__, error), 300),
                       "change": "init %s = %d (a multiple of %d the __init__ asserts)" % (name, value, multiple)})
        kwargs = dict(base, **{name: value})
        torch.manual_seed(0)
        kwargs = resolve_stand_ins(torch, kwargs, namespace, cls, defaults, False)
        try:
            grown = [dict(s, dims={k: (value if v == old else v) for k, v in s["dims"].items()}) for s in specs]
            return instantiate(cls, kwargs, record, torch), kwargs, grown
        except SIZE_CHECKS as e:
            error = e
    raise error


def run_eager(torch, model, specs, device, record, rebuild=None, path=None):
    """(output, specs, tensors, model) of the first eager forward that works, the deducer
    correcting the inputs from each error (at most MAX_TRIES times, never back to inputs already
    tried); its changes are appended to `record`. `rebuild(name, value)`, where given, makes the
    module again with one guessed __init__ size changed (module_inputs.init_width_fix) and returns
    it. Raises the last error when no correction is left. `path`: the standalone's file, whose
    failing line (failing_line) the deducer reads too; a divisibility the forward checks makes the
    module again with its guessed sizes larger (Rebuild.grow), once."""
    tried = set()
    for attempt in range(MAX_TRIES + 1):
        args = make_tensors(torch, specs, device)
        try:
            with torch.no_grad():
                reseed(torch)
                out = _call(model, specs, args)
            if str(device).startswith("cuda"):
                torch.cuda.synchronize()  # an error of the kernels it launched belongs to this try
            return out, specs, args, model
        except Exception as e:  # the deducer reads the message; anything else is the module's failure
            message = "%s: %s" % (type(e).__name__, e)
            tried.add(module_inputs.signature(specs))
            line, frame = failing_frame(e, path)
            fix = rebuild.fix(message, specs, tried) if rebuild is not None else None
            if fix is not None and attempt < MAX_TRIES:
                model = rebuild(*fix)
                record.append({"error": trim(message, 300), "change": "init %s -> %d (the input's width)" % fix})
                continue
            if (rebuild is not None and attempt < MAX_TRIES and module_inputs.divisibility_failed(message, line)
                    and rebuild.can_grow()):
                model = rebuild.grow()
                specs = module_inputs.grown_specs(specs)
                record.append({"error": trim(message, 300),
                               "change": "guessed sizes %d -> %d (a divisibility the forward checks)"
                               % (module_inputs.SIZE, module_inputs.SIZE * module_inputs.LARGER)})
                continue
            trial, why = module_inputs.deduce(specs, message, tried, line, optional_parameters(model, specs),
                                              frame_reader(frame))
            if trial is None or attempt == MAX_TRIES:
                raise
            record.append({"error": trim(message, 300), "change": why})
            specs = trial
    raise AssertionError("unreachable")


def placed(model, device):
    """The module moved to `device` and in eval mode. Both act in place; their return values are
    not the module's to give: a class overriding `train(mode)` without returning (timm's attention
    layers that clear a cache there) makes `eval()` return None."""
    model.to(device)
    model.eval()
    return model


class Rebuild:
    """Makes the module again with one guessed __init__ size changed (run_eager's `rebuild`)."""

    def __init__(self, torch, cls, kwargs, inputs, device):
        self.torch, self.cls, self.kwargs, self.device = torch, cls, kwargs, device
        self.guessed = [a.get("name") for a in (inputs or {}).get("init", [])
                        if a.get("source") in module_inputs.GUESSED_SOURCES and a.get("name") in kwargs]
        self.changed = set()

    def fix(self, message, specs, tried):
        fix = module_inputs.init_width_fix(message, specs, self.kwargs, self.guessed, tried)
        return None if fix is None or fix[0] in self.changed else fix

    def can_grow(self):
        return "grown" not in self.changed and any(
            self.kwargs.get(n) == module_inputs.SIZE or self._grown(self.kwargs.get(n)) is not None for n in self.guessed)

    @staticmethod
    def _grown(value):
        if type(value) is int and value == module_inputs.SIZE:
            return module_inputs.SIZE * module_inputs.LARGER
        if isinstance(value, tuple) and value and all(type(v) is int and v == module_inputs.SIZE for v in value):
            return tuple(module_inputs.SIZE * module_inputs.LARGER for _ in value)
        return None

    def grow(self):
        """The module again with every guessed size LARGER times larger (as build's
        _build_larger for an __init__ that rejects them)."""
        self.changed.add("grown")
        for n in self.guessed:
            grown = self._grown(self.kwargs.get(n))
            if grown is not None:
                self.kwargs[n] = grown
        self.torch.manual_seed(0)
        return placed(self.cls(**self.kwargs), self.device)

    def __call__(self, name, value):
        self.changed.add(name)
        self.kwargs[name] = value
        self.torch.manual_seed(0)
        return placed(self.cls(**self.kwargs), self.device)


SEED = 0


def reseed(torch):
    """The same random state before every forward whose output is compared (eager, compiled,
    float64): torch's generators (every device's), Python's and numpy's, as torchbench's
    reset_rng_state does before its eager and its compiled run."""
    torch.manual_seed(SEED)
    random.seed(SEED)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy.random.seed(SEED)
        except Exception:  # noqa: BLE001 -- a numpy stand-in without a generator
            pass


@contextlib.contextmanager
def configured(config, **values):
    """`config` (torch._inductor.config, torch._dynamo.config) with `values` set for the block
    and restored after it; settings this torch does not have are left out."""
    saved = {}
    try:
        for name, value in values.items():
            if config is not None and hasattr(config, name):
                saved[name] = getattr(config, name)
                setattr(config, name, value)
        yield sorted(saved)
    finally:
        for name, value in saved.items():
            setattr(config, name, value)


# Inductor's settings for the compile whose output is compared. fallback_random: random ops
# (dropout in training, torch.rand_like, .uniform_(), Gumbel sampling) call ATen's generator
# as eager does instead of Inductor's own Philox stream, so with the same seed before both runs
# a module that samples gives the same numbers compiled as eager (PyTorch's own accuracy checks
# set it for that reason). Modules that draw nothing compile to the same code either way.
INDUCTOR_SETTINGS = {"fallback_random": True}

# A compile that failed because a Python float argument became a float64 scalar in the graph
# (Dynamo's unspecialised floats) where a kernel of the module wants float32: Triton refusing a
# loop-carried fp32 re-assigned fp64, or any other compile error naming fp64. Tried once more
# with the floats specialised as constants (torch._dynamo.config.specialize_float), as eager
# passes them.
_FLOAT64_SCALAR = re.compile(r"\bfp64\b")


def _unspecialized_float_failure(error):
    text = "%s: %s" % (type(error).__name__, error)
    cause = error.__cause__ or error.__context__
    if cause is not None:
        text += "\n%s: %s" % (type(cause).__name__, cause)
    return bool(_FLOAT64_SCALAR.search(text))


def _config(torch, name):
    package = getattr(torch, name, None)
    return getattr(package, "config", None)


def compile_and_run(torch, model, specs, args, info):
    """(compiled output, Inductor's output code) of the module compiled with INDUCTOR_SETTINGS,
    run once on copies of `args` after reseed; once more with floats specialised where the first
    compile failed on a float64 scalar (_unspecialized_float_failure). The settings used go to
    info["compile_settings"], the torch_workarounds a compile used to info["workarounds"]."""
    from torch._inductor.utils import run_and_get_code
    torch_workarounds.install(torch)
    dynamo_settings = {}
    while True:
        torch._dynamo.reset()
        compiled = torch.compile(model)
        del torch_workarounds.USED[:]
        try:
            with torch.no_grad(), configured(_config(torch, "_inductor"), **INDUCTOR_SETTINGS) as inductor_set, \
                    configured(_config(torch, "_dynamo"), **dynamo_settings) as dynamo_set:
                positional, keywords = module_inputs.call_arguments(specs, _clone(torch, args))
                reseed(torch)
                out, codes = run_and_get_code(compiled, *positional, **keywords)
            torch.cuda.synchronize()
        except Exception as e:
            if torch_workarounds.USED:
                info["workarounds"] = list(torch_workarounds.USED)
            if (dynamo_settings or not _unspecialized_float_failure(e)
                    or not hasattr(_config(torch, "_dynamo"), "specialize_float")):
                raise
            info["compile_retry"] = {"error": trim("%s: %s" % (type(e).__name__, e), 300),
                                     "change": "specialize_float = True (float arguments as constants)"}
            dynamo_settings = {"specialize_float": True}
            continue
        info["compile_settings"] = dict({k: INDUCTOR_SETTINGS[k] for k in inductor_set},
                                        **{k: dynamo_settings[k] for k in dynamo_set})
        if torch_workarounds.USED:
            info["workarounds"] = list(torch_workarounds.USED)
        else:
            info.pop("workarounds", None)
        return out, codes


def _to_float64(torch, value):
    if torch.is_tensor(value):
        if value.is_floating_point():
            return value.detach().double()
        if value.is_complex():
            return value.detach().to(torch.complex128)
    return value


# What a CUDA context says after a kernel faulted; the worker is recycled after such an error.
_GPU_FAULT = re.compile(r"CUDA error|illegal memory access|device-side assert|illegal instruction|"
                        r"unspecified launch failure|misaligned address", re.I)


def float64_reference(torch, model, specs, args, info=None):
    """The module's output run eagerly in float64 (parameters, buffers and floating inputs; complex
    ones in complex128), after reseed; None when it cannot run so (an op without a float64 kernel,
    a dtype the code asserts), with the error in info["float64_reference_error"] and
    info["context_poisoned"] set when the GPU faulted. The module is converted in place: this is
    its last use (the comparison's reference is the end of the stage)."""
    try:
        model._apply(lambda t: _to_float64(torch, t))
        wide = [_to_float64(torch, a) for a in args]
        with torch.no_grad():
            reseed(torch)
            out = _call(model, specs, wide)
        torch.cuda.synchronize()
        return out
    except Exception as e:  # noqa: BLE001 -- no reference; the tolerance alone decides
        if info is not None:
            message = "%s: %s" % (type(e).__name__, e)
            info["float64_reference_error"] = trim(message, 300)
            if _GPU_FAULT.search(message):
                info["context_poisoned"] = True
        return None


def _against_reference(torch):
    """output_compare.compare's `against_reference` for real tensors: whether eager is within
    REFERENCE_TRUST times the tolerance of the float64 reference, and both root-mean-square errors
    against it (torch._dynamo.utils.rmse)."""
    def against(a, b, r, rtol, atol):
        if not (a.is_floating_point() and r.is_floating_point()) or tuple(a.shape) != tuple(r.shape):
            return False, None, None
        x, y, ref = a.detach().double(), b.detach().double(), r.detach().double()
        k = output_compare.REFERENCE_TRUST
        trusted = bool(torch.allclose(x, ref, rtol=k * rtol, atol=k * atol, equal_nan=True))
        eager_rmse = float(torch.sqrt(torch.mean(torch.square(ref - x))))
        compiled_rmse = float(torch.sqrt(torch.mean(torch.square(ref - y))))
        return trusted, eager_rmse, compiled_rmse
    return against


def run(task, row, torch, mark):
    """Fills `row` (worker.py's) for one module; raises on failure with row["stage_reached"] at
    the failing stage: import (import or __init__), load (eager forward), run (compile, compiled
    forward, comparison). row["inductor"]["phase"] says which of those exactly."""
    spec = task["spec"]
    inputs = spec.get("inputs") or {}
    info = row["inductor"] = {"phase": "import", "eager_ok": False, "compiled_ok": False, "match": False,
                              "deduce": [], "deferred_imports": []}
    mark("import")
    path, name = os.path.join(task["bundle_dir"], spec["module"]), "mined_module_%d" % spec["id"]
    try:
        module = _import(path, name, info["deferred_imports"])
    except ImportError as e:
        if not bundle_libraries.drop(task.get("bundle_dir"), e):  # a carried package that cannot import here
            raise
        info["bundle_libraries_dropped"] = True
        module = _import(path, name, info["deferred_imports"])
    cls = getattr(module, spec["entry"], None)
    if not isinstance(cls, type) or not issubclass(cls, torch.nn.Module):
        raise NotAModule("%s is not a torch.nn.Module subclass (got %s)" % (spec["entry"], type(cls).__name__))
    info["phase"] = "instantiate"
    device = torch.device("cuda")
    with open(os.path.join(task["bundle_dir"], spec["module"]), encoding="utf-8") as f:
        source = f.read()
    torch_submodules(torch, source)
    single_process_globals(module, info["deduce"])
    built = {}
    model, kwargs, specs = build(torch, cls, inputs, info["deduce"], module, module_inputs.code_defaults(source), source,
                                 built)
    specs = scalar_inputs(cls, specs)
    model = placed(model, device)

    row["stage_reached"] = "load"
    info["phase"] = "eager"
    mark("load")
    t0 = time.perf_counter()
    eager, specs, args, model = run_eager(torch, model, specs, device, info["deduce"],
                                          Rebuild(torch, cls, kwargs, inputs, device),
                                          os.path.join(task["bundle_dir"], spec["module"]))
    row["run_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
    info["eager_ok"] = True
    # A class argument by its name (`BasicBlock`), as the source writes it.
    # An argument a call site's expression built, as that expression (the network's repr is long).
    built.update({a["name"]: a["stand_in"].partition(":")[2] for a in inputs.get("init", [])
                  if isinstance(a, dict) and str(a.get("stand_in", "")).startswith("expression:")})
    info["inputs_used"] = {"init": {k: built[k] if k in built and not isinstance(v, type) and type(v).__name__ != "StandInIdentity"
                                    else v.__name__ if isinstance(v, type) else repr(v) for k, v in kwargs.items()},
                           "forward": module_inputs.describe(specs)}

    row["stage_reached"] = "run"
    info["phase"] = "compile"
    mark("run")
    t0 = time.perf_counter()
    out, codes = compile_and_run(torch, model, specs, args, info)
    row["compile_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
    info["compiled_ok"] = True
    row["output_code"] = list(codes)
    info["graphs"] = len(codes)

    info["phase"] = "compare"
    result = output_compare.compare(eager, out, torch.is_tensor, _measure(torch))
    if not result["match"] and result["tensors"]:
        # Outside the tolerance: as close to the true (float64) value as eager is?
        reference = float64_reference(torch, model, specs, args, info)
        info["float64_reference"] = reference is not None
        if reference is not None:
            try:
                result = output_compare.compare(eager, out, torch.is_tensor, _measure(torch), reference,
                                                _against_reference(torch))
            except Exception as e:  # noqa: BLE001 -- the tolerance's verdict stands
                info["float64_reference_error"] = trim("%s: %s" % (type(e).__name__, e), 300)
    info.update(match=result["match"], max_abs_error=result["max_abs_error"], tolerances=result["tolerances"],
                tensors=result["tensors"], comparison=result["comparison"])
    for key in ("reference", "reference_refused"):
        if result.get(key):
            info[key] = result[key]
    if not result["match"]:
        raise OutputMismatch("compiled output differs from eager at %s (max abs error %.3g)"
                             % (result["worst"], result["max_abs_error"]))
    if result["tensors"] == 0:
        raise OutputMismatch("the module returned no tensor to compare")
    info["phase"] = "done"
