"""Launch planning: constexpr fallbacks, grid and synthesized argument shapes.

Pure functions over the bundle spec and the kernel's parameter list, so the rules the C++
side documents (BUNDLE.md) are tested here without Triton or a GPU.
"""
import math
import re

import symbolic_sizes

# Buffers are sized generously: masks protect well-formed kernels, but kernels mined from
# the wild often index past what their numels suggest (strides, halos, transposes).
MIN_BUFFER_ELEMS = 1 << 20
MAX_BUFFER_ELEMS = 1 << 26
# A tensor the launcher shapes is allocated whole up to this size: the strides it passes reach
# all of it.
MAX_SHAPED_ELEMS = 1 << 27
# What the offsets of a kernel sized by symbolic_sizes.fit may reach, per buffer.
FITTED_BUDGET = 1 << 22
DEFAULT_INT = 1024
# An integer a launched kernel's launcher leaves open (a size computed in a loop): its tensors have
# the launcher's nominal dimensions (32, core/launch/launcher_values.h), and three guessed sizes
# of 1024 multiplied in an offset would index far past them.
LAUNCHED_DEFAULT_INT = 32
MAX_GRID_Y = 65535

TORCH_DTYPES = {
    "fp32": "float32", "f32": "float32", "fp16": "float16", "f16": "float16",
    "bf16": "bfloat16", "fp64": "float64", "f64": "float64",
    "i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
    "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64",
    "fp8e4nv": "float8_e4m3fn", "fp8e5": "float8_e5m2", "fp8e4b15": "float8_e4m3fn",
}

# "tensordesc<fp16[128, 64]>": a host-built TMA descriptor over a tensor of that type, with that
# block shape (Triton's own spelling of the type, as its ASTSource signature takes it).
_TENSORDESC = re.compile(r"^tensordesc<(\w+)\[([\d, ]+)\]>$")
_NUMEL_ASSIGN = re.compile(r"^[ \t]+([a-z0-9_]*numel)[ \t]*=[ \t]*(\d+)[ \t]*$", re.M)
_BODY_CONSTEXPR = re.compile(r"^[ \t]+([A-Z0-9_]+)[ \t]*:[ \t]*tl\.constexpr[ \t]*=[ \t]*(\d+)", re.M)
_INDUCTOR_BLOCK = re.compile(r"^(X|Y|Z|R\d*_?)BLOCK$")


def next_pow2(n):
    n = max(1, int(n))
    return 1 << (n - 1).bit_length()


