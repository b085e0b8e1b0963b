"""Process-wide state of Triton that a mined module can change, put back after every task.

A worker checks many kernels in one process. A module's import may install things that outlive
it: Triton-distributed registers a compiler-stage hook (`triton.knobs.runtime.
add_stages_inspection_hook`) that imports its own package, and from then on every kernel the
worker compiled failed with "No module named 'triton_dist'" (155 of Liger-Kernel's kernels in one
run). Knob groups, hook chains, the environment (knobs write it) and what mined code bound into
Triton's modules and classes are saved when the worker is ready and restored after each task;
the row names what had to be restored. Standard library only.
"""
import os
import sys


def _mined(value):
    """Whether `value` was made by mined code: the harness imports every mined module under a
    `mine_`/`mined_` name, so its functions, classes and their instances and bound methods say so."""
    for v in (value, getattr(value, "__func__", None), type(value)):
        name = getattr(v, "__module__", None)
        if isinstance(name, str) and name.startswith(("mine_", "mined_")):
            return True
    return False


def _classes(module, package):
    for value in list(vars(module).values()):
        if isinstance(value, type) and str(getattr(value, "__module__", "")).split(".")[0] == package:
            yield value


class SharedState:
    def __init__(self, package):
        self.package = package.__name__
        knobs = getattr(package, "knobs", None)
        base = getattr(knobs, "base_knobs", None)
        chain = getattr(knobs, "HookChain", None)
        self.groups = {}
        self.chains = {}
        if isinstance(base, type):
            self.groups = {name: (obj, dict(vars(obj))) for name, obj in vars(knobs).items()
                           if isinstance(obj, base)}
        for name, (obj, _) in self.groups.items():
            for cls in type(obj).__mro__:
                for attr, value in vars(cls).items():
                    if isinstance(chain, type) and isinstance(value, chain):
                        self.chains["knobs.%s.%s" % (name, attr)] = (value, list(value.calls))
        self.env = dict(os.environ)
        self.namespaces = {}
        for name, module in list(sys.modules.items()):
            if module is None or (name != self.package and not name.startswith(self.package + ".")):
                continue
            self.namespaces[name] = (module, dict(vars(module)))
            for cls in _classes(module, self.package):
                key = "%s.%s" % (cls.__module__, cls.__qualname__)
                self.namespaces.setdefault(key, (cls, dict(vars(cls))))

    def restore(self):
        """Puts back what changed since the snapshot; returns the names restored, sorted."""
        restored = set()
        for name, (obj, saved) in self.groups.items():
            if not _same(vars(obj), saved):
                vars(obj).clear()
                vars(obj).update(saved)
                restored.add("knobs." + name)
        for name, (chain, calls) in self.chains.items():
            if len(chain.calls) != len(calls) or any(a is not b for a, b in zip(chain.calls, calls)):
                chain.calls[:] = calls
                restored.add(name)
        if dict(os.environ) != self.env:
            for k in [k for k in os.environ if k not in self.env]:
                del os.environ[k]
            for k, v in self.env.items():
                if os.environ.get(k) != v:
                    os.environ[k] = v
            restored.add("os.environ")
        for name, (owner, saved) in self.namespaces.items():
            current = vars(owner)
            for attr in [a for a, v in list(current.items()) if saved.get(a, _ABSENT) is not v and _mined(v)]:
                if attr in saved:
                    setattr(owner, attr, saved[attr])
                else:
                    delattr(owner, attr)
                restored.add("%s.%s" % (name, attr))
        return sorted(restored)


_ABSENT = object()


def _same(current, saved):
    """Identity, not equality: a mined value's __eq__ is mined code, and may raise."""
    return current.keys() == saved.keys() and all(current[k] is saved[k] for k in saved)
