import inspect


class _Param:
    def __init__(self, p):
        self.name = p.name
        ann = p.annotation
        self.is_constexpr = ann is not inspect.Parameter.empty and (
            getattr(ann, "__name__", "") == "constexpr" or "constexpr" in str(ann))
        self.has_default = p.default is not inspect.Parameter.empty
        self.default = p.default if self.has_default else None


class JITFunction:
    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.params = [_Param(p) for p in inspect.signature(fn).parameters.values()]
        self.arg_names = [p.name for p in self.params]


def jit(fn=None, **kwargs):
    if fn is None:
        return lambda f: JITFunction(f)
    return JITFunction(fn)
