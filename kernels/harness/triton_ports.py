"""Ports for Triton APIs that moved: a versioned table of moves and a source rewriter.

Kernels are mined from years of code. A kernel written for Triton 2.x that calls
`tl.math.tanh` fails on Triton 3.x with a missing name although its body is fine: the
function only moved. When a check fails with `missing_name`, the worker asks `port()` for a
rewrite of the module onto the installed Triton and checks that too (worker.py); both
outcomes, the rewrites and the ported source are reported, and the original is never changed.

Each move names the old spelling, today's, the first Triton version without the old one
(`removed_in`), the first with the new one (`new_since`), and where the move is recorded.
A move applies only when the installed Triton is at least `removed_in` and, for calls, only
to names the installed Triton really has under the new spelling, so a port never invents an
API. Moves without a mechanical rewrite (`new` is None) are listed so that a failure can say
which move it met (`unported_moves`). Pure text work: no Triton needed to import this module
(the installed one is asked only through the `has_*` callables).
"""
import re
from collections import namedtuple

Move = namedtuple("Move", "id old new removed_in new_since source note")

# The import every libdevice rewrite relies on: backend-dispatching since Triton 3.0
# (triton-lang/triton#3825); `libdevice` is also what Inductor's triton_helpers exports.
LIBDEVICE_IMPORT = "from triton.language.extra import libdevice"

