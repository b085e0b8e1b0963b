"""Third-party imports of a mined module's standalone that this machine lacks, deferred to their
first use, as a lazy import would be.

A standalone keeps its file's imports of other libraries whole, so a module that never touches
`einx` when it is built and called with its inferred inputs still fails to import when
`import einx` sits at the top of its file for the sake of other classes. Here such an import
binds a placeholder instead, and the first use of the placeholder (a call, an attribute, an
instance of a subclass) raises the ModuleNotFoundError the import would have raised: a module whose
construction or forward reaches the library still fails as missing it, and one that runs did not
use it. Only module-level imports outside a `try` are deferred: an import the file guards
itself chooses its own fallback on ImportError, and a deferred one would hide that. Standard
library only.
"""
import ast
import importlib.machinery
import importlib.util
import sys
import types


# Placeholder module -> the module its import lacked: the package itself (`flash_attn`) or, in a
# package that is installed, the first submodule it no longer has (`triton.ops`).
_LACKED = {}


def _missing_error(name):
    parts = name.split(".")
    prefixes = (".".join(parts[:i]) for i in range(len(parts), 0, -1))
    missing = next((_LACKED[p] for p in prefixes if p in _LACKED), parts[0])
    e = ModuleNotFoundError("No module named %r (imported by the module's file, needed when it ran)" % missing)
    e.name = missing
    return e


class _MissingMeta(type):
    """Placeholders are classes, so annotations (`Optional[Foo]`) and isinstance checks against
    a name of the missing library still evaluate; anything that needs the library raises."""

    def __new__(mcs, name, bases, namespace, **kwargs):
        missing = [b for b in bases if isinstance(b, _MissingMeta)]
        if missing and "_mine_missing" not in namespace:
            # A class the file derives from the missing library (a pydantic schema beside the
            # kernel) is itself a placeholder: defining it is no use, building one is.
            return super().__new__(mcs, name, (), {"_mine_missing": missing[0]._mine_missing,
                                                   "__module__": namespace.get("__module__"),
                                                   "__qualname__": namespace.get("__qualname__", name)})
        return super().__new__(mcs, name, bases, namespace)

    def __getattr__(cls, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        raise _missing_error(cls._mine_missing)

    def __call__(cls, *args, **kwargs):
        raise _missing_error(cls._mine_missing)

    def __instancecheck__(cls, obj):
        return False  # nothing can be an instance of a class that is not installed

    def __subclasscheck__(cls, sub):
        return False


def _placeholder(qualified):
    return _MissingMeta(qualified.rsplit(".", 1)[-1], (), {"_mine_missing": qualified})


class _MissingModule(types.ModuleType):
    def __reduce_ex__(self, protocol):
        # Triton pickles the globals a kernel reads (`tlx`, a fork's language module) for its
        # cache key: that is a use of the library.
        raise _missing_error(self.__name__)

    def __getattr__(self, attr):
        if attr in ("__version__", "__all__"):  # read from the library itself: it is needed
            raise _missing_error(self.__name__)
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # probed by the import system and introspection on any module
        return _placeholder(self.__name__ + "." + attr)


def _module_level_imports(tree):
    """Imports that run when the file is imported, outside a try: the module body and its
    if/with blocks, not function or class bodies."""
    stack = list(tree.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.If, ast.With)):
            stack.extend(list(node.body) + list(getattr(node, "orelse", [])))


def _installed(top):
    """Whether the import system finds the top-level package; a finder that fails (a broken
    path hook) counts as found, so the import itself reports what is wrong."""
    try:
        return importlib.util.find_spec(top) is not None
    except Exception:  # noqa: BLE001 -- any failure of a finder: leave the import as written
        return True


def _missing_from(name):
    """Index of the first dotted prefix of `name` the import system cannot find (1 for the
    top-level package), or None when all of it is there. A submodule is looked up only where its
    package is installed: `triton.ops`, gone from Triton 3.2 on, beside a Triton that is here."""
    parts = name.split(".")
    top = parts[0]
    if top not in sys.modules and not _installed(top):
        return 1
    for i in range(2, len(parts) + 1):
        dotted = ".".join(parts[:i])
        if dotted in sys.modules:
            continue
        try:
            if importlib.util.find_spec(dotted) is None:
                return i
        except ModuleNotFoundError:
            return i
        except Exception:  # noqa: BLE001 -- a package that fails to import: the import reports it
            return None
    return None


def missing_imports(source):
    """Dotted module names of the unguarded module-level imports this interpreter cannot find:
    from the first missing part on (`flash_attn`, `flash_attn.ops`, ...; `triton.ops`, not
    `triton`), in source order."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out = []
    for node in _module_level_imports(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif node.level == 0 and node.module:
            names = [node.module]
        else:
            continue  # relative: the standalone has none of its repository's
        for name in names:
            first = _missing_from(name)
            if first is None:
                continue
            parts = name.split(".")
            for i in range(first, len(parts) + 1):
                dotted = ".".join(parts[:i])
                if dotted not in out:
                    out.append(dotted)
    return out


def _guarded_imports(tree):
    """(bound name, module, imported name or None) of the module-level imports inside a `try`."""
    stack = list(tree.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.Try):
            for inner in node.body:
                if isinstance(inner, ast.Import):
                    for a in inner.names:
                        yield (a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0], None)
                elif isinstance(inner, ast.ImportFrom) and inner.level == 0 and inner.module:
                    for a in inner.names:
                        if a.name != "*":
                            yield a.asname or a.name, inner.module, a.name
                elif isinstance(inner, (ast.If, ast.With, ast.Try)):
                    stack.append(inner)
        elif isinstance(node, (ast.If, ast.With)):
            stack.extend(list(node.body) + list(getattr(node, "orelse", [])))


def bind_unbound_guarded(module, source):
    """Names a guarded import failed to bind and its fallback left unbound (`try: import nvtx /
    except ImportError: config.set_nvtx(False)`, then `nvtx.annotate = NoOp` to switch it off), bound
    in `module` to a placeholder as a deferred import is: a use raises the ModuleNotFoundError, as
    the NameError it replaces failed the module, and what the code assigns onto a missing module
    (`nvtx.annotate`) it reads back. Returns the names bound."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    namespace, bound = vars(module), []
    for local, dotted, attr in _guarded_imports(tree):
        if local in namespace or local in bound:
            continue
        if attr is None:
            placeholder = _MissingModule(dotted)
            placeholder.__path__ = []
        else:
            placeholder = _placeholder(dotted + "." + attr)
        setattr(module, local, placeholder)
        bound.append(local)
    return bound


def install(names):
    """Placeholder modules for `names` in sys.modules; returns the names actually added, for
    remove() once the standalone is imported (a later task must not find them)."""
    added = []
    for name in names:
        if name in sys.modules:
            continue
        _LACKED[name] = next((n for n in names if name == n or name.startswith(n + ".")), name)
        module = _MissingModule(name)
        module.__path__ = []  # a package, so `import a.b` finds a.b beside it
        # A library imported meanwhile may probe it with importlib.util.find_spec, which refuses
        # a module without a spec; with one it imports it and fails at its first use, as here.
        module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
        sys.modules[name] = module
        added.append(name)
        parent, _, child = name.rpartition(".")
        if parent in sys.modules and isinstance(sys.modules[parent], _MissingModule):
            setattr(sys.modules[parent], child, module)
    return added


def remove(names):
    for name in names:
        if isinstance(sys.modules.get(name), _MissingModule):
            del sys.modules[name]
