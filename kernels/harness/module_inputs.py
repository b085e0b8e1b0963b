"""Inputs for a mined nn.Module (the torch_module plugin's `inputs`, BUNDLE.md) and the bounded
trial-and-error deducer that corrects them from the errors the module raises, as
pytorch-jit-paritybench's does. Standard library only: the tensors are described here and made
in inductor_stage.py.

A tensor is {"name", "rank", "dims": {"index": size}, "dtype", "high"?}; `dims` holds the sizes
the evidence fixed (index may be negative: -1 is the last dimension), every other dimension is
BATCH for the first and SIZE after it.
"""
import ast
import copy
import re

BATCH = 2
SIZE = 16          # the plugin guesses sizes as 16 too (input_inference.h): they agree
MAX_RANK = 8
DEFAULT_HIGH = 2   # integer inputs of unknown range: valid indices for any table
SPATIAL_LARGE = 64  # image sides after "kernel larger than the input": a 16x downsampling stem still leaves 4


class InputError(ValueError):
    """The inputs spec cannot be read."""


class StandIn:
    """An __init__ argument that is an object, not a number: `kind` is "config", "class" or
    "instance", `target` the torch.nn class ("torch.nn.ReLU") for the last two; or "module", a
    class the module's own file passes it where it instantiates it (`ResNet(BasicBlock, ...)`),
    `target` its name in the standalone, which defines it; or "expression", what a call site
    of the file builds the argument with (`Unet(dim=64, dim_mults=(1, 2, 4, 8))`: calls of the
    standalone's classes and functions on literals, checked_expression), `tree` its parsed form.
    inductor_stage.py turns it into the object."""
    STAND_IN_CLASSES = ("torch.nn.ReLU", "torch.nn.Identity", "torch.nn.GELU")

    def __init__(self, text):
        kind, _, target = text.partition(":")
        if kind == "expression":
            self.tree = checked_expression(target)
        elif kind == "module":
            if not target.isidentifier():
                raise InputError("unknown stand-in %r" % text)
        elif kind not in ("config", "class", "instance") or (kind != "config" and target not in self.STAND_IN_CLASSES):
            raise InputError("unknown stand-in %r" % text)
        self.kind, self.target = kind, target

    def __repr__(self):
        return "<stand-in %s%s>" % (self.kind, ":" + self.target if self.target else "")


_EXPRESSION_NODES = (ast.Expression, ast.Call, ast.Name, ast.Constant, ast.Tuple, ast.List, ast.Dict, ast.Set,
                     ast.Subscript, ast.keyword, ast.UnaryOp, ast.USub, ast.UAdd, ast.Load)


