from .errors import CompilationError


class ASTSource:
    def __init__(self, fn, signature, constexprs=None, attrs=None):
        self.fn, self.signature = fn, signature
        self.constexprs, self.attrs = dict(constexprs or {}), dict(attrs or {})


class _Meta:
    shared = 0


class CompiledKernel:
    def __init__(self, name):
        self.name = name
        self.metadata = _Meta()
        self.n_regs = None
        self.n_spills = None

    def _init_handles(self):
        raise RuntimeError("the Triton stand-in cannot load kernels: no GPU here")


# The options and signature of the compile in progress, for stand-in kernels whose outcome
# depends on them.
current_options = {}
current_signature = {}
current_target = None


def compile(src, target=None, options=None):
    global current_options, current_signature, current_target
    current_options = dict(options or {})
    current_target = target
    current_signature = dict(src.signature)
    names = list(src.signature)
    args = []
    for i, name in enumerate(names):
        args.append(src.constexprs.get((i,)) if src.signature[name] == "constexpr" else None)
    try:
        src.fn.fn(*args)
    except Exception as e:
        raise CompilationError("at 1:0: %s" % e) from e
    return CompiledKernel(src.fn.__name__)