MOVES = (
    Move("tl.libdevice", "tl.libdevice.NAME / triton.language.libdevice.NAME", "libdevice.NAME",
         "2.1", "3.0", "triton-lang/triton#1368 (tl.libdevice became tl.math, Triton 2.1); "
         "triton-lang/triton#3172 (libdevice wrappers moved to extra.cuda.libdevice, Triton 3.0)",
         "the Triton 2.0 spelling"),
    Move("tl.math.libdevice", "tl.math.NAME (a libdevice function)", "libdevice.NAME",
         "3.0", "3.0", "triton-lang/triton#3172 (Moving libdevice wrappers from math.py to "
         "extra.cuda.libdevice, merged 2024-02-27, released in Triton 3.0)",
         "only names today's tl.math lacks and libdevice has (tanh, pow, erfinv, ...); "
         "exp, log, sqrt, rsqrt ... stayed in tl.math"),
    Move("tl.math.minmax", "tl.math.max(a, b) / tl.math.min(a, b)", "tl.maximum(a, b) / tl.minimum(a, b)",
         "3.0", "2.0", "triton-lang/triton#3172 (libdevice wrappers moved out of tl.math, Triton 3.0); "
         "Triton 2.1 to 2.3's tl.math.max/min wrapped libdevice's max/fmaxf, which today's libdevice "
         "spells fmax/fmin",
         "only where today's tl.math has no max/min; tl.maximum/minimum ignore NaNs as fmaxf did"),
    Move("extra.cuda.libdevice", "triton.language.extra.cuda.libdevice / tl.extra.cuda.libdevice.NAME",
         "triton.language.extra.libdevice / libdevice.NAME", None, "3.0",
         "triton-lang/triton#3825 (libdevice dispatched per backend: `from triton.language.extra "
         "import libdevice`); triton-lang/triton#4539 (backend module remapping, Triton 3.1)",
         "not removed as of Triton 3.6 (it still resolves there): applied only where the installed "
         "Triton no longer resolves the CUDA path"),
    Move("tl.math.import", "from triton.language.math import NAME (a libdevice function)",
         "from triton.language.extra.libdevice import NAME", "3.0", "3.0",
         "triton-lang/triton#3172 (the same move as tl.math.libdevice, spelled as an import)",
         "only names today's tl.math lacks and libdevice has; the others stay in the import"),
    Move("global.constexpr", "NAME = 1e-6 at module level, read inside @triton.jit",
         "NAME = triton.language.constexpr(1e-6)", "3.3", None,
         "the NameError Triton 3.3 and later raise: 'Cannot access global variable NAME from within "
         "@jit'ed function. Triton kernels can only access global variables that are instantiated as "
         "constexpr'; older Triton read plain module globals as constants",
         "only module-level names bound once to a number or bool literal and read inside a jitted "
         "function"),
    Move("global.object", "a module-level object other than a number (a class whose @triton.jit "
         "static methods a kernel calls: `Linear.forward(...)`) read inside @triton.jit",
         "the same source, compiled with triton.knobs.compilation.allow_non_constexpr_globals on "
         "(TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1) for this kernel only", "3.3", None,
         "the same NameError as global.constexpr, which names the environment variable as the "
         "alternative",
         "tried after the source ports, when the failure still names a global; the knob is restored "
         "before the worker's next kernel"),
    Move("float8e4", "tl.float8e4", "tl.float8e4nv", "2.2", "2.2",
         "triton-lang/triton#2105 ([BACKEND] Solidify f8e4m3: the frontend name became float8e4nv, "
         "merged 2023-08-18); triton-lang/triton#1841 (fp8e4 vs fp8e4b15 split)",
         "Triton 3.6 has float8e4nv and no float8e4"),
    Move("dot.trans", "tl.dot(a, b, trans_a=True, trans_b=True)", "tl.dot(tl.trans(a), tl.trans(b))",
         "2.1", "2.1", "triton-lang/triton#1098 (TypeError: dot() got an unexpected keyword argument "
         "'trans_b'); ELS-RD/kernl#326 (the migration to tl.trans: 'removed trans_a, trans_b ... for "
         "tl.dot(), since removed by triton 2.01')",
         "literal True/False only; a flag passed as a variable is left as it is"),
    Move("make_tensor_descriptor", "tl._experimental_make_tensor_descriptor", "tl.make_tensor_descriptor",
         "3.3", "3.3", "triton-lang/triton#6194 ([BC-break] Remove experimental prefix from tensor "
         "descriptor ops, merged 2025-03-13)", ""),
    Move("experimental_descriptor_load", "tl._experimental_descriptor_load(desc, offsets, shape, dtype) / "
         "tl._experimental_descriptor_store(desc, value, offsets)",
         "desc.load(offsets) / desc.store(offsets, value)", "3.4", "3.3",
         "triton-lang/triton#3739 (added as an experimental escape hatch, 2024-04); replaced by "
         "tensor descriptors (triton-lang/triton#6194)",
         "the kernel then takes a host-side TensorDescriptor, which the harness builds where the "
         "bundle types the parameter `tensordesc<...>` (block and type from the old call's "
         "arguments); a descriptor the kernel builds itself (device tensormaps) is not ported"),
    Move("tools.experimental_descriptor", "import triton.tools.experimental_descriptor (create_1d/2d_tma_descriptor)",
         "the import kept inside try/except ImportError", "3.4", "3.3",
         "triton-lang/triton#8547 (question: no drop-in replacement; "
         "triton.tools.tensor_descriptor.TensorDescriptor is the host-side API now)",
         "host code only (launchers build descriptors with it); the kernel never reads it, so a "
         "module that imports it still loads"),
    Move("dtype.call", "tl.float32(x), tl.int64(x), ... (a dtype called to make a scalar)",
         "tl.cast(x, tl.float32)", None, None,
         "kernels written for a Triton whose dtypes construct scalars when called; Triton 3.6 "
         "answers TypeError: 'dtype' object is not callable",
         "applied only where the installed Triton does not resolve a call of a dtype (its dtypes "
         "are not callable); a cast of a Python scalar gives the same typed scalar"),
    Move("tuple.single", "p = (base + offs,) inside @triton.jit, then tl.load(p)", "p = base + offs", "3.2", None,
         "triton-lang/triton#5220 ([FRONTEND] added support for tuples, 2024-11): before it, an "
         "assignment to one name zipped the names with the values, so a one-element tuple bound its "
         "element; since, the name holds a tuple and tl.load answers \"'tuple_type' object has no "
         "attribute 'is_ptr'\"",
         "only single-name assignments of a parenthesized one-element tuple inside jitted functions "
         "(vLLM's punica/sgmv lineage writes its A pointers so)"),
    Move("constexpr_function.callee", "a plain function that a constexpr_function calls",
         "the same function decorated as a constexpr_function too", None, None,
         "Triton 3.6 hashes a kernel's dependencies through constexpr_function bodies and answers "
         "'RuntimeError: Unsupported function referenced: <function f>' for a plain function one of "
         "them calls (OpenAI's triton_kernels: `is_hip()` calls `current_target()`); a "
         "constexpr_function called from Python just runs",
         "only module-level functions without decorators, called by name from a function decorated "
         "with constexpr_function (or a name bound to it); tried when the failure names a function, "
         "whatever the installed Triton resolves"),
    Move("flip.dim", "tl.flip(x) (no dim: the last dimension)", "tl.flip(x, -1)", None, None,
         "Triton 3.x's standard.flip read a missing dim as the last one (`_get_flip_dim`: `if dim is "
         "None: dim = len(shape) - 1`); Triton 3.6's asserts `-len(x.shape) <= dim` first and answers "
         "\"TypeError: '<=' not supported between instances of 'int' and 'NoneType'\"",
         "only calls of tl.flip with one argument (or dim=None), and only where the installed Triton's "
         "flip compares dim with the rank (its source, as resolved, says `<= dim`)"),
    Move("get_int_dtype", "NAME = core.get_int_dtype(bitwidth=B, signed=S) inside @triton.jit (Triton's own "
         "bitonic sort, copied with ids into many repositories)",
         "the dtype chosen by B in constexpr branches (`if B == 8: NAME = core.int8` ...)", "3.5", None,
         "Triton 3.5 and later hash a kernel's dependencies and answer 'RuntimeError: Unsupported "
         "function referenced: <function get_int_dtype>' for the plain function; NVIDIA "
         "TransformerEngine's permutation.py was patched the same way ('core.get_int_dtype() not "
         "hashable by Triton 3.5.0 JIT': the call inlined as constexpr branches)",
         "only single-name assignments whose signed= is a literal; B stays an expression Triton "
         "evaluates when it compiles"),
    Move("typing.annotation", "@triton.jit def f(...) -> Tuple[tl.tensor, tl.tensor] (typing in a jitted "
         "function's annotations)", "the same function without the typing annotations", None, None,
         "Triton 3.x resolves every global a jitted function's source names to hash its dependencies "
         "and answers 'RuntimeError: Unsupported function referenced: typing.Tuple' for typing's "
         "objects; the annotations never reached code generation",
         "only annotations that name something imported from typing (or typing.X); tl.constexpr and "
         "tl.* annotations stay. Tried when the failure names typing, whatever the installed Triton "
         "resolves"),
    Move("const_pointer_type", "NAME: tl.const_pointer_type (a jitted function's parameter annotation)",
         "NAME (no annotation)", "3.1", None,
         "triton-lang/triton#4187 ([FRONTEND] Making const pointer as an attribute of pointer_type "
         "class instead of being a separate class, merged 2024-07-27): Triton 3.6 answers "
         "\"module 'triton.language' has no attribute 'const_pointer_type'\" when the module loads",
         "only annotations that are exactly tl.const_pointer_type; the annotation only asked Triton "
         "to refuse stores through the parameter, so the code generated is the same without it"),
    Move("constexpr.str_default", "a jitted helper's `NAME: tl.constexpr = \"row\"` (a string default a call "
         "leaves out)", "NAME: tl.constexpr = tl.constexpr(\"row\")", None, None,
         "Triton 3.x's code generator wraps the defaults a call of a jitted function leaves out in "
         "constexpr only for dtypes, numbers, bools and jitted functions (`call_JitFunction`); a "
         "string default reaches the callee raw and answers \"AttributeError: 'str' object has no "
         "attribute 'type'\"",
         "only string literal defaults of parameters annotated constexpr in functions whose decorators "
         "mention jit; tried when a check fails with missing_name, whatever the installed Triton "
         "resolves (a constexpr a caller passes explicitly is one already, so the rewrite changes "
         "nothing else)"),
    Move("AttrsDescriptor", "from triton.compiler.compiler import AttrsDescriptor", None, "3.3", None,
         "triton-lang/triton#4734 (refactored, Triton 3.2), triton-lang/triton#6080 (gone in 3.3)",
         "Inductor headers only: the kernel-only form (`module_checked: kernel_only`) leaves it out"),
    Move("inductor.triton_helpers", "torch._inductor.triton_helpers / torch._inductor.triton_heuristics",
         "torch._inductor.runtime.triton_helpers / torch._inductor.runtime.triton_heuristics",
         "torch 2.4", "torch 2.4", "pytorch/pytorch: Inductor's runtime moved under "
         "torch/_inductor/runtime (its README: pytorch/pytorch#141492)",
         "Inductor kernels of torch <= 2.3 import their helpers from the old place"),
)


