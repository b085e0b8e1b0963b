"""Two bugs of torch.compile that stop a module from compiling for no fault of its own, worked
around in the worker before it compiles (inductor_stage.run). Each is installed only where the
running torch still has the bug, changes nothing else, and says when a compile used it (`USED`),
so a row records what its pair needed. The output of the compile is still Inductor's, and is
still checked against eager: these make a compile possible, never a comparison easier.

1. Dynamo cannot resolve a zero-argument `super()` in a method of a torch.autograd.Function
   subclass (a classmethod `forward` calling `super().forward(...)`, as Liger-Kernel's chunked
   losses do): the `__class__` cell is an AutogradFunctionVariable, and
   SuperVariable asks it for its Python constant, which that variable does not define
   ("AutogradFunctionVariable() is not a constant"). The class is a constant as much as any
   other class Dynamo sees (UserDefinedClassVariable answers its value; the variable was built
   with a guard on it), so the workaround answers `fn_cls`.

2. Inductor re-emits a user's @triton.jit kernel from its source text into its own module,
   followed by the module globals the kernel's body names (co_names). A parameter default that
   names a global (`reduction: tl.constexpr = _REDUCTION_MODE_BATCHMEAN`) is evaluated when that
   `def` runs, before those definitions, and is not in co_names anyway: the emitted module raises
   NameError. Python bound the default to the global's value when the kernel was defined; the
   workaround writes that value in place of the name in the emitted copy's signature (only for
   values Inductor itself knows how to emit: int, float, str, bool, tl.constexpr of those), so the
   generated code is self-contained and means what the kernel meant."""
import ast
import math
import sys
import textwrap

USED = []  # names of the workarounds a compile used since the caller last cleared it

CLOSURE_FUNCTION = "user_defined_triton_kernel_transitive_closure_source_code"
_INSTALLED = {}


def install(torch):
    """Installs the workarounds this torch needs (once per process); returns their names."""
    key = id(torch)
    if key not in _INSTALLED:
        names = []
        if autograd_function_constant():
            names.append("autograd_function_constant")
        if inline_default_globals_in(_inductor_modules()):
            names.append("kernel_default_globals")
        _INSTALLED[key] = names
    return list(_INSTALLED[key])


def autograd_function_constant(variable_class=None):
    """Gives Dynamo's AutogradFunctionVariable an as_python_constant (its class) where it has
    none of its own; False when there is nothing to do (no such class, or torch defines one)."""
    if variable_class is None:
        try:
            from torch._dynamo.variables.misc import AutogradFunctionVariable as variable_class
        except Exception:  # noqa: BLE001 -- another torch: nothing to patch
            return False
    owner = next((k for k in variable_class.__mro__ if "as_python_constant" in vars(k)), None)
    if owner is not None and owner.__name__ != "VariableTracker":  # torch answers it (fixed)
        return False

    def as_python_constant(self):
        fn_cls = getattr(self, "fn_cls", None)
        if fn_cls is None:
            raise NotImplementedError("%s is not a constant" % self)
        if "autograd_function_constant" not in USED:
            USED.append("autograd_function_constant")
        return fn_cls

    variable_class.as_python_constant = as_python_constant
    return True


def _inductor_modules():
    try:
        import torch._inductor.codegen.wrapper  # noqa: F401 -- where the function lives
    except Exception:  # noqa: BLE001
        return []
    return [m for name, m in list(sys.modules.items())
            if m is not None and (name == "torch._inductor" or name.startswith("torch._inductor."))]


def inline_default_globals_in(modules):
    """Wraps the function Inductor emits a user kernel's source with (CLOSURE_FUNCTION) in every
    one of `modules` that binds it, so that the kernel it is given has its parameter defaults'
    globals written as their values (inline_default_globals). True when one was wrapped."""
    originals = {}
    for m in modules:
        f = getattr(m, CLOSURE_FUNCTION, None)
        if callable(f) and not getattr(f, "_inlines_default_globals", False):
            originals.setdefault(id(f), f)
    wrapped = {}
    for key, original in originals.items():
        def closure(kernel, *args, _original=original, **kwargs):
            return _original(with_inlined_defaults(kernel), *args, **kwargs)
        closure._inlines_default_globals = True
        closure.__wrapped__ = original
        wrapped[key] = closure
    for m in modules:
        f = getattr(m, CLOSURE_FUNCTION, None)
        if id(f) in wrapped:
            setattr(m, CLOSURE_FUNCTION, wrapped[id(f)])
    return bool(wrapped)


class _KernelWithSource:
    """The kernel as Inductor reads it, with another source text."""

    def __init__(self, kernel, src):
        self._kernel, self.src = kernel, src

    def __getattr__(self, name):
        return getattr(self._kernel, name)


def with_inlined_defaults(kernel):
    """`kernel` itself, or a stand-in whose `src` has its defaults' globals as values."""
    src, fn = getattr(kernel, "src", None), getattr(kernel, "fn", None)
    namespace = getattr(fn, "__globals__", None)
    if not isinstance(src, str) or not isinstance(namespace, dict):
        return kernel
    try:
        new = inline_default_globals(src, namespace)
    except Exception:  # noqa: BLE001 -- leave Inductor's behaviour as it was
        return kernel
    if new == src:
        return kernel
    if "kernel_default_globals" not in USED:
        USED.append("kernel_default_globals")
    return _KernelWithSource(kernel, new)


def literal(value):
    """Source text for `value` as Inductor emits a kernel's global (wrapper.py writes
    `tl.constexpr(v)` for a constexpr, repr for int, str, bool), floats too when finite; None for
    anything else."""
    if isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if type(value).__name__ == "constexpr" and hasattr(value, "value"):
        inner = literal(value.value)
        return None if inner is None else "tl.constexpr(%s)" % inner
    return None


def inline_default_globals(src, namespace):
    """`src` (a function's source, dedented as Inductor splices it) with each name in the default
    values of its first function's parameters that `namespace` binds to a literal value (literal)
    written as that value. Names the function defines locally cannot occur there; a name bound to
    anything else (a function, a tensor) stays."""
    text = textwrap.dedent(src)
    tree = ast.parse(text)
    fn = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    if fn is None:
        return src
    defaults = list(fn.args.defaults) + [d for d in fn.args.kw_defaults if d is not None]
    edits = []
    for default in defaults:
        for node in ast.walk(default):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in namespace:
                value = literal(namespace[node.id])
                if value is not None:
                    edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, value))
    if not edits:
        return src
    lines = text.encode("utf-8").splitlines(keepends=True)  # ast offsets count UTF-8 bytes
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    data = b"".join(lines)
    for lineno, col, end_lineno, end_col, value in sorted(edits, reverse=True):
        begin, end = starts[lineno - 1] + col, starts[end_lineno - 1] + end_col
        data = data[:begin] + value.encode("utf-8") + data[end:]
    return data.decode("utf-8")