def checked_expression(text):
    """The parsed form of an "expression" stand-in: calls of plain names (the standalone's
    classes and functions) on literals, items of literals and further such calls; nothing else
    (no attribute, no dunder name, no operator but a sign)."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError) as e:
        raise InputError("expression stand-in %r: %s" % (text, e))
    for node in ast.walk(tree):
        if not isinstance(node, _EXPRESSION_NODES):
            raise InputError("expression stand-in %r: %s not allowed" % (text, type(node).__name__))
        if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name):
            raise InputError("expression stand-in %r: only calls of names" % text)
        if isinstance(node, ast.Name) and (node.id.startswith("__") or not isinstance(node.ctx, ast.Load)):
            raise InputError("expression stand-in %r: name %s" % (text, node.id))
    return tree


def guess_attribute(name):
    """What a config object's attribute `name` most likely holds, read from its name (the
    plugin guesses __init__ arguments the same way)."""
    n = name.lower()
    if n == "bias" or n.endswith("_bias"):
        return False  # a switch in configs (`mlp_bias`, `qkv_bias`), never a size
    if "eps" in n:
        return 1e-5
    if "drop" in n:
        return 0.0
    if "range" in n or n.endswith("std"):
        return 0.02
    if n.startswith(("use_", "is_", "has_", "with_", "output_", "return_", "tie_")):
        return False
    if n.startswith("act") or n.endswith("_act") or "activation" in n:
        return "silu"  # the one activation every LLM-style config accepts
    if "head" in n:
        return 4
    if "vocab" in n:
        return 100
    if "layers" in n or "depth" in n:
        return 2
    if re.search(r"mask|keep|sample|select", n) and re.search(r"ratio|prob|rate|frac", n) or re.search(r"prob|frac", n):
        return 0.5  # a share (`masking_ratio`, `mask_prob`), as the plugin guesses it
    if "ratio" in n or "factor" in n:
        return 4
    if n.endswith(("type", "mode", "name", "dtype", "impl", "implementation")):
        return None
    if "theta" in n or "base" in n:
        return 10000.0
    return SIZE


class ConfigStandIn:
    """A configuration object whose every attribute (and item) is guessed from its name, except
    those the module's code reads with a default of its own (`getattr(config, "fused_mlp",
    False)`): `defaults` (code_defaults) gives those, as a config without them would."""

    def __init__(self, defaults=None):
        object.__setattr__(self, "_defaults", dict(defaults or {}))

    def __getattr__(self, name):
        if name.startswith("__") or name == "_defaults":
            raise AttributeError(name)
        return self._defaults[name] if name in self._defaults else guess_attribute(name)

    def __getitem__(self, name):
        return self.__getattr__(str(name))

    def get(self, name, default=None):
        return self.__getattr__(str(name))

    def __contains__(self, name):
        return True

    def __repr__(self):
        return "<config stand-in>"


def code_defaults(source):
    """{name: default} for the attributes the module's code reads with a literal default of its
    own: `getattr(config, "fused_mlp", False)`, `cfg.get("depth", 2)`, and, for an attribute the
    code requires to be one of some strings (`config.hidden_act not in ["gelu", "gelu_new"]`,
    which then raises), the first of them; for one the code unpacks into names (`gate, down =
    config.mlp_multipliers`), a tuple of their guesses. A name read with two different defaults
    is left out (the stand-in guesses it)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    found, conflicting = {}, set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or len(node.args) != (3 if isinstance(node.func, ast.Name) else 2):
            continue
        if isinstance(node.func, ast.Name) and node.func.id == "getattr":
            key, default = node.args[1], node.args[2]
        elif isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            key, default = node.args[0], node.args[1]
        else:
            continue
        if not (isinstance(key, ast.Constant) and isinstance(key.value, str) and key.value.isidentifier()):
            continue
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError, TypeError):
            continue
        name = key.value
        if name in found and found[name] != value:
            conflicting.add(name)
        found.setdefault(name, value)
    required, clashing = {}, set()
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.NotIn)
                and isinstance(node.left, ast.Attribute) and isinstance(node.left.value, ast.Name)
                and isinstance(node.comparators[0], (ast.List, ast.Tuple, ast.Set))):
            continue
        choices = node.comparators[0].elts
        if not choices or not all(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in choices):
            continue
        name = node.left.attr
        if name in required and required[name] != choices[0].value:
            clashing.add(name)
        required.setdefault(name, choices[0].value)
    for name, value in required.items():
        if name not in clashing and name not in found:
            found[name] = value
    # `gate_multiplier, down_multiplier = config.mlp_multipliers`: a tuple, one guess per name.
    unpacked = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Tuple)
                and isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name)):
            continue
        names = node.targets[0].elts
        if len(names) < 2 or not all(isinstance(n, ast.Name) for n in names):
            continue
        value = tuple(guess_attribute(n.id) for n in names)
        attr = node.value.attr
        if attr in unpacked and len(unpacked[attr]) != len(value):
            clashing.add(attr)
        unpacked.setdefault(attr, value)
    for name, value in unpacked.items():
        if name not in clashing and name not in found:
            found[name] = value
    return {k: v for k, v in found.items() if k not in conflicting}


def attributes_read(source, name):
    """The attributes the code reads off a variable called `name` (`config.position_embedding_type`
    anywhere in the standalone: the config object is handed down under its name)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {node.attr for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name
            and isinstance(node.ctx, ast.Load)}


# An __init__ switch that has the module torch.compile parts of itself (Liger's chunked losses,
# `compiled=True`): the harness compiles the module whole, and its eager run is to be eager, so
# that the deducer reads the module's own errors, not Dynamo's fake-tensor report of them.
COMPILE_SWITCHES = ("compiled", "compile", "use_compile", "torch_compile", "use_torch_compile", "do_compile")


def init_kwargs(inputs):
    """{name: value} for the __init__ arguments the harness passes (defaults are left to Python);
    object arguments are StandIn markers."""
    out = {}
    for arg in (inputs or {}).get("init", []):
        if not isinstance(arg, dict) or not isinstance(arg.get("name"), str):
            raise InputError("init argument %r is not {name, literal?, source}" % (arg,))
        if arg.get("stand_in"):
            out[arg["name"]] = StandIn(arg["stand_in"])
            continue
        if "literal" not in arg:
            if arg["name"] in COMPILE_SWITCHES and arg.get("source") == "default":
                out[arg["name"]] = False
            continue
        try:
            out[arg["name"]] = ast.literal_eval(arg["literal"])
        except (ValueError, SyntaxError) as e:
            raise InputError("init argument %s: %r is not a literal (%s)" % (arg["name"], arg["literal"], e))
    return out


GUESSED_SOURCES = ("size_name", "fallback", "use")  # the plugin's guesses, not the module's own numbers
LARGER = 4  # the factor guessed sizes grow by when they are too small for the module's own numbers


def larger_init_kwargs(inputs, factor=LARGER):
    """init_kwargs with every guessed size (SIZE, alone or in a tuple) `factor` times larger, for a
    module whose __init__ rejected them (`dim % dim_head` with a default dim_head of 32, GroupNorm's
    32 groups); None when no guessed size is there to grow."""
    kwargs = init_kwargs(inputs)
    grown = False
    for arg in (inputs or {}).get("init", []):
        name = arg.get("name")
        if arg.get("source") not in GUESSED_SOURCES or name not in kwargs:
            continue
        value = kwargs[name]
        if type(value) is int and value == SIZE:
            kwargs[name], grown = SIZE * factor, True
        elif isinstance(value, tuple) and value and all(type(v) is int and v == SIZE for v in value):
            kwargs[name], grown = tuple(SIZE * factor for _ in value), True
    return kwargs if grown else None


def larger_specs(specs, factor=LARGER):
    """The forward inputs to go with larger_init_kwargs: dimensions fixed at SIZE (read from the
    guessed sizes) grow with them."""
    out = copy.deepcopy(specs)
    for s in out:
        s["dims"] = {k: (v * factor if v == SIZE else v) for k, v in s["dims"].items()}
    return out


def tensor_specs(inputs):
    """The forward tensors as the deducer edits them (copies; the spec is left alone)."""
    specs = []
    for t in (inputs or {}).get("forward", []):
        if not isinstance(t, dict) or not isinstance(t.get("name"), str):
            raise InputError("forward input %r is not {name, rank, dims, dtype}" % (t,))
        rank = t.get("rank", 4)
        if not isinstance(rank, int) or not 0 <= rank <= MAX_RANK:
            raise InputError("forward input %s: rank %r" % (t["name"], rank))
        dims = {}
        for k, v in (t.get("dims") or {}).items():
            if isinstance(v, int) and 0 < v <= 1 << 16:
                dims[int(k)] = v
        spec = {"name": t["name"], "rank": rank, "dims": dims, "dtype": t.get("dtype", "float32"),
                "rank_known": t.get("rank_known", True) is not False, "keyword": t.get("keyword") is True}
        if t.get("high") is not None:
            spec["high"] = t["high"]
        specs.append(spec)
    return specs


def call_arguments(specs, values):
    """(positional, keywords) for calling forward with `values`, one per spec: keyword-only
    parameters (after `*` in its signature) by name."""
    positional = [v for s, v in zip(specs, values) if not s.get("keyword")]
    keywords = {s["name"]: v for s, v in zip(specs, values) if s.get("keyword")}
    return positional, keywords


def shape_of(spec):
    rank = spec["rank"]
    shape = [BATCH if i == 0 else SIZE for i in range(rank)]
    for k, v in spec["dims"].items():
        i = k if k >= 0 else rank + k
        if 0 <= i < rank:
            shape[i] = v
    return shape


def describe(specs):
    return [{"name": s["name"], "value": s["value"]} if s.get("value") is not None else
            {"name": s["name"], "shape": shape_of(s), "dtype": s["dtype"]} for s in specs]


# --- the deducer -------------------------------------------------------------------------------

def _set_rank(specs, which, rank, why, exact=True):
    """The rank an error showed. An exact one (not a lower bound: `exact` False) is kept from
    then on, so later trials of unknown ranks leave it."""
    s = specs[which]
    if s["rank"] == rank or not 0 < rank <= MAX_RANK or s.get("value") is not None:
        return None
    s["rank"] = rank
    s["rank_known"] = s.get("rank_known", True) or exact
    return why


def _first_float(specs):
    for i, s in enumerate(specs):
        if s["dtype"].startswith("float"):
            return i
    return 0 if specs else None


def _with_dim(specs, index, value):
    """The first input whose dimension `index` is `value` (shape order); None if none is."""
    for i, s in enumerate(specs):
        shape = shape_of(s)
        j = index if index >= 0 else len(shape) + index
        if 0 <= j < len(shape) and shape[j] == value:
            return i
    return None


def _set_dim(specs, which, index, value, why):
    s = specs[which]
    rank = s["rank"]
    if s.get("value") is not None:
        return None
    j = index if index >= 0 else rank + index
    if not 0 <= j < rank or shape_of(s)[j] == value or not 0 < value <= 1 << 16:
        return None
    s["dims"] = {k: v for k, v in s["dims"].items() if (k if k >= 0 else rank + k) != j}
    s["dims"][index] = value
    return why


def _r_matmul(specs, m):
    a_cols, b_rows = int(m.group(2)), int(m.group(3))
    i = _with_dim(specs, -1, a_cols)
    return None if i is None else _set_dim(specs, i, -1, b_rows, "last dim %d -> %d (matmul)" % (a_cols, b_rows))


def _r_channels(specs, m):
    want, got = int(m.group(1)), int(m.group(2))
    i = _with_dim(specs, 1, got)
    return None if i is None else _set_dim(specs, i, 1, want, "channels %d -> %d" % (got, want))


def _r_conv_input(specs, m):
    """A convolution's "expected input[2, 16, 16, 16] to have 3 channels, but got 16": when the
    input it prints is one of the module's own, that input went into the convolution as it is,
    so its rank is right (rank trials would only move it away) and dimension 1 takes the count."""
    printed = [int(x) for x in re.findall(r"\d+", m.group(1))]
    want = int(m.group(2))
    for i, s in enumerate(specs):
        if shape_of(s) == printed and s["dtype"].startswith("float"):
            s["rank_known"] = True
            return _set_dim(specs, i, 1, want, "channels %d -> %d (rank %d kept)" % (printed[1], want, s["rank"]))
    return None


def _image_input(specs):
    """The first float input of rank 3 or more: the one a convolution stack flattens."""
    for i, s in enumerate(specs):
        if s["dtype"].startswith("float") and s["rank"] >= 3:
            return i
    return None


def _scale_sides(specs, i, want, got, why):
    """Features a flatten gives are channels times the spatial sides' product, so `got` features
    where `want` are expected asks for sides scaled by (want/got) ** (1/sides): exactly when that
    is a power of two (strided, padded stacks halve a side per stage), else one doubling or halving
    (unpadded convolutions take a few pixels off; the next error refines it)."""
    s = specs[i]
    shape = shape_of(s)
    sides = shape[2:]
    if not sides or want == got or want <= 0 or got <= 0:
        return None
    # The same counts again after the sides moved: they are not the sides' (imgclsmob's BatchNorm
    # of 64 channels where 16 are expected went through four halvings).
    if [want, got] in s.get("scaled_for", []):
        return None
    s.setdefault("scaled_for", []).append([want, got])
    factor = 2.0 if want > got else 0.5
    for j in range(1, 7):
        if want > got and want == got * (1 << j) ** len(sides):
            factor = float(1 << j)
        if got > want and got == want * (1 << j) ** len(sides):
            factor = 1.0 / (1 << j)
    new = [int(round(v * factor)) for v in sides]
    if min(new) < 1 or max(new) > 1024 or new == sides:
        return None
    for j, v in enumerate(new):
        _set_dim(specs, i, 2 + j, v, "")
    return "%s: spatial sides %s -> %s" % (why, sides, new)


def _r_flattened(specs, m):
    """mat1 of the batch's rows (`(2x4096 and 1024x10)`) against an input of rank 3 or more: the
    matrix is the input flattened per sample, not its last dimension (which would give rows of
    batch times the other dimensions). Its features are the whole input flattened (sides scale),
    its channels pooled (when dimension 1 is a guess, it takes the count), or what a convolution
    stack made of it (sides scale)."""
    rows, have, want = int(m.group(1)), int(m.group(2)), int(m.group(3))
    i = _image_input(specs)
    if rows != BATCH or i is None:
        return None
    s = specs[i]
    shape = shape_of(s)
    if s["rank"] == 3 and shape[-1] == have:
        return None  # pooled over the tokens: the width rule's
    if have == shape[1] and 1 not in s["dims"] and have != _product(shape[1:]):
        return _set_dim(specs, i, 1, want, "channels %d -> %d (pooled features)" % (have, want))
    return _scale_sides(specs, i, want, have, "flattened features %d -> %d" % (have, want))


def _product(values):
    out = 1
    for v in values:
        out *= v
    return out


def _r_odd_sides(specs, m):
    """Branches concatenated on channels whose sides differ by one ("Expected size 8 but got size
    7"): an unpadded 3x3 at stride 2 gives (H - 3) // 2 + 1, a padded one H // 2, and they agree
    only for odd H, as the 299 an Inception network takes is. Even sides of the image input
    become odd, once."""
    if int(m.group(1)) != 1 or abs(int(m.group(2)) - int(m.group(3))) != 1:
        return None
    i = _image_input(specs)
    if i is None or specs[i]["rank"] < 4:
        return None
    s = specs[i]
    sides = shape_of(s)[2:]
    if any(v % 2 for v in sides):
        return None
    for j, v in enumerate(sides):
        _set_dim(specs, i, 2 + j, v + 1, "")
    return "spatial sides %s -> %s (branches concatenated on channels differ by one)" % (sides, [v + 1 for v in sides])


def _r_running_mean(specs, m):
    """BatchNorm's "running_mean should contain 64 elements not 256": an input whose guessed
    dimension 1 is the count it got takes the one it expects; else the features come from a
    flatten (BatchNorm1d after a convolution stack) and the sides scale."""
    want, got = int(m.group(1)), int(m.group(2))
    for i, s in enumerate(specs):
        if s["dtype"].startswith("float") and s["rank"] >= 2 and 1 not in s["dims"] and shape_of(s)[1] == got:
            return _set_dim(specs, i, 1, want, "channels %d -> %d (batch norm)" % (got, want))
    i = _image_input(specs)
    return None if i is None else _scale_sides(specs, i, want, got, "batch norm features %d -> %d" % (got, want))


def _patch_channels(specs, want, message):
    """A patch embedding's norm (`LayerNorm(patch_dim)`, patch_dim = channels * patch elements)
    over the patches the module cut out of an input of ours ("normalized_shape=[48] ... got input
    of size[2, 4, 4, 256]": a rearrangement of [2, 16, 16, 16] into patches of 4x4 by 16 channels):
    the patch elements are the features it got over the channels it was given, so the channels
    are the features it wants over those (3). Only for an input whose shape is not the one the
    norm got (it went through the rearrangement) and whose channels no evidence fixed."""
    m = re.search(r"but got input of size\s*\[([\d, ]+)\]", message or "")
    if not m:
        return None
    got_shape = [int(x) for x in re.findall(r"\d+", m.group(1))]
    got = got_shape[-1] if got_shape else 0
    for i, s in enumerate(specs):
        shape = shape_of(s)
        if (not s["dtype"].startswith("float") or s.get("value") is not None or s["rank"] < 3 or 1 in s["dims"]
                or shape == got_shape):
            continue
        channels = shape[1]
        if got <= 0 or got % channels or want % (got // channels) or got == want:
            continue
        new = want // (got // channels)
        if 0 < new != channels:
            return _set_dim(specs, i, 1, new, "channels %d -> %d (a norm of %d over patches of %d elements)"
                            % (channels, new, want, got // channels))
    return None


def _r_normalized(specs, m):
    sizes = [int(x) for x in re.findall(r"\d+", m.group(1))]
    i = _first_float(specs)
    if i is None or not sizes:
        return None
    if len(sizes) == 1:
        why = _patch_channels(specs, sizes[0], m.string)
        if why:
            return why
    if specs[i]["rank"] < len(sizes) + 1:
        specs[i]["rank"] = len(sizes) + 1
    why = None
    for k, v in enumerate(reversed(sizes)):
        why = _set_dim(specs, i, -1 - k, v, "normalized shape %s" % sizes) or why
    return why


def _r_unpack(specs, m):
    """`B, C, H, W = x.shape` on the wrong rank. The shape may be unpacked with other values
    (`b, n, _, h = *x.shape, heads`), so the rank moves by the difference the counts give; a
    "too many" without a count on a rank already at most the expected count means such extras:
    one less."""
    want = int(m.group(1))
    got = int(m.group(2)) if m.group(2) else None
    too_many = m.group(0).startswith("too many")
    # The input the message is about first: the rank it names, or one above the expected count.
    order = sorted(range(len(specs)), key=lambda i: specs[i]["rank"] != got if got is not None
                   else specs[i]["rank"] <= want)
    for i in order:
        rank = specs[i]["rank"]
        if got is not None:
            new = rank + want - got
        elif too_many:
            new = want if rank > want else rank - 1
        else:
            continue
        return _set_rank(specs, i, new, "rank %d -> %d (unpacking the shape)" % (rank, new))
    return None


def _r_expected_nd(specs, m):
    ranks = [int(x) for x in m.groups() if x]
    want = max(ranks)  # "3D (unbatched) or 4D (batched)": the batched one
    i = _first_float(specs)
    return None if i is None else _set_rank(specs, i, want, "rank -> %d (%s)" % (want, m.group(0)[:60]))


def _r_broadcast(specs, m):
    a, b, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    for value, other in ((a, b), (b, a)):
        for i, s in enumerate(specs):
            shape = shape_of(s)
            # Broadcasting aligns from the right; for inputs of the module's own rank d counts
            # from the left.
            if d < len(shape) and shape[d] == value and other != 1:
                return _set_dim(specs, i, d, other, "dim %d: %d -> %d (broadcast)" % (d, value, other))
    return None


def _r_dim_range(specs, m):
    got = int(m.group(3))
    want = got + 1 if got >= 0 else -got
    i = _first_float(specs)
    if i is None or specs[i]["rank"] >= want:
        return None
    return _set_rank(specs, i, want, "rank -> %d (dimension %d out of range)" % (want, got), exact=False)


def _r_permute(specs, m):
    have, want = int(m.group(1)), int(m.group(2))
    for i, s in enumerate(specs):
        if s["rank"] == have:
            return _set_rank(specs, i, want, "rank %d -> %d (permute)" % (have, want))
    return None


def _r_missing_args(specs, m):
    names = re.findall(r"'(\w+)'", m.group(3))
    known = {s["name"] for s in specs}
    added = [n for n in names if n not in known]
    for n in added:
        specs.append({"name": n, "rank": specs[0]["rank"] if specs else 4, "dims": {}, "dtype": "float32",
                      "rank_known": False, "keyword": m.group(2) == "keyword-only"})
    return ("added inputs %s" % ", ".join(added)) if added else None


def _r_long_expected(specs, m):
    # The last float input: indices and targets follow what they index (`forward(x, labels)`).
    for s in reversed(specs):
        if s["dtype"].startswith("float"):
            s["dtype"], s["high"] = "int64", DEFAULT_HIGH
            return "%s -> int64 (indices expected)" % s["name"]
    return None


def _r_rnn_size(specs, m):
    want = int(m.group(1))
    i = _first_float(specs)
    return None if i is None else _set_dim(specs, i, -1, want, "last dim -> %d (input_size)" % want)


def _r_dims_count(specs, m):
    want, got = int(m.group(1)), int(m.group(2))
    for i, s in enumerate(specs):
        if s["rank"] == got:
            return _set_rank(specs, i, want, "rank %d -> %d" % (got, want))
    return None


SPATIAL_MAX = 512  # the largest side the kernel's width makes an input grow to


def _kernel_over_input(message):
    """(side the layer got, the least side it needs) from a "too small" message: "Given input
    size: (2048x2x2). Calculated output size: (2048x-4x-4)" (a window of k at stride 1 gives
    side - k + 1, so k = side - output + 1; a strided one gives 0, and k is at least side + 1),
    or "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3)"; None when the
    message says neither."""
    m = re.search(r"Given input size: \((\d+(?:x\d+)+)\)\. Calculated output size: \((-?\d+(?:x-?\d+)+)\)", message)
    if m:
        have = [int(x) for x in m.group(1).split("x")[1:]]
        out = [int(x) for x in m.group(2).split("x")[1:]]
        pairs = [(h, h - o + 1) for h, o in zip(have, out) if o <= 0 and h > 0]
        return max(pairs, key=lambda p: p[1] / p[0]) if pairs else None
    m = re.search(r"input size per channel: \((\d+)(?: x \d+)*\)\. Kernel size: \((\d+)", message)
    return (int(m.group(1)), int(m.group(2))) if m and int(m.group(1)) > 0 else None


def _r_spatial_too_small(specs, m):
    """A convolution or pool wider than the input (a patch stem, a deep stack of strides): the
    spatial dimensions of the first image-like input grow to SPATIAL_LARGE; when they are that
    large already (an ImageNet model's final 7x7 pool), by the factor the layer's window over
    what it got asks for (64 * 7 / 2 = 224), up to SPATIAL_MAX."""
    for i, s in enumerate(specs):
        shape = shape_of(s)
        if not (s["dtype"].startswith("float") and s["rank"] >= 3):
            continue
        if min(shape[2:]) < SPATIAL_LARGE:
            for j in range(2, s["rank"]):
                s["dims"] = {k: v for k, v in s["dims"].items() if (k if k >= 0 else s["rank"] + k) != j}
                s["dims"][j] = SPATIAL_LARGE
            return "spatial dims -> %d (kernel larger than the input)" % SPATIAL_LARGE
        window = _kernel_over_input(m.string)
        if window is None:
            return None
        have, need = window
        sides = shape[2:]
        new = [min(SPATIAL_MAX, -(-v * need // have)) for v in sides]
        if new == sides:
            return None
        for j, v in enumerate(new):
            _set_dim(specs, i, 2 + j, v, "")
        return "spatial sides %s -> %s (a window of %d over %d)" % (sides, new, need, have)
    return None


def _r_windows(specs, m):
    """Sides a window or patch does not divide: einops' "can't divide axis of length 4 in chunks
    of 7", an assert's "height 16 and width 16 must be divisible by window size 7". The axis is a
    side of the image input, or one a power-of-two downsampling made of it (16 -> 4): the sides
    grow to the next multiple of the window, times that downsampling (16 -> 28)."""
    length, window = int(m.group(1)), int(m.group(2))
    i = _image_input(specs)
    if i is None or length <= 0 or window <= 1 or length % window == 0:
        return None
    sides = shape_of(specs[i])[2:]
    factors = [v // length for v in sides if v % length == 0 and (v // length) & (v // length - 1) == 0]
    if factors:
        factor = min(factors)
        want = -(-length // window) * window * factor
        new = [want if v == length * factor else v for v in sides]
    elif specs[i].get("windows_grown"):
        # Sides this rule grew, met again deeper in the network: strides that round up (28 -> 14 ->
        # 7 -> 4) hide the power of two between the side and the axis, the next one above their
        # ratio (8 for 28 over 4), and the window then wants that many times more (56, then 112,
        # 224: MaxViT's 224 = 7 * 32 at the last stage).
        factor = 1
        while factor * length < min(sides):
            factor *= 2
        want = -(-length // window) * window * factor
        new = [want if want > v else v for v in sides]
    else:
        return None
    if max(new) > SPATIAL_MAX or new == sides:
        return None
    for j, v in enumerate(new):
        _set_dim(specs, i, 2 + j, v, "")
    specs[i]["windows_grown"] = True
    return "spatial sides %s -> %s (windows of %d)" % (sides, new, window)


def _r_target_size(specs, m):
    """cross_entropy's "Expected target size [2, 16, 100], got [2, 16, 16]": the integer input of
    the shape it got takes the one it expected."""
    want = [int(x) for x in re.findall(r"\d+", m.group(1))]
    got = [int(x) for x in re.findall(r"\d+", m.group(2))]
    for s in specs:
        if not s["dtype"].startswith("float") and s.get("value") is None and shape_of(s) == got and want:
            s["rank"], s["rank_known"] = len(want), True
            s["dims"] = {i: v for i, v in enumerate(want) if i > 0 or v != BATCH}
            return "%s -> %s (target size)" % (s["name"], want)
    return None


def _r_target_batch(specs, m):
    """cross_entropy's "Expected input batch_size (256) to match target batch_size (32)": the
    scores are rows of classes, one per target; the integer input of that many values becomes
    one row of as many as the scores have."""
    rows, got = int(m.group(1)), int(m.group(2))
    for s in specs:
        if not s["dtype"].startswith("float") and s.get("value") is None and _product(shape_of(s)) == got and rows > 0:
            s["rank"], s["rank_known"], s["dims"] = 1, True, {0: rows}
            return "%s -> [%d] (a target per row of scores)" % (s["name"], rows)
    return None


def _r_rank_named(specs, m):
    """A message naming the rank it wanted and the rank it got (einops, einsum, attention): the
    input of the rank it got takes the one it wanted."""
    want, got = int(m.group("want")), int(m.group("got"))
    for i, s in enumerate(specs):
        if s["rank"] == got:
            return _set_rank(specs, i, want, "rank %d -> %d (%s)" % (got, want, m.group(0)[:50]))
    return None


def _r_model_side(specs, m):
    """A patch embedding's "Input image height (16) doesn't match model (224)": the sides of the
    image input take the size the model was built for."""
    got, want = int(m.group(2)), int(m.group(3))
    i = _image_input(specs)
    if i is None or want > SPATIAL_MAX or want <= 0:
        return None
    sides = shape_of(specs[i])[2:]
    if got not in sides:
        return None
    for j in range(len(sides)):
        _set_dim(specs, i, 2 + j, want, "")
    return "spatial sides %s -> %d (the model's image size)" % (sides, want)


HALF_DTYPE = "bfloat16"


def _r_half(specs, m):
    """A kernel that takes half precision only ("x should be BF16/FP16", "only supports fp16 and
    bf16"): the float32 inputs become bfloat16."""
    changed = [s["name"] for s in specs if s["dtype"] == "float32"]
    for s in specs:
        if s["dtype"] == "float32":
            s["dtype"] = HALF_DTYPE
    return ("%s -> %s (half precision expected)" % (", ".join(changed), HALF_DTYPE)) if changed else None


# (pattern, rule): the first rule whose pattern matches and that changes something wins.
RULES = (
    (r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x\d+\)", _r_flattened),
    (r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)", _r_matmul),
    (r"expected input\[([\d, ]+)\] to have (\d+) channels", _r_conv_input),
    (r"to have (\d+) channels, but got (\d+) channels", _r_channels),
    (r"running_mean should contain (\d+) elements not (\d+)", _r_running_mean),
    (r"Sizes of tensors must match except in dimension (\d+)\. Expected size (\d+) but got size (\d+)", _r_odd_sides),
    (r"normalized_shape=\[([\d, ]+)\]", _r_normalized),
    (r"(?:not enough|too many) values to unpack \(expected (\d+)(?:, got (\d+))?\)", _r_unpack),
    (r"[Ee]xpected (\d)D(?: \(unbatched\))?(?: or (\d)D)?", _r_expected_nd),
    (r"[Ee]xpected (\d)-dimensional input", _r_expected_nd),
    (r"expected (\d)D input \(got \d+D input\)", _r_expected_nd),
    (r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)",
     _r_broadcast),
    (r"expanded size of the tensor \((\d+)\) must match the existing size \((\d+)\) at non-singleton dimension (\d+)",
     _r_broadcast),
    (r"[Dd]imension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)", _r_dim_range),
    (r"input\.dim\(\) = (\d+) is not equal to len\(dims\) = (\d+)", _r_permute),
    (r"missing (\d+) required (positional|keyword-only) arguments?: (.*)", _r_missing_args),
    (r"[Ee]xpected tensor for argument #\d+ 'indices'|expected scalar type Long but found Float|"
     r"tensors used as indices must be long|[Ee]xpected dtype (?:int32(?:/| or ))?int64 for index", _r_long_expected),
    (r"input\.size\(-1\) must be equal to input_size\. Expected (\d+)", _r_rnn_size),
    (r"input must have (\d+) dimensions, got (\d+)", _r_dims_count),
    (r"Kernel size can't be greater than actual input size|[Oo]utput size is too small", _r_spatial_too_small),
    (r"Expected target size \[([\d, ]+)\], got \[([\d, ]+)\]", _r_target_size),
    (r"can't divide axis of length (\d+) in chunks of (\d+)", _r_windows),
    (r"(?:height|width|side|size) (\d+)\b[^.]*?must be divisible by (?:the )?(?:window|patch)(?: size)? ?(?:of )?(\d+)",
     _r_windows),
    (r"[Ww]rong shape: expected (?P<want>\d+) dims\. Received (?P<got>\d+)-dim tensor", _r_rank_named),
    (r"number of subscripts in the equation \((?P<want>\d+)\) does not match the number of dimensions "
     r"\((?P<got>\d+)\)", _r_rank_named),
    (r"batched (?P<want>\d)D tensor but received (?P<got>\d)-D", _r_rank_named),
    (r"expects a tensor with <= (?P<want>\d) dimensions, but self is (?P<got>\d)D", _r_rank_named),
    (r"Expected input batch_size \((\d+)\) to match target batch_size \((\d+)\)", _r_target_batch),
    (r"[Ii]nput (?:image )?(height|width|size) \((\d+)\) doesn't match (?:the )?model \((\d+)\)", _r_model_side),
    (r"(?:should|must) be (?:in )?(?:BF16|bf16|bfloat16|FP16|fp16|float16|half)\b|"
     r"only supports? (?:fp16|bf16|float16|bfloat16|half)", _r_half),
)
_COMPILED = [(re.compile(p), rule) for p, rule in RULES]


# Ranks tried, in order, for an input whose rank nothing in the source fixed, when the error
# names no shape (an einops pattern, a KeyError on ndim): tokens, images, matrices, volumes.
RANK_ORDER = (3, 4, 2, 5)
# Then, once every input has been through RANK_ORDER, one value per sample (a diffusion model's
# timesteps, `t[:, None] * freqs[None, :]`): last of all, so that the tries before it are the ones
# a module without such an input needs (a trial of it for the first input used up the try that
# the second input's rank needed).
LAST_RANKS = (1,)


def _next_rank(specs):
    for order in (RANK_ORDER, RANK_ORDER + LAST_RANKS):
        for s in specs:
            if s.get("rank_known", True):
                continue
            tried = s.setdefault("ranks_tried", [])
            if s["rank"] not in tried:
                tried.append(s["rank"])
            for r in order:
                if r not in tried:
                    old = s["rank"]
                    s["rank"] = r
                    s["dims"] = {k: v for k, v in s["dims"].items() if k < 0}
                    return "rank %d -> %d (trying another rank)" % (old, r)
    return None


def signature(specs):
    """What the module is called with, for telling inputs already tried."""
    return tuple((s["name"], s["rank"], tuple(sorted(s["dims"].items())), s["dtype"]) for s in specs)



# A library the machine lacks (a deferred import needed when it ran, an extension the module
# checks for): no input changes that.
_MISSING_LIBRARY = re.compile(r"^(?:ModuleNotFoundError|ImportError): |is not installed|[Pp]lease install |"
                              r"No such operator ")


# What the line that failed says about the inputs (the innermost line of the standalone in the
# traceback, inductor_stage.failing_line): an assertion or check of an input's rank.
_RANK_CHECK = re.compile(r"\b(\w+)\.(?:ndim|dim\(\))\s*==\s*(\d)\b|\blen\(\s*(\w+)\.shape\s*\)\s*==\s*(\d)\b")


def _line_rank(specs, line):
    """`assert x.ndim == 2`, `x.dim() == 4`, `len(x.shape) == 3` on the failing line, about an
    input by its name: that input takes the rank, kept from then on."""
    for m in _RANK_CHECK.finditer(line or ""):
        name, rank = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        for i, s in enumerate(specs):
            if s["name"] == name and s.get("value") is None:
                why = _set_rank(specs, i, int(rank), "%s rank %d -> %s (the failing line checks it)"
                                % (name, s["rank"], rank))
                if why:
                    return why
    return None


def _assert_condition(line):
    """The condition of `assert COND[, message]` on one line (the message may go on past it)."""
    m = re.match(r"assert\s+(.*)$", line or "")
    if not m:
        return None
    text, depth, quote = m.group(1), 0, None
    for k, c in enumerate(text):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            return text[:k].strip()
    return text.strip()


def _shape_item(node, names):
    """(input name, index or None for the whole shape) of `x.shape[i]`, `x.size(i)`, `x.shape`."""
    def index(n):
        if isinstance(n, ast.Constant) and type(n.value) is int:
            return n.value
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.Constant) \
                and type(n.operand.value) is int:
            return -n.operand.value
        return None
    if (isinstance(node, ast.Attribute) and node.attr == "shape" and isinstance(node.value, ast.Name)
            and node.value.id in names):
        return node.value.id, None
    if isinstance(node, ast.Subscript):
        inner = node.slice.value if type(node.slice).__name__ == "Index" else node.slice
        found = _shape_item(node.value, names)
        if found and found[1] is None and index(inner) is not None:
            return found[0], index(inner)
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size"
            and isinstance(node.func.value, ast.Name) and node.func.value.id in names and len(node.args) == 1
            and index(node.args[0]) is not None):
        return node.func.value.id, index(node.args[0])
    return None


def _size(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _line_assert_shape(specs, message, line, evaluate):
    """An assertion of the failing line that compares an input's size with a value the module
    has (`assert logits.shape[-1] == self.bits`, `assert labels.shape == (x.shape[0],)`), or a
    size the forward read off an input (`assert n == self.max_seq_len` after `b, n = x.shape`,
    when exactly one dimension of the inputs is n): that size takes the value the other side has
    in the failing frame (`evaluate`, inductor_stage.frame_reader)."""
    if evaluate is None or not (message or "").startswith("AssertionError"):
        return None
    condition = _assert_condition(line)
    try:
        tree = ast.parse(condition or "", mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], ast.Eq)):
        return None
    names = {s["name"]: i for i, s in enumerate(specs) if s.get("value") is None}
    sides = (tree.left, tree.comparators[0])
    for this, other in (sides, sides[::-1]):
        want = evaluate(ast.unparse(other))
        item = _shape_item(this, names)
        if item is not None:
            i = names[item[0]]
            if item[1] is None:
                try:
                    shape = [int(v) for v in want]
                except (TypeError, ValueError):
                    continue
                if not shape or len(shape) > MAX_RANK or not all(0 < v <= 1 << 16 for v in shape):
                    continue
                s = specs[i]
                if shape_of(s) == shape:
                    continue
                s["rank"], s["rank_known"] = len(shape), True
                s["dims"] = {k: v for k, v in enumerate(shape) if k > 0 or v != BATCH}
                return "%s shape -> %s (the failing line asserts it)" % (item[0], shape)
            if not _size(want):
                continue
            why = _set_dim(specs, i, item[1], int(want), "%s dim %d -> %d (the failing line asserts it)"
                           % (item[0], item[1], int(want)))
            if why:
                return why
            continue
        if isinstance(this, ast.Name) and this.id not in names:
            have = evaluate(this.id)
            if not _size(have) or not _size(want):
                continue
            where = [(i, j) for i, s in enumerate(specs) if s.get("value") is None
                     for j, v in enumerate(shape_of(s)) if j > 0 and v == have]
            if len(where) == 1 and have != want:
                i, j = where[0]
                why = _set_dim(specs, i, j, want, "%s dim %d -> %d (the failing line asserts %s == %d)"
                               % (specs[i]["name"], j, want, this.id, want))
                if why:
                    return why
    return None


_NOT_A_TENSOR = re.compile(r"\b(?:int|str|bool|float|dict|Dict|Callable)\b")


def _dtype_by_name(name):
    n = name.lower()
    if "mask" in n:
        return "bool"
    if re.search(r"ids|idx|label|target|index|indices|tokens", n):
        return "int64"
    return "float32"


def _line_optional(specs, message, line, optional):
    """A forward parameter left to its None default that the module needs after all: the failing
    line or the message names it (`assert exists(hiddens)`, "preference_labels must be provided",
    `ref_input[...]` raising "'NoneType' object is not subscriptable"). It is passed by name,
    a tensor of the first input's rank (its dtype read from its name, as the plugin reads it);
    not one annotated as a number, a string or a tuple of them."""
    if not optional or not re.match(r"(?:AssertionError|TypeError|AttributeError|ValueError)\b", message or ""):
        return None
    if message.startswith(("TypeError", "AttributeError")) and "NoneType" not in message:
        return None
    words = set(re.findall(r"\w+", (line or "") + " " + message))
    known = {s["name"] for s in specs}
    for name, annotation in optional.items():
        if name in known or name not in words or _NOT_A_TENSOR.search(annotation or ""):
            continue
        first = specs[0] if specs else {"rank": 4}
        specs.append({"name": name, "rank": first["rank"] if first.get("value") is None else 4, "dims": {},
                      "dtype": _dtype_by_name(name), "rank_known": False, "keyword": True})
        return "added input %s (a None default the module needs)" % name
    return None


def deduce(specs, message, tried=(), line=None, optional=None, evaluate=None):
    """(new specs, what changed) for the error `message` raised by the module on `specs`, or
    (None, None) when no rule applies or none changes anything: the caller stops trying. Without
    a rule for the message, an input of unknown rank gets the next rank of RANK_ORDER. A change
    back to inputs whose signature() is in `tried` counts as none (two rules undoing each other,
    as broadcasting between two inputs does, would go round until the tries run out).
    `line`: the source line that failed (the innermost of the module's file), read first for a
    rank check of an input by name; `optional`: {name: annotation} of forward parameters left to
    a None default, one of which the line or the message may name (_line_optional); `evaluate`:
    the value of an expression in the failing frame (_line_assert_shape), or None."""
    if _MISSING_LIBRARY.search(message or ""):
        return None, None  # no input makes a library appear: the tries are left alone
    for rule in (lambda t: _line_rank(t, line), lambda t: _line_assert_shape(t, message, line, evaluate),
                 lambda t: _line_optional(t, message, line, optional)):
        trial = copy.deepcopy(specs)
        why = rule(trial)
        if why and signature(trial) not in tried:
            return trial, why
    for pattern, rule in _COMPILED:
        m = pattern.search(message or "")
        if not m:
            continue
        trial = copy.deepcopy(specs)
        why = rule(trial, m)
        if why and signature(trial) not in tried:
            return trial, why
    trial = copy.deepcopy(specs)
    why = _next_rank(trial)
    return (trial, why) if why and signature(trial) not in tried else (None, None)


def divisibility_failed(message, line):
    """Whether the forward rejected the sizes for a divisibility (`assert C % groups == 0`,
    "must be divisible by"), as __init__ checks may: the guessed sizes are to grow."""
    if not re.match(r"(?:AssertionError|ValueError|ZeroDivisionError|RuntimeError)\b", message or ""):
        return False
    if any(pattern.search(message) for pattern, _ in _COMPILED):
        return False  # a rule reads it (windows a side does not divide): the inputs change instead
    return "divisible" in (message or "") or bool(re.search(r"%\s*\w", line or "") and "assert" in (line or ""))


def grown_specs(specs):
    """The forward inputs for a module whose guessed sizes grew LARGER times: every dimension
    after the batch that is SIZE (fixed or left to it) grows with them."""
    out = copy.deepcopy(specs)
    for s in out:
        if s.get("value") is not None:
            continue
        shape = shape_of(s)
        for j in range(1, len(shape)):
            if shape[j] == SIZE:
                _set_dim(out, out.index(s), j, SIZE * LARGER, "")
    return out


# Forward parameters that are numbers, not tensors: annotated so (`feat_size: Tuple[int, int]`,
# `seq_len: int`), or counts the forward makes a range of (`torch.arange(j - i, j)`).
_INT_ANNOTATION = re.compile(r"^(?:typing\.)?(?:Optional\[)?int\]?$")
_INT_SEQUENCE = re.compile(r"^(?:typing\.)?(?:Tuple|tuple|List|list|Sequence)\[int(?:\s*,\s*int)*(?:\s*,\s*\.\.\.)?\]$")


# An integer forward parameter that is a position, not a size: where the sequence starts in a
# cache (`start_pos`, `seqlen_offset`, `past_length`). A first call starts at 0; at SIZE it would
# write past a cache of SIZE positions.
_POSITION_NAME = re.compile(r"^(?:start|offset|begin)(?:_\w+)?$|_(?:start|offset)$|^past_(?:len|length)$")


def scalar_value(annotation, counted=False, name=""):
    """The Python value a forward parameter gets instead of a tensor, from its annotation text
    (`int` SIZE, or 0 for a position by its `name`; `float` 1.0, `bool` False, `Tuple[int, int]`/
    `List[int]` SIZEs, two where the length is open) or, unannotated, from its use as a count
    (`counted`); None: a tensor."""
    a = (annotation or "").replace(" ", "")
    if _INT_ANNOTATION.match(a):
        return 0 if _POSITION_NAME.search(name or "") else SIZE
    if a in ("float", "Optional[float]"):
        return 1.0
    if a == "bool":
        return False
    if _INT_SEQUENCE.match(a):
        inner = a[a.index("[") + 1:-1]
        n = 2 if inner.endswith("...") or a.startswith(("List", "list", "Sequence", "typing.List")) else inner.count("int")
        return tuple([SIZE] * max(n, 1))
    if not a and counted:
        return SIZE
    return None


# __init__ parameters that are the input's channels or width (`inplanes`, `in_chs`, `dim_in`).
_INPUT_WIDTH_NAME = re.compile(r"^(?:in|inp)(?:_?(?:planes|chs|channels|ch|c|dim|features|size))?$|"
                               r"^(?:dim|c|ch|chs|channels|planes)_?in$|^input_(?:dim|channels|size|chs)$")


def _shapes(sig):
    """The shapes a signature() stands for (dims a rule set and the same dims left to the
    defaults are the same shape)."""
    return tuple((name, tuple(shape_of({"rank": rank, "dims": dict(dims)})), dtype) for name, rank, dims, dtype in sig)


def init_width_fix(message, specs, kwargs, guessed, tried):
    """(name, value) of the guessed __init__ size to change, or None. A convolution that wants
    C channels of an input of ours that has G, where giving the input C was tried already (a
    residual `out + x` asked for G: a ResNet bottleneck's planes * expansion): the module's own
    input width is the guess that is wrong, so the __init__ argument named as it (`inplanes`),
    guessed as C, becomes G."""
    m = re.search(r"expected input\[([\d, ]+)\] to have (\d+) channels, but got (\d+) channels", message or "")
    if not m:
        return None
    printed = [int(x) for x in re.findall(r"\d+", m.group(1))]
    want, got = int(m.group(2)), int(m.group(3))
    for i, s in enumerate(specs):
        if shape_of(s) != printed:
            continue
        trial = copy.deepcopy(specs)
        _set_dim(trial, i, 1, want, "")
        if _shapes(signature(trial)) not in {_shapes(t) for t in tried}:
            return None  # the deducer gives the input the channels first
        names = [n for n in guessed if _INPUT_WIDTH_NAME.match(n.lower()) and kwargs.get(n) == want]
        return (names[0], got) if len(names) == 1 else None
    return None


def missing_init_args(message):
    """Names an __init__ TypeError says are missing (`missing 2 required positional arguments:
    'dim' and 'heads'`), to be given SIZE."""
    m = re.search(r"__init__\(\) missing \d+ required (?:positional|keyword-only) arguments?: (.*)", message or "")
    return re.findall(r"'(\w+)'", m.group(1)) if m else []
