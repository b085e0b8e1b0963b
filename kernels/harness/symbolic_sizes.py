"""Sizes for an Inductor kernel of dynamic shapes met without its wrapper.

A kernel compiled with `dynamic=True` takes its symbolic sizes as `ks0, ks1, ...` and its index
arithmetic multiplies them (`x0 + ks2*x2*ks3*ks3`, with `x2 = xindex // ks1`). The wrapper that
says how they relate to `xnumel` is not there (a cache file, a scraped collection), and numbers
guessed apart (1024 each, the size hint's numel) send the addresses past any buffer.

The kernel's own code bounds them: every index is made of the ranges its masks state
(`xmask = xindex < xnumel`), `%`, `//`, `*` and `+`. This module evaluates each load's and store's
offset over intervals, for given values of the sizes, and picks the largest sizes whose every
offset stays within the buffer budget; the buffers are then sized to what the offsets reach.
Pure Python over `ast`, so it is tested without Triton or a GPU.
"""
import ast
import re

SYMBOL = re.compile(r"^ks\d+$")
_INDEX = re.compile(r"^([xyz]|r\d*_?)index$")
# Tried largest first: a size of 16 keeps every divisibility a kernel may have been specialized on
# (`tt.divisibility` 16) without growing the offsets' powers of it past the budget.
SYMBOL_VALUES = (16, 8, 4, 2)
MIN_NUMEL = 1 << 8


class _Unknown(Exception):
    pass