def version_tuple(text):
    """'3.6.0+git1234' -> (3, 6, 0); None or junk -> ()."""
    nums = re.findall(r"\d+", (text or "").split("+")[0])
    return tuple(int(n) for n in nums[:3])


def applies(move, triton_version):
    """A move applies from its removed_in on (torch moves are gated by what resolves, not here)."""
    if move.removed_in is None or move.removed_in.startswith("torch"):
        return True
    have = version_tuple(triton_version)
    return not have or have >= version_tuple(move.removed_in)


def _prefixes(alias_pattern):
    return r"(?<![\w.])(?:%s)" % alias_pattern


_TL = r"tl|triton\.language"
_LIBDEVICE_2_0 = re.compile(_prefixes(_TL) + r"\.libdevice\.([A-Za-z_]\w*)")
_MATH_CALL = re.compile(_prefixes(_TL) + r"\.math\.([A-Za-z_]\w*)")
_MATH_MINMAX = re.compile(_prefixes(_TL) + r"\.math\.(max|min)(?=\s*\()")
_CUDA_LIBDEVICE_ATTR = re.compile(_prefixes(_TL) + r"\.extra\.cuda\.libdevice\.([A-Za-z_]\w*)")
_CUDA_LIBDEVICE_IMPORT = re.compile(r"^(\s*)from\s+triton\.language\.extra\.cuda\s+import\s+libdevice\b", re.M)
_LIBDEVICE_2_0_IMPORT = re.compile(r"^(\s*)from\s+triton\.language\s+import\s+libdevice\b", re.M)
_FLOAT8E4 = re.compile(_prefixes(_TL) + r"\.float8e4(?![\w])")
_CONST_POINTER = re.compile(r"(?:tl|triton\.language)\.const_pointer_type")
_DOT_CALL = re.compile(r"\b(?:tl|triton\.language)\.dot\(")
_TRANS_KEYWORD = re.compile(r"^\s*(trans_a|trans_b)\s*=\s*(True|False)\s*$")
_EXPERIMENTAL_MAKE_DESC = re.compile(_prefixes(_TL) + r"\._experimental_make_tensor_descriptor\b")
_EXPERIMENTAL_DESC_CALL = re.compile(r"(?:\b(?:tl|triton\.language)\.)?\b_experimental_descriptor_(load|store)\(")
_EXPERIMENTAL_DESC_ALIAS = re.compile(
    r"^(\w+)[ \t]*=[ \t]*((?:tl|triton\.language)\.)(_experimental_descriptor_(?:load|store))[ \t]*$", re.M)
_EXPERIMENTAL_TOOLS_IMPORT = re.compile(
    r"^([ \t]*)((?:import|from)[ \t]+triton\.tools\.experimental_descriptor\b[^\n]*)$", re.M)
_FLIP_CALL = re.compile(_prefixes(_TL) + r"\.flip\(")
_DTYPE_CALL = re.compile(_prefixes(_TL) + r"\.((?:b?float|u?int)(?:1|8|16|32|64))\(")
_ATTRS_DESCRIPTOR = re.compile(r"\bAttrsDescriptor\b")
_INDUCTOR_OLD = re.compile(r"\btorch\._inductor\.(triton_helpers|triton_heuristics)\b")
_INDUCTOR_OLD_FROM = re.compile(r"^(\s*)from\s+torch\._inductor\s+import\s+([^\n]*\btriton_(?:helpers|heuristics)\b[^\n]*)$",
                                re.M)
_FUTURE = re.compile(r"^from\s+__future__\s+import[^\n]*\n", re.M)
_MATH_FROM_IMPORT = re.compile(r"^([ \t]*)from\s+triton\.language\.math\s+import\s+([\w \t,]+?)[ \t]*$", re.M)
CONSTEXPR_IMPORT = "import triton.language"


class Installed:
    """What the installed Triton (and torch) offer, asked lazily. Tests pass their own."""

    def __init__(self, triton_version, math_names=None, libdevice_names=None, resolves=None,
                 dtype_callable=None, flip_default_dim=None):
        self.triton_version = triton_version
        self._math, self._libdevice = math_names, libdevice_names
        self._resolves = resolves
        self._dtype_callable = dtype_callable
        self._flip_default_dim = flip_default_dim

    def flip_default_dim(self):
        """Whether the installed tl.flip still reads a missing dim as the last one."""
        if self._flip_default_dim is not None:
            return self._flip_default_dim
        try:
            import inspect
            import triton.language.standard as standard
            body = inspect.getsource(getattr(standard.flip, "fn", standard.flip))
            # Triton 3.6 compares dim with the rank before it resolves a missing one.
            return not re.search(r"<=\s*dim\b", body)
        except Exception:
            return True  # no Triton to ask: never rewrite on a guess

    def dtype_callable(self):
        if self._dtype_callable is not None:
            return self._dtype_callable
        try:
            import triton.language as tl
            return callable(tl.float32)
        except Exception:
            return True  # no Triton to ask: never rewrite on a guess

    def has_math(self, name):
        return name in (self._math if self._math is not None else _names("triton.language.math"))

    def has_libdevice(self, name):
        return name in (self._libdevice if self._libdevice is not None else _names("triton.language.extra.libdevice"))

    def resolves(self, dotted):
        return self._resolves(dotted) if self._resolves else _resolves(dotted)


def _names(module):
    try:
        import importlib
        return set(n for n in dir(importlib.import_module(module)) if not n.startswith("_"))
    except Exception:
        return set()


