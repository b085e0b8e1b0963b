"""How far a hand-written Triton kernel's loads and stores reach into each pointer it is given.

A kernel's stand-in sizes can disagree with each other where the launcher leaves them open: a mask
tensor the launcher takes as a parameter is given nominal dimensions and its `.stride(0)`, while
the row count `M = bs * s1 * s2` that indexes it is a product of others. The kernel then reads rows
past the buffer and faults, though it is not at fault. Growing every buffer by a fixed factor
(worker.grow_buffers) misses offsets that are products of two large sizes.

This module evaluates each load's and store's address over intervals, for the values the check
launches with: `tl.program_id` over the grid, `tl.arange`, loop variables over their ranges,
pointers advanced in loops (`a_ptrs += BLOCK_K * stride_ak`) by their trip counts. Masks are not
applied, so the result is an upper bound: a buffer sized to it holds every element the kernel may
touch. An address built from loaded values or helpers' results is not bounded (None).
Pure Python over `ast`, so it is tested without Triton or a GPU.
"""
import ast

from symbolic_sizes import _Unknown, _binary, _callee, _kernel

_PASS_THROUGH = ("to", "broadcast_to", "multiple_of", "max_contiguous", "reshape", "view", "expand_dims",
                 "int32", "int64", "cast")
_ACCESSES = ("load", "store")
# A loop whose trip count cannot be read advances its pointers by an unknown amount; a loop whose
# count is larger than this is not a loop over a buffer's blocks the stand-ins can reach.
_MAX_TRIPS = 1 << 24