def _interval(node, env):
    """(lo, hi) of an integer expression, or raise _Unknown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value, node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise _Unknown(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        lo, hi = _interval(node.operand, env)
        return -hi, -lo
    if isinstance(node, ast.Subscript):  # `tl.arange(0, X)[:, None]`, `x[None, :]`: same values
        return _interval(node.value, env)
    if isinstance(node, ast.Call):
        name = _callee(node.func)
        args = node.args
        if name in ("div_floor_integer",) and len(args) == 2:
            return _binary(ast.FloorDiv(), _interval(args[0], env), _interval(args[1], env))
        if name in ("broadcast_to", "to") and args:
            return _interval(args[0], env)
        if name == "where" and len(args) == 3:
            a, b = _interval(args[1], env), _interval(args[2], env)
            return min(a[0], b[0]), max(a[1], b[1])
        if name in ("minimum", "min") and len(args) == 2:
            a, b = _interval(args[0], env), _interval(args[1], env)
            return min(a[0], b[0]), min(a[1], b[1])
        if name in ("maximum", "max") and len(args) == 2:
            a, b = _interval(args[0], env), _interval(args[1], env)
            return max(a[0], b[0]), max(a[1], b[1])
        raise _Unknown(name)
    if isinstance(node, ast.BinOp):
        return _binary(node.op, _interval(node.left, env), _interval(node.right, env))
    raise _Unknown(type(node).__name__)


def _binary(op, a, b):
    (alo, ahi), (blo, bhi) = a, b
    if isinstance(op, ast.Add):
        return alo + blo, ahi + bhi
    if isinstance(op, ast.Sub):
        return alo - bhi, ahi - blo
    if isinstance(op, ast.Mult):
        products = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
        return min(products), max(products)
    if isinstance(op, ast.Pow) and blo == bhi and 0 <= blo <= 8 and alo >= 0:
        return alo ** blo, ahi ** blo
    if blo <= 0:
        raise _Unknown("divisor")
    if isinstance(op, ast.FloorDiv):
        return min(alo // blo, alo // bhi), max(ahi // blo, ahi // bhi)
    if isinstance(op, ast.Mod):
        return (0, bhi - 1) if alo >= 0 else (-(bhi - 1), bhi - 1)
    raise _Unknown(type(op).__name__)


def _callee(func):
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _kernel(source, entry):
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            return node
    return None


def _masked_ranges(fn):
    """{index: numel} from the masks the kernel states: `xmask = xindex < xnumel`."""
    ranges = {}
    for node in ast.walk(fn):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Compare) and len(node.value.ops) == 1
                and isinstance(node.value.ops[0], ast.Lt) and isinstance(node.value.left, ast.Name)):
            ranges[node.value.left.id] = node.value.comparators[0]
    return ranges


def _accesses(fn):
    """(pointer parameter, offset expression) of each tl.load / tl.store / atomic at `ptr + offset`."""
    params = {a.arg for a in fn.args.args}
    out = []
    for node in ast.walk(fn):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        name = _callee(node.func)
        if name not in ("load", "store") and not name.startswith("atomic_"):
            continue
        address = node.args[0]
        if isinstance(address, ast.Name) and address.id in params:
            out.append((address.id, ast.Constant(0)))
        elif (isinstance(address, ast.BinOp) and isinstance(address.op, ast.Add) and isinstance(address.left, ast.Name)
              and address.left.id in params):
            out.append((address.left.id, address.right))
    return out


def _assignments(body):
    """The assignments of a statement list in the order they run, loop bodies included."""
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            yield stmt
        elif isinstance(stmt, ast.AugAssign):
            yield ast.Assign(targets=[stmt.target], value=ast.BinOp(stmt.target, stmt.op, stmt.value))
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                yield from _assignments(inner)


def offset_bounds(source, entry, sizes):
    """{pointer: highest element offset} over the kernel's loads and stores for the given size
    values (symbols and numels); a pointer any offset of which cannot be bounded maps to None.
    None when the kernel is not found."""
    fn = _kernel(source, entry)
    return None if fn is None else _bounds(fn, sizes)


def _bounds(fn, sizes):
    env = {n: (v, v) for n, v in sizes.items()}
    masks = _masked_ranges(fn)
    # Assignments in the order they run, loops included (a reduction's `rindex = roffset + rbase`);
    # a name assigned twice keeps the widest interval seen.
    for node in _assignments(fn.body):
        if not (len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        target = node.targets[0].id
        if target in sizes:
            continue
        bound = masks.get(target)
        if bound is None and _INDEX.match(target) and target[:-5] + "numel" in sizes:
            # A mask of all True (`xmask = tl.full([XBLOCK], True, tl.int1)`: the numel divides
            # into blocks) bounds nothing, but the grid does: Inductor's `xindex` runs over `xnumel`.
            bound = ast.Name(target[:-5] + "numel")
        if bound is not None:
            try:
                hi = _interval(bound, env)[1]
            except _Unknown:
                continue
            env[target] = (0, max(0, hi - 1))
            continue
        try:
            lo, hi = _interval(node.value, env)
        except _Unknown:
            continue
        if target in env:
            lo, hi = min(lo, env[target][0]), max(hi, env[target][1])
        env[target] = (lo, hi)
    bounds = {}
    for pointer, offset in _accesses(fn):
        try:
            hi = _interval(offset, env)[1]
        except _Unknown:
            bounds[pointer] = None
            continue
        if pointer not in bounds or bounds[pointer] is not None:
            bounds[pointer] = max(hi, bounds.get(pointer) or 0)
    return bounds


def fit(source, entry, symbols, numels, budget):
    """Values for the symbolic sizes `symbols`, the numels to launch with, and {pointer: elements}
    such that every bounded offset stays under `budget` elements; None when no choice bounds them.

    The numels start at the size hints and halve (down to MIN_NUMEL) until the offsets fit; each
    size value is tried from the largest."""
    if not symbols or not numels:
        return None
    fn = _kernel(source, entry)  # parsed once for every size tried
    if fn is None:
        return None
    for value in SYMBOL_VALUES:
        scaled = dict(numels)
        while True:
            sizes = dict(scaled)
            sizes.update({s: value for s in symbols})
            bounds = _bounds(fn, sizes)
            known = [b for b in bounds.values() if b is not None]
            if not known:
                return None
            if max(known) < budget:
                return ({s: value for s in symbols}, scaled,
                        {p: b + 1 for p, b in bounds.items() if b is not None})
            if all(v <= MIN_NUMEL for v in scaled.values()):
                break
            scaled = {k: max(MIN_NUMEL, v // 2) for k, v in scaled.items()}
    return None