def _resolves(dotted):
    """Whether `a.b.c` imports (as a module) or resolves as attributes from its longest module."""
    import importlib
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except Exception:
            continue
        try:
            for p in parts[cut:]:
                obj = getattr(obj, p)
            return True
        except AttributeError:
            return False
    return False


def _add_import(source, line):
    if re.search(r"^\s*" + re.escape(line) + r"\s*$", source, re.M):
        return source
    futures = list(_FUTURE.finditer(source))
    at = futures[-1].end() if futures else 0
    return source[:at] + line + "\n" + source[at:]


def _split_arguments(text, start):
    """Top-level arguments of the call whose '(' is at text[start - 1]: ([arg texts], end index
    of the closing ')'), or None when the parentheses do not balance."""
    depth, args, cur, i, quote = 0, [], [], start, None
    while i < len(text):
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\":
                cur.append(text[i + 1] if i + 1 < len(text) else "")
                i += 2
                continue
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            cur.append(c)
        elif c in "([{":
            depth += 1
            cur.append(c)
        elif c in ")]}":
            if depth == 0:
                args.append("".join(cur))
                return [a for a in args if a.strip()], i
            depth -= 1
            cur.append(c)
        elif c == "," and depth == 0:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    return None


def _rewrite_calls(source, pattern, rewrite):
    """Each call `pattern` matches (up to its opening parenthesis) replaced by what
    `rewrite(match, [argument texts])` returns for it, or left as written where that is None:
    (text, count)."""
    out, pos, count = [], 0, 0
    for m in pattern.finditer(source):
        if m.start() < pos:
            continue
        split = _split_arguments(source, m.end())
        if not split:
            continue
        args, end = split
        new = rewrite(m, args)
        if new is None:
            continue
        out.append(source[pos:m.start()] + new)
        pos = end + 1
        count += 1
    out.append(source[pos:])
    return "".join(out), count


def _port_dot_transposes(source):
    """`tl.dot(a, b, trans_b=True)` -> `tl.dot(a, tl.trans(b))`: (text, count)."""
    def rewrite(m, args):
        flags = {}
        keep = []
        for a in args:
            k = _TRANS_KEYWORD.match(a)
            if k:
                flags[k.group(1)] = k.group(2) == "True"
            else:
                keep.append(a.strip())
        positional = [a for a in keep if "=" not in a.split("(")[0]]
        if not flags or len(positional) < 2:
            return None
        if flags.get("trans_a"):
            keep[0] = "tl.trans(%s)" % keep[0]
        if flags.get("trans_b"):
            keep[1] = "tl.trans(%s)" % keep[1]
        return m.group(0) + ", ".join(keep) + ")"
    return _rewrite_calls(source, _DOT_CALL, rewrite)


def _port_descriptor_calls(source):
    """`tl._experimental_descriptor_load(d, offs, shape, dtype)` -> `d.load(offs)` and
    `tl._experimental_descriptor_store(d, v, offs)` -> `d.store(offs, v)`: (text, count)."""
    descriptors = set()
    # `tl_experimental_descriptor_load = tl._experimental_descriptor_load` at module level, the
    # name then called: the alias goes, its calls become the experimental call they stand for.
    aliases = {}

    def unalias(m):
        aliases[m.group(1)] = m.group(2) + m.group(3)
        return ""
    source, n_aliases = _EXPERIMENTAL_DESC_ALIAS.subn(unalias, source)
    for name, target in aliases.items():
        source = re.sub(r"(?<![\w.])%s\(" % re.escape(name), target + "(", source)

    def rewrite(m, args):
        if len(args) < 3:
            return None
        args = [a.strip() for a in args]
        if args[0].isidentifier():
            descriptors.add(args[0])
        if m.group(1) == "load":
            return "%s.load(%s)" % (args[0], args[1])
        return "%s.store(%s, %s)" % (args[0], args[2], args[1])
    out, count = _rewrite_calls(source, _EXPERIMENTAL_DESC_CALL, rewrite)
    count += n_aliases
    # The old API took a pointer to the descriptor, and kernels typed results from it
    # (`acc.to(c_desc.dtype.element_ty)`); a tensor descriptor's dtype is the element type itself.
    for name in sorted(descriptors):
        out, n = re.subn(r"\b%s\.dtype\.element_ty\b" % re.escape(name), name + ".dtype", out)
        count += n
    return out, count


def _guard_tools_imports(source):
    """Each `import triton.tools.experimental_descriptor` inside try/except ImportError; the
    fallback still binds `triton`, as the dotted import did (modules rely on it)."""
    def sub(m):
        indent = m.group(1)
        fallback = "import triton" if m.group(2).startswith("import") else "pass"
        return "%stry:\n%s    %s\n%sexcept ImportError:\n%s    %s" % (indent, indent, m.group(2), indent, indent,
                                                                    fallback)
    return _EXPERIMENTAL_TOOLS_IMPORT.subn(sub, source)


def _port_math_imports(source, installed):
    """`from triton.language.math import tanh, exp` -> tanh from libdevice, exp kept: (text, moved names)."""
    moved_names = []

    def sub(m):
        names = [n.strip() for n in m.group(2).split(",") if n.strip()]
        moved = [n for n in names if not installed.has_math(n.split(" as ")[0].strip())
                 and installed.has_libdevice(n.split(" as ")[0].strip())]
        if not moved:
            return m.group(0)
        moved_names.extend(moved)
        kept = [n for n in names if n not in moved]
        lines = [m.group(1) + "from triton.language.extra.libdevice import " + ", ".join(moved)]
        if kept:
            lines.insert(0, m.group(1) + "from triton.language.math import " + ", ".join(kept))
        return "\n".join(lines)
    return _MATH_FROM_IMPORT.sub(sub, source), moved_names