def cdiv(a, b):
    return -(-a // b)


def numels_from_source(source):
    """Inductor kernels pin their sizes in the body (`xnumel = 128`); the first value wins."""
    found = {}
    for name, value in _NUMEL_ASSIGN.findall(source):
        found.setdefault(name, int(value))
    return found


def body_constexprs(source):
    """Block sizes fixed inside the body (`R0_BLOCK: tl.constexpr = 128`) bound what
    XBLOCK may be in persistent reductions."""
    return {name: int(v) for name, v in _BODY_CONSTEXPR.findall(source)}


def is_block_name(name):
    return "BLOCK" in name.upper()


def default_constexprs(missing, numels, fixed, py_defaults):
    """Values for constexpr parameters the bundle left out, and which of them were guessed.

    Inductor names (XBLOCK, YBLOCK, R0_BLOCK) follow its own heuristics shape: reductions keep
    XBLOCK*RBLOCK near 2048 elements, 2D tiles near 1024; other block sizes are powers of two;
    a Python default in the kernel signature beats any guess.
    """
    out, guessed = {}, []
    known = dict(fixed)
    inductor = [m for m in missing if _INDUCTOR_BLOCK.match(m)]
    for name in missing:
        if name in py_defaults:
            out[name] = py_defaults[name]
            continue
        guessed.append(name)
    # Reduction blocks first: XBLOCK depends on them.
    for name in inductor:
        if name.startswith("R") and name in guessed:
            rn = numels.get(name[:-5].lower() + "numel", numels.get("rnumel", DEFAULT_INT))
            out[name] = min(next_pow2(rn), 1024)
            known[name] = out[name]
    rblock = max([v for k, v in known.items() if _INDUCTOR_BLOCK.match(k) and k.startswith("R")]
                 or [0])
    tiles = [n for n in ("XBLOCK", "YBLOCK", "ZBLOCK") if n in missing or n in fixed]
    generic = [n for n in guessed if n not in inductor and is_block_name(n)]
    for name in guessed:
        if name in out:
            continue
        if name in ("XBLOCK", "YBLOCK", "ZBLOCK"):
            n = numels.get(name[0].lower() + "numel", DEFAULT_INT)
            if rblock:
                cap = max(1, 2048 // rblock)
            elif len(tiles) > 1:
                cap = 32 if name == "XBLOCK" else 1024 // 32
            else:
                cap = 1024
            out[name] = min(next_pow2(n), cap)
        elif is_block_name(name):
            out[name] = 1024 if len(generic) == 1 else (64 if len(generic) <= 3 else 32)
        elif name.upper().startswith("GROUP"):
            out[name] = 8
        elif "WARP" in name.upper():
            out[name] = 4
        elif "STAGE" in name.upper():
            out[name] = 2
        else:
            out[name] = 1
    return out, guessed


def inductor_grid(numels, constexprs):
    """Inductor's Grid1D/Grid2D/Grid2DWithYZOverflow: x on axis 0, y on axis 1 spilling
    into axis 2 past 65535 blocks (the kernels fold program_id(2) back into y)."""
    g = [1, 1, 1]
    for axis, letter in enumerate("xyz"):
        n, block = numels.get(letter + "numel"), constexprs.get(letter.upper() + "BLOCK")
        if n is not None:
            g[axis] = cdiv(n, block if isinstance(block, int) and block > 0 else 1)
    if g[1] > MAX_GRID_Y and "znumel" not in numels:
        g[2] = cdiv(g[1], MAX_GRID_Y)
        g[1] = MAX_GRID_Y
    return g


def within_grid_limits(grid):
    """A grid computed from stand-in sizes may pass CUDA's limits (65535 blocks on y and z) where
    the repository's real sizes never do (`Z = seq_offsets.numel() - 1` of an offsets tensor given
    a rank it lacks); launched as is, every such kernel fails with 'invalid argument'. Fewer
    programs still run the kernel's code."""
    limits = (2 ** 31 - 1, MAX_GRID_Y, MAX_GRID_Y)
    return [min(g, limit) if isinstance(g, int) else g for g, limit in zip(grid, limits)] + list(grid[3:])


def default_grid(numels, constexprs, int_args):
    if any(k in numels for k in ("xnumel", "ynumel", "znumel")):
        return inductor_grid(numels, constexprs), True
    blocks = [v for k, v in constexprs.items() if is_block_name(k) and isinstance(v, int) and v > 0]
    sizes = list(numels.values()) or [v for k, v in int_args.items() if "stride" not in k.lower()]
    if len(blocks) == 1 and sizes:
        return [cdiv(max(sizes), blocks[0]), 1, 1], True
    return [1, 1, 1], True


def scalar_value(name, ty, numels, args, default_int=DEFAULT_INT):
    if name in args:
        return args[name], False
    if name in numels:
        return numels[name], False
    lname = name.lower()
    if ty.startswith("fp") or ty in ("bf16", "f32", "f16", "f64"):
        return (1e-5 if "eps" in lname else 1.0), True
    if "stride" in lname:
        return 1, True
    if ty == "i1":
        return 1, True
    return default_int, True


def power_of_two(v, at_least=1):
    """Whether v is an int (not a bool) power of two of at least `at_least`: a block size."""
    return isinstance(v, int) and not isinstance(v, bool) and v >= at_least and v & (v - 1) == 0


def buffer_elems(numels, int_values):
    prod = 1
    for v in numels.values():
        prod *= max(1, int(v))
    biggest = max([abs(int(v)) for v in int_values] or [0])
    want = max(MIN_BUFFER_ELEMS, 4 * prod, 4 * biggest * biggest)
    return min(want, MAX_BUFFER_ELEMS)


def shape_elems(tensor_spec):
    """Elements of a tensor the launcher shapes (spec `tensors`), so a buffer holds all of it even
    past the generous default; 0 when the launch gave no shape."""
    shape = (tensor_spec or {}).get("shape")
    if not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape):
        return 0
    return min(math.prod(shape), MAX_SHAPED_ELEMS)


def plan(spec, params, source=""):
    """Everything needed to compile and launch one kernel.

    params: [(name, is_constexpr, python_default_or_MISSING)] in the kernel's order.
    Returns dict(signature, constexprs, grid, args=[(name, kind, detail)], guessed, numels).
    Raises ValueError naming a parameter the spec cannot type.
    """
    numels = dict(numels_from_source(source))
    numels.update(spec.get("numels") or {})
    sig_in = spec.get("signature") or {}
    given = dict(spec.get("constexprs") or {})
    guessed = list(spec.get("guessed") or [])
    signature, missing, py_defaults = {}, [], {}
    for name, is_constexpr, default in params:
        ty = sig_in.get(name)
        if is_constexpr or ty == "constexpr" or name in given:
            signature[name] = "constexpr"
            if name not in given:
                missing.append(name)
                if default is not MISSING:
                    py_defaults[name] = default
        elif ty is None:
            raise ValueError("signature has no type for parameter %r" % name)
        else:
            signature[name] = ty
    extra = [n for n in list(sig_in) + list(given) if n not in signature]
    if extra:
        raise ValueError("spec names parameters the kernel does not have: %s" % ", ".join(extra))
    fixed = dict(given)
    fixed.update(body_constexprs(source))
    filled, g2 = default_constexprs(missing, numels, fixed, py_defaults)
    constexprs = dict(given)
    constexprs.update(filled)
    guessed += [n for n in g2 if n not in guessed]
    args, int_values = [], list(numels.values())
    addresses = spec.get("addresses") or {}
    for name, ty in signature.items():
        if ty == "constexpr":
            args.append((name, "constexpr", constexprs[name]))
        elif ty.startswith("tensordesc<"):
            args.append((name, "descriptor", descriptor_spec(name, ty)))
        elif ty.startswith("("):
            args.append((name, "tuple", tuple_elements(name, ty)))
        elif name in addresses:
            args.append((name, "address", addresses[name]))
        elif not ty.startswith("*"):
            value, was_guess = scalar_value(name, ty, numels, spec.get("args") or {},
                                            LAUNCHED_DEFAULT_INT if spec.get("launch") else DEFAULT_INT)
            if was_guess and name not in guessed:
                guessed.append(name)
            if isinstance(value, int) and "stride" not in name.lower():
                int_values.append(value)
            args.append((name, "scalar", value))
    # An Inductor kernel of dynamic shapes without its wrapper: sizes its own index arithmetic keeps
    # within the buffers (symbolic_sizes.py), and buffers as large as what it reaches.
    reached = {}
    symbols = [n for n, k, _ in args if k == "scalar" and symbolic_sizes.SYMBOL.match(n)
               and n not in (spec.get("args") or {})]
    fitted = symbolic_sizes.fit(source, spec.get("entry"), symbols,
                                {k: v for k, v in numels.items() if k.endswith("numel")}, FITTED_BUDGET)
    if fitted:
        values, scaled, reached = fitted
        numels.update(scaled)
        values.update(scaled)
        args = [(n, k, values.get(n, v)) if k == "scalar" else (n, k, v) for n, k, v in args]
        int_values = list(numels.values()) + list(values.values())
        if spec.get("grid") is not None:
            spec = dict(spec, grid=inductor_grid(numels, constexprs))
    elems = buffer_elems(numels, int_values)
    for i, (name, kind, detail) in enumerate(args):
        if kind == "tuple":  # pointers in a tuple get buffers like the others; strides 1, sizes nominal
            given = (spec.get("args") or {}).get(name)
            args[i] = (name, kind, [
                ("tensor", (TORCH_DTYPES[t[1:].replace("k", "")], elems)) if t.startswith("*")
                else ("scalar", given[j] if isinstance(given, list) and j < len(given) else
                      (1 if "stride" in name.lower() else LAUNCHED_DEFAULT_INT))
                for j, t in enumerate(detail)])
    shaped = spec.get("tensors") or {}
    for i, (name, kind, detail) in enumerate(args):
        if kind == "address":  # the buffer an integer address points at, sized as a tensor's
            dtype = TORCH_DTYPES.get(str(detail).replace("k", ""))
            if dtype is None:
                raise ValueError("unknown address element type %r for %r" % (detail, name))
            args[i] = (name, "address", (dtype, max(elems, shape_elems(shaped.get(name)))))
    for i, (name, ty) in enumerate(signature.items()):
        if ty.startswith("*"):
            base = ty.lstrip("*").replace("k", "")
            dtype = TORCH_DTYPES.get(base)
            if dtype is None:
                raise ValueError("unknown pointer type %r for %r" % (ty, name))
            n = reached[name] if name in reached else max(elems, shape_elems(shaped.get(name)))
            args.insert(i, (name, "tensor", (dtype, n)))
    grid = spec.get("grid")
    if grid is None:
        scalars = {n: v for n, k, v in args if k == "scalar" and isinstance(v, int)}
        grid, _ = default_grid(numels, constexprs, scalars)
    else:
        grid = within_grid_limits(grid)
    out = {"signature": signature, "constexprs": constexprs, "grid": list(grid),
           "args": args, "guessed": guessed, "numels": numels}
    if fitted:
        out["symbolic_sizes"] = fitted[0]
    return out


_DOT_TYPES = re.compile(r"Both operands must be same dtype\. Got (\w+) and (\w+)")
# An accumulator the kernel starts in a half type (`acc = tl.zeros(..., dtype=fp16)`) that a tl.dot
# of assumed-fp32 operands turns fp32 inside the loop.
_CARRIED_TYPES = re.compile(r"Loop-carried variable \w+ has initial type <\[[^\]]*\], (\w+)> "
                            r"but is re-assigned to <\[[^\]]*\], (\w+)>")


# An fp8 operand (quantized inside the kernel: `a = (x / s).to(tl.float8e4nv)`) dotted with one
# loaded from a pointer assumed fp32: Triton names the fp8 side it cannot pair.
_FP8_DOT = re.compile(r"Unsupported (?:lhs|rhs) dtype (fp8e4nv|fp8e5)\b")


# A block pointer's store converts nothing: `tl.store(x_grad_block_ptr, acc)` of fp16 values into
# a pointer assumed fp32.
_BLOCK_STORE_TYPES = re.compile(r"Block element type\((\w+)\) and value element type\((\w+)\) mismatch")


def dot_partner_type(message):
    """The half-precision type of a `tl.dot` whose other operand is fp32 ("Both operands must be
    same dtype. Got fp32 and fp16" -> "fp16"), of a half-precision accumulator re-assigned fp32
    in a loop, or of values stored through a block pointer assumed fp32, or the fp8 type of a dot
    Triton refuses ("Unsupported lhs dtype fp8e4nv"), else None."""
    fp8 = _FP8_DOT.search(message or "")
    if fp8:
        return fp8.group(1)
    stored = _BLOCK_STORE_TYPES.search(message or "")
    if stored:  # only the pointer's type is the assumption's; values it cannot hold are the kernel's
        return stored.group(2) if stored.group(1) == "fp32" and stored.group(2) in ("fp16", "bf16") else None
    m = _DOT_TYPES.search(message or "") or _CARRIED_TYPES.search(message or "")
    if not m:
        return None
    types = {m.group(1), m.group(2)}
    if "fp32" not in types or len(types) != 2:
        return None
    (other,) = types - {"fp32"}
    return other if other in ("fp16", "bf16") else None


def tuple_elements(name, ty):
    """The element types of a tuple parameter's "(i32,i32)" / "(*fp16,*fp16)" type."""
    inner = ty[1:-1] if ty.endswith(")") else ""
    elements = [t.strip() for t in inner.split(",") if t.strip()]
    bad = [t for t in elements if t.startswith("*") and TORCH_DTYPES.get(t[1:].replace("k", "")) is None]
    if not elements or bad:
        raise ValueError("unknown tuple type %r for %r" % (ty, name))
    return elements


def signature_for_triton(signature):
    """The bundle's signature as ASTSource takes it: tuple types as Python tuples."""
    return {name: tuple(tuple_elements(name, ty)) if isinstance(ty, str) and ty.startswith("(") else ty
            for name, ty in signature.items()}


def descriptor_spec(name, ty):
    """(torch dtype name, block shape) of a "tensordesc<...>" type; ValueError naming the
    parameter when it does not parse."""
    m = _TENSORDESC.match(ty)
    dtype = TORCH_DTYPES.get(m.group(1)) if m else None
    if dtype is None:
        raise ValueError("unknown descriptor type %r for %r" % (ty, name))
    return dtype, [int(x) for x in m.group(2).split(",")]


def descriptor_shape(block):
    """The tensor a descriptor covers: two blocks along each dimension, at least 16 elements, so
    rows stay 16-byte aligned as TMA requires; TMA clips reads and writes at its bounds."""
    return [max(2 * b, 16) for b in block]


class _Missing:
    def __repr__(self):
        return "MISSING"


MISSING = _Missing()