def _is_module(node):
    """`tl`, `triton.language`, `tl.math`: a module whose function takes the value first."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id in ("tl", "triton", "libdevice", "math", "language")


def _carried(body):
    """Names a loop body advances from their own value: `p += BLOCK`, `p = p + BLOCK`."""
    names = []
    for s in ast.walk(ast.Module(body=body, type_ignores=[])):
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name):
            names.append(s.target.id)
        elif (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and
              any(isinstance(n, ast.Name) and n.id == s.targets[0].id for n in ast.walk(s.value))):
            names.append(s.targets[0].id)
    return names


class _Pointer:
    """A pointer parameter plus an offset interval (in elements)."""
    __slots__ = ("param", "lo", "hi")

    def __init__(self, param, lo, hi):
        self.param, self.lo, self.hi = param, lo, hi


class _Reach:
    def __init__(self, fn, values, grid):
        self.pointers = {a.arg for a in fn.args.args} - set(values)
        self.env = {n: (v, v) for n, v in values.items()
                    if isinstance(v, int) and not isinstance(v, bool)}
        self.env.update({n: (int(v), int(v)) for n, v in values.items() if isinstance(v, bool)})
        for p in self.pointers:
            self.env[p] = _Pointer(p, 0, 0)
        self.grid = list(grid) + [1, 1, 1]
        self.reach = {}
        self.lost = {}  # names that held a pointer no longer bounded: {name: pointer parameter}

    # -- expressions -------------------------------------------------------------------------
    def value(self, node):
        """An interval (lo, hi), a _Pointer, or raise _Unknown."""
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool):
                return int(node.value), int(node.value)
            if isinstance(node.value, int):
                return node.value, node.value
            raise _Unknown("constant")
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id]
            raise _Unknown(node.id)
        if isinstance(node, ast.Subscript):  # `offs[:, None]`: the same values
            return self.value(node.value)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            lo, hi = self.interval(node.operand)
            return -hi, -lo
        if isinstance(node, ast.BinOp):
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(left, _Pointer) and isinstance(node.op, (ast.Add, ast.Sub)) and \
                    not isinstance(right, _Pointer):
                lo, hi = _binary(node.op, (left.lo, left.hi), right)
                return _Pointer(left.param, lo, hi)
            if isinstance(right, _Pointer) and isinstance(node.op, ast.Add) and not isinstance(left, _Pointer):
                return _Pointer(right.param, right.lo + left[0], right.hi + left[1])
            if isinstance(left, _Pointer) or isinstance(right, _Pointer):
                raise _Unknown("pointer arithmetic")
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right[0] <= 0:
                raise _Unknown("divisor")
            return _binary(node.op, left, right)
        if isinstance(node, ast.IfExp):
            return self.union(self.value(node.body), self.value(node.orelse))
        if isinstance(node, ast.Call):
            return self.call(node)
        raise _Unknown(type(node).__name__)

    def interval(self, node):
        v = self.value(node)
        if isinstance(v, _Pointer):
            raise _Unknown("pointer")
        return v

    def axis(self, node):
        arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "axis"), None)
        if arg is None:
            raise _Unknown("axis")
        lo, hi = self.interval(arg)
        if lo != hi or not 0 <= lo <= 2:
            raise _Unknown("axis")
        return lo

    def call(self, node):
        name = _callee(node.func)
        args = node.args
        if name == "program_id":
            return 0, max(0, self.grid[self.axis(node)] - 1)
        if name == "num_programs":
            n = self.grid[self.axis(node)]
            return n, n
        if name == "arange" and len(args) == 2:
            lo, hi = self.interval(args[0])[0], self.interval(args[1])[1]
            return lo, max(lo, hi - 1)
        if name in ("zeros", "full") or name.startswith("zeros_like"):
            if name == "full" and len(args) >= 2:
                return self.interval(args[1])
            return 0, 0
        if name == "cdiv" and len(args) == 2:
            (alo, ahi), (blo, bhi) = self.interval(args[0]), self.interval(args[1])
            if blo <= 0:
                raise _Unknown("divisor")
            return -(-alo // bhi), -(-ahi // blo)
        if name in ("where",) and len(args) == 3:
            return self.union(self.value(args[1]), self.value(args[2]))
        if name in ("minimum", "min") and len(args) == 2:
            a, b = self.interval(args[0]), self.interval(args[1])
            return min(a[0], b[0]), min(a[1], b[1])
        if name in ("maximum", "max") and len(args) == 2:
            a, b = self.interval(args[0]), self.interval(args[1])
            return max(a[0], b[0]), max(a[1], b[1])
        if name in _PASS_THROUGH:
            func = node.func
            if isinstance(func, ast.Attribute) and not _is_module(func.value):
                return self.value(func.value)  # `offs.to(tl.int64)`
            if args:
                return self.value(args[0])  # `tl.multiple_of(offs, 16)`
        raise _Unknown(name)

    @staticmethod
    def union(a, b):
        if isinstance(a, _Pointer) or isinstance(b, _Pointer):
            if isinstance(a, _Pointer) and isinstance(b, _Pointer) and a.param == b.param:
                return _Pointer(a.param, min(a.lo, b.lo), max(a.hi, b.hi))
            raise _Unknown("pointers")
        return min(a[0], b[0]), max(a[1], b[1])

    # -- accesses ----------------------------------------------------------------------------
    def note_accesses(self, node):
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            name = _callee(call.func)
            if name not in _ACCESSES and not name.startswith("atomic_"):
                continue
            address = call.args[0] if call.args else next(
                (k.value for k in call.keywords if k.arg in ("pointer", "ptr")), None)
            if address is None:
                continue
            try:
                target = self.value(address)
            except _Unknown:
                target = None
            if isinstance(target, _Pointer):
                if self.reach.get(target.param, 0) is not None:
                    self.reach[target.param] = max(self.reach.get(target.param, 0), target.hi)
            else:
                param = self.base_param(address)
                if param is not None:
                    self.reach[param] = None

    def base_param(self, node):
        """The pointer parameter an address names, bounded or not."""
        for n in ast.walk(node):
            if isinstance(n, ast.Name):
                v = self.env.get(n.id)
                if isinstance(v, _Pointer):
                    return v.param
                if n.id in self.pointers:
                    return n.id
                if n.id in self.lost:
                    return self.lost[n.id]
        return None

    # -- statements --------------------------------------------------------------------------
    def assign(self, name, node):
        try:
            self.env[name] = self.value(node)
            self.lost.pop(name, None)
        except _Unknown:
            self.forget(name, node)

    def forget(self, name, node=None):
        """A name whose value cannot be bounded; a pointer it held stays unbounded."""
        old = self.env.pop(name, None)
        param = old.param if isinstance(old, _Pointer) else (self.base_param(node) if node is not None else None)
        if param is not None:
            self.lost[name] = param

    def block(self, body):
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt):
        if not isinstance(stmt, (ast.For, ast.While, ast.If, ast.With)):  # compound ones: their parts, below
            self.note_accesses(stmt)
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self.assign(target.id, stmt.value)
                elif isinstance(target, ast.Tuple):
                    values = stmt.value.elts if isinstance(stmt.value, ast.Tuple) else None
                    for i, t in enumerate(target.elts):
                        if isinstance(t, ast.Name):
                            if values is not None and i < len(values):
                                self.assign(t.id, values[i])
                            else:
                                self.forget(t.id, stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            self.assign(stmt.target.id, stmt.value)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            self.assign(stmt.target.id, ast.BinOp(ast.Name(stmt.target.id), stmt.op, stmt.value))
        elif isinstance(stmt, ast.If):
            self.note_accesses(stmt.test)
            self.branches(stmt.body, stmt.orelse)
        elif isinstance(stmt, ast.For):
            self.loop(stmt)
        elif isinstance(stmt, ast.While):
            self.note_accesses(stmt.test)
            self.loop_unknown(stmt.body)
        elif isinstance(stmt, ast.With):
            self.block(stmt.body)

    def branches(self, body, orelse):
        before = dict(self.env)
        self.block(body)
        after_body = self.env
        self.env = dict(before)
        self.block(orelse)
        merged = {}
        for name in set(after_body) | set(self.env):
            a = after_body.get(name, before.get(name))
            b = self.env.get(name, before.get(name))
            if a is None or b is None:
                if a is not None or b is not None:
                    self.forget_value(name, a if a is not None else b)
                continue
            try:
                merged[name] = self.union(a, b)
            except _Unknown:
                self.forget_value(name, a)
        self.env = merged

    def forget_value(self, name, value):
        if isinstance(value, _Pointer):
            self.lost[name] = value.param

    def trips(self, node):
        """(loop variable interval, trip count) of `range`/`tl.range`/`tl.static_range`."""
        if not isinstance(node, ast.Call) or _callee(node.func) not in ("range", "static_range"):
            raise _Unknown("iterator")
        args = [self.interval(a) for a in node.args[:3]]
        if len(args) == 1:
            start, stop, step = (0, 0), args[0], (1, 1)
        elif len(args) >= 2:
            start, stop = args[0], args[1]
            step = args[2] if len(args) == 3 else (1, 1)
        else:
            raise _Unknown("range")
        if step[0] <= 0:
            raise _Unknown("step")
        count = max(0, -(-(stop[1] - start[0]) // step[0]))
        if count > _MAX_TRIPS:
            raise _Unknown("trips")
        return (start[0], max(start[0], stop[1] - 1)), count

    def loop(self, stmt):
        try:
            var, count = self.trips(stmt.iter)
        except _Unknown:
            self.loop_unknown(stmt.body, stmt.target)
            return
        if isinstance(stmt.target, ast.Name):
            self.env[stmt.target.id] = var
        carried = _carried(stmt.body)
        start = {n: self.env[n] for n in carried if n in self.env}
        # One pass finds what an iteration adds; the second sees every iteration's values.
        saved, reach = dict(self.env), dict(self.reach)
        self.block(stmt.body)
        steps = {}
        for n, v0 in start.items():
            v1 = self.env.get(n)
            if v1 is None or type(v1) is not type(v0):
                continue
            lo0, hi0 = (v0.lo, v0.hi) if isinstance(v0, _Pointer) else v0
            lo1, hi1 = (v1.lo, v1.hi) if isinstance(v1, _Pointer) else v1
            steps[n] = (min(0, lo1 - lo0), max(0, hi1 - hi0))
        self.env, self.reach = saved, reach
        span = max(0, count - 1)
        for n, v0 in start.items():
            if n not in steps:
                self.forget_value(n, v0)
                self.env.pop(n, None)
                continue
            dlo, dhi = steps[n]
            self.env[n] = self.widen(v0, dlo * span, dhi * span)
        self.block(stmt.body)
        for n, v0 in start.items():
            if n in steps and n in self.env:
                dlo, dhi = steps[n]
                self.env[n] = self.widen(v0, dlo * count, dhi * count)

    @staticmethod
    def widen(v, dlo, dhi):
        if isinstance(v, _Pointer):
            return _Pointer(v.param, v.lo + dlo, v.hi + dhi)
        return v[0] + dlo, v[1] + dhi

    def loop_unknown(self, body, target=None):
        """A loop whose trips cannot be counted: what it assigns is not bounded."""
        names = {t.id for s in ast.walk(ast.Module(body=body, type_ignores=[]))
                 for t in (s.targets if isinstance(s, ast.Assign) else
                           [s.target] if isinstance(s, (ast.AugAssign, ast.AnnAssign)) else [])
                 if isinstance(t, ast.Name)}
        if isinstance(target, ast.Name):
            names.add(target.id)
        for n in names:
            self.forget_value(n, self.env.get(n))
            self.env.pop(n, None)
        self.block(body)
        for n in names:
            self.forget_value(n, self.env.get(n))
            self.env.pop(n, None)

    def run(self, body):
        self.block(body)
        return self.reach


def reach(source, entry, values, grid):
    """{pointer parameter: highest element offset any load or store may touch} for the given
    integer values of the kernel's scalars and constexprs and its launch grid. A pointer whose
    addresses cannot be bounded maps to None; pointers never accessed are left out. None when the
    kernel is not found."""
    fn = _kernel(source, entry)
    if fn is None:
        return None
    return _Reach(fn, values, grid).run(fn.body)