def _parsed(source):
    """The ast of `source`, or None when it does not parse."""
    import ast
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _jitted_globals(source):
    """Module-level names bound once to a number or bool literal and read inside a function whose
    decorators mention `jit`, and by no statement that runs at import: {name: line index of the
    binding}. Empty when the source does not parse."""
    import ast
    tree = _parsed(source)
    if tree is None:
        return {}
    bound, literal = {}, {}
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value is not None else [])
        for t in targets:
            if isinstance(t, ast.Name):
                bound[t.id] = bound.get(t.id, 0) + 1
                value = node.value
                if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
                    value = value.operand
                is_literal = (isinstance(value, ast.Constant) and isinstance(value.value, (int, float, bool))
                              and len(targets) == 1 and node.lineno == node.end_lineno)
                if is_literal:
                    literal[t.id] = node.lineno - 1
    read = set()
    for node in _jitted_functions(tree):
        local = {a.arg for a in node.args.args + node.args.kwonlyargs}
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id not in local:
                read.add(n.id)
    # Read by module-level statements too (`ASM = _generate_asm(NUM_REG)`): those run in Python at
    # import, where a constexpr object formats and computes differently from the number.
    at_import = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                at_import.add(n.id)
    return {name: line for name, line in literal.items()
            if bound.get(name) == 1 and name in read and name not in at_import}


def _port_jitted_globals(source):
    """`EPS = 1e-6` read in a kernel -> `EPS = triton.language.constexpr(1e-6)`: (text, names)."""
    found = _jitted_globals(source)
    if not found:
        return source, []
    lines = source.split("\n")
    names = []
    for name, at in sorted(found.items(), key=lambda kv: kv[1]):
        # `EPS = 1e-6` and `EPS: tl.constexpr = 1e-6` (an annotation Triton 3.3 no longer honours).
        m = re.match(r"^(%s)(?:\s*:[^=]+?)?(\s*=\s*)(.+?)(\s*(#.*)?)$" % re.escape(name), lines[at])
        if not m:
            continue
        lines[at] = m.group(1) + m.group(2) + "triton.language.constexpr(" + m.group(3) + ")" + m.group(4)
        names.append(name)
    return "\n".join(lines), names


def _jitted_functions(tree):
    """The functions of an ast tree whose decorators mention `jit`."""
    import ast
    return [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any("jit" in ast.unparse(d) for d in node.decorator_list)]


class _ByteEdits:
    """Deletions and replacements at ast positions (whose columns count UTF-8 bytes), applied
    together from the end so that earlier positions stay valid."""

    def __init__(self, source):
        self.data = source.encode("utf-8")
        self.starts = [0]
        for line in self.data.split(b"\n"):
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.edits = []

    def at(self, line, col):
        return self.starts[line - 1] + col

    def replace(self, begin, end, text=b""):
        self.edits.append((begin, end, text))

    def text(self):
        data = self.data
        for begin, end, text in sorted(self.edits, reverse=True):
            data = data[:begin] + text + data[end:]
        return data.decode("utf-8")


def _single_tuples(source):
    """(tuple, element) ast nodes of `NAME = (EXPR,)` values inside functions whose decorators
    mention `jit`; empty when the source does not parse."""
    import ast
    tree = _parsed(source)
    if tree is None:
        return []
    spans = []
    for node in _jitted_functions(tree):
        for n in ast.walk(node):
            if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                    and isinstance(n.value, ast.Tuple) and len(n.value.elts) == 1
                    and not isinstance(n.value.elts[0], ast.Starred)):
                spans.append((n.value, n.value.elts[0]))
    return spans


def _port_single_tuples(source):
    """`a_ptr = (input_ptr + offs,)` in a kernel -> `a_ptr = (input_ptr + offs)`: (text, count)."""
    spans = _single_tuples(source)
    if not spans:
        return source, 0
    edits = _ByteEdits(source)
    for tup, elt in spans:
        inner = edits.data[edits.at(elt.lineno, elt.col_offset):edits.at(elt.end_lineno, elt.end_col_offset)]
        # Keep the element's own line breaks, inside parentheses.
        edits.replace(edits.at(tup.lineno, tup.col_offset), edits.at(tup.end_lineno, tup.end_col_offset),
                      b"(" + inner + b")")
    return edits.text(), len(spans)


def _typing_annotations(source):
    """The annotations of jitted functions (`-> Tuple[...]`, `: Optional[int]`) that name something
    imported from typing; empty when the source does not parse."""
    import ast
    tree = _parsed(source)
    if tree is None:
        return []
    typing_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "typing":
            typing_names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            typing_names.update(a.asname or a.name for a in node.names if a.name == "typing")

    return _annotations_where(tree, lambda annotation: any(
        isinstance(n, ast.Name) and n.id in typing_names for n in ast.walk(annotation)))


def _const_pointer_annotations(source):
    """`offs: tl.const_pointer_type` parameters of jitted functions; empty when it does not parse."""
    import ast
    tree = _parsed(source)
    if tree is None:
        return []
    return _annotations_where(tree, lambda annotation: bool(_CONST_POINTER.fullmatch(ast.unparse(annotation))))


def _annotations_where(tree, matches):
    """[("returns", annotation) | ("arg", arg)]: the annotations of jitted functions that `matches`."""
    found = []
    for node in _jitted_functions(tree):
        if node.returns is not None and matches(node.returns):
            found.append(("returns", node.returns))
        for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
            if a.annotation is not None and matches(a.annotation):
                found.append(("arg", a))
    return found


def _constexpr_function_callees(source):
    """[(def line, indent, decorator text)] for module-level plain functions that a function
    decorated with constexpr_function calls by name; empty when the source does not parse."""
    import ast
    tree = _parsed(source)
    if tree is None:
        return []
    statements = []
    work = list(tree.body)
    while work:  # module level, also inside `if`/`try` (version switches)
        node = work.pop(0)
        statements.append(node)
        for field in ("body", "orelse", "finalbody", "handlers"):
            if isinstance(node, (ast.If, ast.Try, ast.ExceptHandler)):
                work.extend(getattr(node, field, []) or [])
    aliases = {target.id for node in statements if isinstance(node, ast.Assign)
               and ast.unparse(node.value).endswith("constexpr_function")
               for target in node.targets if isinstance(target, ast.Name)}

    def decorator_of(fn):
        for d in fn.decorator_list:
            text = ast.unparse(d)
            if text.endswith("constexpr_function") or text in aliases:
                return text
        return None
    functions = [n for n in statements if isinstance(n, ast.FunctionDef)]
    plain = {fn.name: fn for fn in functions if not fn.decorator_list}
    found = {}
    for fn in functions:
        decorator = decorator_of(fn)
        if decorator is None:
            continue
        for call in ast.walk(fn):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in plain:
                callee = plain[call.func.id]
                found.setdefault(callee.name, (callee.lineno, callee.col_offset, decorator))
    return sorted(found.values())


def _port_constexpr_function_callees(source):
    """`def current_target(): ...` that `@constexpr_function def is_hip()` calls gets the same
    decorator: (text, count)."""
    found = _constexpr_function_callees(source)
    if not found:
        return source, 0
    lines = source.split("\n")
    for line, indent, decorator in reversed(found):
        lines.insert(line - 1, " " * indent + "@" + decorator)
    return "\n".join(lines), len(found)


def _port_string_defaults(source):
    """`DIRECTION: tl.constexpr = "lower"` of a jitted function -> `DIRECTION: tl.constexpr =
    tl.constexpr("lower")`, spelled with the parameter's own annotation: (text, count)."""
    import ast
    tree = _parsed(source)
    if tree is None:
        return source, 0
    edits = _ByteEdits(source)
    for fn in _jitted_functions(tree):
        a = fn.args
        positional = a.posonlyargs + a.args
        pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
        pairs += [(arg, d) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
        for arg, default in pairs:
            if (arg.annotation is None or not ast.unparse(arg.annotation).endswith("constexpr")
                    or not isinstance(default, ast.Constant) or not isinstance(default.value, str)):
                continue
            ann = edits.data[edits.at(arg.annotation.lineno, arg.annotation.col_offset):
                             edits.at(arg.annotation.end_lineno, arg.annotation.end_col_offset)]
            begin = edits.at(default.lineno, default.col_offset)
            end = edits.at(default.end_lineno, default.end_col_offset)
            edits.replace(begin, end, ann + b"(" + edits.data[begin:end] + b")")
    return edits.text(), len(edits.edits)


def _drop_annotations(source, found):
    """The annotations `found` (from `_annotations_where`) deleted: `def f(x) -> Tuple[tl.tensor,
    tl.tensor]:` -> `def f(x):`, `offs: tl.const_pointer_type` -> `offs`. (text, count)."""
    if not found:
        return source, 0
    edits = _ByteEdits(source)
    for kind, node in found:
        if kind == "returns":
            arrow = edits.data.rfind(b"->", 0, edits.at(node.lineno, node.col_offset))
            if arrow < 0:
                continue
            while arrow > 0 and edits.data[arrow - 1:arrow] in (b" ", b"\t"):
                arrow -= 1
            edits.replace(arrow, edits.at(node.end_lineno, node.end_col_offset))
        else:  # `x: Optional[int]` -> `x`
            ann = node.annotation
            edits.replace(edits.at(node.lineno, node.col_offset) + len(node.arg.encode("utf-8")),
                          edits.at(ann.end_lineno, ann.end_col_offset))
    return edits.text(), len(edits.edits)


def refused_global(message):
    """True when Triton (3.3 and later) refused a global that older Triton read (global.object)."""
    return bool(message) and "Cannot access global variable" in message


def moved_signature(message):
    """True when a failure message says a call used keywords an API has since dropped (the
    dot.trans move), a jitted function's annotations name typing (typing.annotation), a flip
    without dim met Triton 3.6's check (flip.dim), or an attribute was read from a one-element
    tuple (tuple.single: "'to' is not in list"), or such a tuple was handed where a tensor goes
    (`mask = offs < N,` then `tl.load(..., mask=mask)`: "cannot convert [...] of type <class
    'triton.language.core.tuple'> to tensor"), or a deprecated spelling a later Triton keeps as a
    plain function was called inside a kernel ("`_semantic` argument must be provided outside of
    JIT functions"), which a port can fix although the class is not missing_name."""
    return bool(message) and ("unexpected keyword argument 'trans_" in message or
                              "of type <class 'triton.language.core.tuple'> to tensor" in message or
                              "'dtype' object is not callable" in message or
                              "Unsupported function referenced: typing." in message or
                              "Unsupported function referenced: <function " in message or
                              "between instances of 'int' and 'NoneType'" in message or
                              # a deprecated spelling kept as a plain function
                              # (`tl._experimental_make_tensor_descriptor` on Triton 3.6)
                              "argument must be provided outside of JIT functions" in message or
                              bool(re.search(r"ValueError: '\w+' is not in list", message)))


def _int_dtype_assignments(source):
    """(statement, target, module prefix, bitwidth text, signed) of `NAME = core.get_int_dtype(...)`
    inside jitted functions; empty when the source does not parse."""
    import ast
    tree = _parsed(source)
    if tree is None:
        return []
    found = []
    for node in _jitted_functions(tree):
        for n in ast.walk(node):
            if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                    and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
                    and n.value.func.attr == "get_int_dtype"):
                continue
            prefix = ast.unparse(n.value.func.value)
            if prefix not in ("core", "tl.core", "triton.language.core", "tl", "triton.language"):
                continue
            args = {k.arg: k.value for k in n.value.keywords}
            names = ["bitwidth", "signed"]
            for i, a in enumerate(n.value.args[:2]):
                args[names[i]] = a
            signed = args.get("signed")
            if "bitwidth" not in args or not (isinstance(signed, ast.Constant) and isinstance(signed.value, bool)):
                continue
            found.append((n, n.targets[0].id, prefix, ast.unparse(args["bitwidth"]), signed.value))
    return found


def _port_get_int_dtype(source):
    """`idtype = core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)` in a kernel ->
    `_mine_bitwidth: core.constexpr = ...` and `if _mine_bitwidth == 8: idtype = core.int8` ...:
    (text, count)."""
    found = _int_dtype_assignments(source)
    if not found:
        return source, 0
    edits = _ByteEdits(source)
    for stmt, target, prefix, bitwidth, signed in found:
        pad = " " * stmt.col_offset
        kind = "int" if signed else "uint"
        lines = ["_mine_bitwidth: %s.constexpr = %s" % (prefix, bitwidth)]
        for i, bits in enumerate((8, 16, 32)):
            lines += ["%s _mine_bitwidth == %d:" % ("if" if i == 0 else "elif", bits),
                      "    %s = %s.%s%d" % (target, prefix, kind, bits)]
        lines += ["else:", "    %s = %s.%s64" % (target, prefix, kind)]
        text = ("\n" + pad).join(lines)
        edits.replace(edits.at(stmt.lineno, stmt.col_offset), edits.at(stmt.end_lineno, stmt.end_col_offset),
                      text.encode("utf-8"))
    return edits.text(), len(found)


def _port_flip_calls(source):
    """`tl.flip(x)` / `tl.flip(x, dim=None)` -> `tl.flip(x, -1)`: (text, count)."""
    def rewrite(m, args):
        rest = [a.replace(" ", "") for a in args[1:]]
        if len(args) not in (1, 2) or "=" in args[0].split("(")[0] or rest not in ([], ["None"], ["dim=None"]):
            return None
        return "%s(%s, -1)" % (m.group(0)[:-1], args[0].strip())
    return _rewrite_calls(source, _FLIP_CALL, rewrite)


def _port_dtype_calls(source):
    """`tl.float32(-float("inf"))` -> `tl.cast(-float("inf"), tl.float32)`: (text, count)."""
    def rewrite(m, args):
        if len(args) != 1 or "=" in args[0].split("(")[0]:
            return None
        prefix = m.group(0)[:-len(m.group(1)) - 1]  # `tl.` or `triton.language.`
        return "%scast(%s, %s%s)" % (prefix, args[0].strip(), prefix, m.group(1))
    return _rewrite_calls(source, _DTYPE_CALL, rewrite)


def port(source, installed):
    """(ported_source, rewrites) for `source` on the installed Triton; rewrites is a list of
    {"move", "old", "new", "count"}, empty when nothing applied (ported_source is then source)."""
    rewrites = []
    out = source
    v = installed.triton_version
    moves = {m.id: m for m in MOVES}

    def note(move_id, old, new, count):
        if count:
            rewrites.append({"move": move_id, "old": old, "new": new, "count": count})

    def rename(text, pattern, move_id, keep, new):
        """Each name `pattern` matches (group 1: the function) becomes new(NAME) unless keep(NAME)."""
        seen = {}

        def sub(m):
            if keep(m.group(1)):
                return m.group(0)
            seen[m.group(0)] = seen.get(m.group(0), 0) + 1
            return new(m.group(1))
        text = pattern.sub(sub, text)
        for old, n in seen.items():
            note(move_id, old, new(old.rsplit(".", 1)[1]), n)
        return text, bool(seen)

    def to_libdevice(text, pattern, move_id, keep):
        return rename(text, pattern, move_id, keep, lambda name: "libdevice." + name)

    need_libdevice = False
    if applies(moves["tl.libdevice"], v):
        out, moved = to_libdevice(out, _LIBDEVICE_2_0, "tl.libdevice", lambda name: not installed.has_libdevice(name))
        need_libdevice = need_libdevice or moved
        out, n = _LIBDEVICE_2_0_IMPORT.subn(lambda m: m.group(1) + LIBDEVICE_IMPORT, out)
        note("tl.libdevice", "from triton.language import libdevice", LIBDEVICE_IMPORT, n)

    if applies(moves["tl.math.libdevice"], v):
        # Only what today's tl.math lacks and libdevice has: tl.math.exp stays where it is.
        out, moved = to_libdevice(out, _MATH_CALL, "tl.math.libdevice",
                                  lambda name: installed.has_math(name) or not installed.has_libdevice(name))
        need_libdevice = need_libdevice or moved

    if applies(moves["tl.math.minmax"], v):
        out, _ = rename(out, _MATH_MINMAX, "tl.math.minmax", installed.has_math, lambda name: "tl.%simum" % name)

    if applies(moves["tl.math.import"], v):
        out, moved = _port_math_imports(out, installed)
        for name in moved:
            note("tl.math.import", "from triton.language.math import " + name,
                 "from triton.language.extra.libdevice import " + name, 1)

    if applies(moves["global.constexpr"], v):
        out, names = _port_jitted_globals(out)
        for name in names:
            note("global.constexpr", name + " = <literal>", name + " = triton.language.constexpr(<literal>)", 1)
        if names:
            out = _add_import(out, CONSTEXPR_IMPORT)

    if applies(moves["extra.cuda.libdevice"], v) and not installed.resolves("triton.language.extra.cuda.libdevice"):
        out, moved = to_libdevice(out, _CUDA_LIBDEVICE_ATTR, "extra.cuda.libdevice", lambda name: False)
        need_libdevice = need_libdevice or moved
        out, n = _CUDA_LIBDEVICE_IMPORT.subn(lambda m: m.group(1) + LIBDEVICE_IMPORT, out)
        note("extra.cuda.libdevice", "from triton.language.extra.cuda import libdevice", LIBDEVICE_IMPORT, n)

    if applies(moves["float8e4"], v) and installed.resolves("triton.language.float8e4nv"):
        out, n = _FLOAT8E4.subn(lambda m: m.group(0) + "nv", out)
        note("float8e4", "tl.float8e4", "tl.float8e4nv", n)

    if applies(moves["dot.trans"], v):
        out, n = _port_dot_transposes(out)
        note("dot.trans", "tl.dot(..., trans_a/trans_b=...)", "tl.dot(tl.trans(...), ...)", n)

    if applies(moves["make_tensor_descriptor"], v):
        out, n = _EXPERIMENTAL_MAKE_DESC.subn("tl.make_tensor_descriptor", out)
        note("make_tensor_descriptor", "tl._experimental_make_tensor_descriptor", "tl.make_tensor_descriptor", n)

    if applies(moves["experimental_descriptor_load"], v) and not installed.resolves(
            "triton.language._experimental_descriptor_load"):
        out, n = _port_descriptor_calls(out)
        note("experimental_descriptor_load", "tl._experimental_descriptor_load/store(desc, ...)",
             "desc.load/store(...)", n)

    if applies(moves["tools.experimental_descriptor"], v) and not installed.resolves(
            "triton.tools.experimental_descriptor"):
        out, n = _guard_tools_imports(out)
        note("tools.experimental_descriptor", "import triton.tools.experimental_descriptor",
             "the same import inside try/except ImportError", n)

    if applies(moves["tuple.single"], v):
        out, n = _port_single_tuples(out)
        note("tuple.single", "NAME = (EXPR,)", "NAME = (EXPR)", n)

    if "constexpr_function" in out:
        out, n = _port_constexpr_function_callees(out)
        note("constexpr_function.callee", "a plain function a constexpr_function calls",
             "the same function as a constexpr_function", n)

    if "typing" in out:
        out, n = _drop_annotations(out, _typing_annotations(out))
        note("typing.annotation", "a typing annotation of a jitted function", "no annotation", n)

    if (applies(moves["const_pointer_type"], v) and _CONST_POINTER.search(out)
            and not installed.resolves("triton.language.const_pointer_type")):
        out, n = _drop_annotations(out, _const_pointer_annotations(out))
        note("const_pointer_type", "NAME: tl.const_pointer_type", "NAME", n)

    if "constexpr" in out:
        out, n = _port_string_defaults(out)
        note("constexpr.str_default", "NAME: tl.constexpr = \"...\"", "NAME: tl.constexpr = tl.constexpr(\"...\")", n)

    if applies(moves["get_int_dtype"], v) and "get_int_dtype" in out:
        out, n = _port_get_int_dtype(out)
        note("get_int_dtype", "NAME = core.get_int_dtype(...)", "NAME chosen in constexpr branches", n)

    if _FLIP_CALL.search(out) and not installed.flip_default_dim():
        out, n = _port_flip_calls(out)
        note("flip.dim", "tl.flip(x)", "tl.flip(x, -1)", n)

    if _DTYPE_CALL.search(out) and not installed.dtype_callable():
        out, n = _port_dtype_calls(out)
        note("dtype.call", "tl.<dtype>(x)", "tl.cast(x, tl.<dtype>)", n)

    for old_mod in sorted(set(_INDUCTOR_OLD.findall(out))):
        if installed.resolves("torch._inductor." + old_mod) or not installed.resolves("torch._inductor.runtime." + old_mod):
            continue
        out, n = re.subn(r"\btorch\._inductor\.%s\b" % old_mod, "torch._inductor.runtime." + old_mod, out)
        note("inductor.triton_helpers", "torch._inductor." + old_mod, "torch._inductor.runtime." + old_mod, n)

    def from_inductor(m):
        names = [p.strip() for p in m.group(2).split(",")]
        moved = [p for p in names if p.split(" as ")[0].strip() in ("triton_helpers", "triton_heuristics")]
        if any(installed.resolves("torch._inductor." + p.split(" as ")[0].strip()) for p in moved):
            return m.group(0)
        rest = [p for p in names if p not in moved]
        lines = [m.group(1) + "from torch._inductor.runtime import " + ", ".join(moved)]
        if rest:
            lines.append(m.group(1) + "from torch._inductor import " + ", ".join(rest))
        from_inductor.count += 1
        return "\n".join(lines)
    from_inductor.count = 0
    if installed.resolves("torch._inductor.runtime.triton_helpers"):
        out = _INDUCTOR_OLD_FROM.sub(from_inductor, out)
        note("inductor.triton_helpers", "from torch._inductor import triton_helpers",
             "from torch._inductor.runtime import triton_helpers", from_inductor.count)

    if need_libdevice:
        out = _add_import(out, LIBDEVICE_IMPORT)
    return (out if rewrites else source), rewrites


def unported_moves(source, triton_version):
    """Ids of the moves without a mechanical port that `source` meets on this Triton: they
    explain a missing_name the port could not fix."""
    found = []
    checks = (("AttrsDescriptor", _ATTRS_DESCRIPTOR),)
    for move_id, pattern in checks:
        move = next(m for m in MOVES if m.id == move_id)
        if applies(move, triton_version) and pattern.search(source):
            found.append(move_id)
    return found


def table():
    """The moves as JSON-able dicts (README and `run_bundle.py --ports` print them)."""
    return [m._asdict() for m in MOVES]


def expand_keyword_splat(source, entry, name):
    """Triton 1.x took a kernel's constexprs through a keyword splat (`def k(X, N, **meta)`, read
    as `meta['BLOCK']`); Triton 2 and later want each as a parameter of its own. Rewrites the
    module-level function `entry`: the splat becomes one `KEY: constexpr` parameter per key its
    body reads, in order of first use, and each `meta['KEY']` the name KEY. Returns (source, keys);
    keys is empty (and the source unchanged) when the function has no such splat."""
    import ast
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source, []
    fn = None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == entry:
            fn = node
    if fn is None or fn.args.kwarg is None or fn.args.kwarg.arg != name:
        return source, []
    lines = source.splitlines(keepends=True)
    start = fn.lineno - 1  # from the `def` line: decorators' own lambdas keep their `meta`
    end = fn.end_lineno
    text = "".join(lines[start:end])
    read = re.compile(r"\b%s\[\s*(['\"])(\w+)\1\s*\]" % re.escape(name))
    taken = {a.arg for a in fn.args.args + fn.args.kwonlyargs}
    keys = []
    for m in read.finditer(text):
        if m.group(2) not in keys and m.group(2) not in taken:
            keys.append(m.group(2))
    if not keys:
        return source, []
    constexpr = "tl.constexpr" if re.search(r"^import triton\.language as tl\b", source, re.M) else \
        "triton.language.constexpr"
    params = ", ".join("%s: %s" % (k, constexpr) for k in keys)
    text = re.sub(r"\*\*\s*%s\b" % re.escape(name), params, text, count=1)
    text = read.sub(lambda m: m.group(2), text)
    # `TN = meta['TN']` is now `TN = TN`, which would make the constexpr a plain local: gone.
    self_assigned = re.compile(r"^([ \t]+)(%s)[ \t]*=[ \t]*\2[ \t]*(#.*)?$" % "|".join(map(re.escape, keys)), re.M)
    text = self_assigned.sub(lambda m: m.group(1) + "pass", text)
    return "".join(lines[:start]) + text + "".join(lines[end:]), keys
