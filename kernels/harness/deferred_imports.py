"""Third-party imports of a mined module's standalone that this machine lacks, deferred to their
first use, as a lazy import would be.

A standalone keeps its file's imports of other libraries whole, so a module that never touches
`einx` when it is built and called with its inferred inputs still fails to import when
`import einx` sits at the top of its file for the sake of other classes. Here such an import
binds a placeholder instead, and the first use of the placeholder (a call, an attribute, a
subclass) raises the ModuleNotFoundError the import would have raised: a module whose
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


def _missing_error(name):
    e = ModuleNotFoundError("No module named %r (imported by the module's file, needed when it ran)"
                            % name.split(".")[0])
    e.name = name.split(".")[0]
    return e


class _MissingMeta(type):
    """Placeholders are classes, so annotations (`Optional[Foo]`) and isinstance checks against
    a name of the missing library still evaluate; anything that needs the library raises."""

    def __new__(mcs, name, bases, namespace, **kwargs):
        missing = [b for b in bases if isinstance(b, _MissingMeta)]
        if missing and "_mine_missing" not in namespace:
            raise _missing_error(missing[0]._mine_missing)
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


def missing_imports(source):
    """Dotted module names of the unguarded module-level imports whose top-level package this
    interpreter cannot find (each with its parents), in source order."""
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
            top = name.split(".")[0]
            if top in sys.modules or _installed(top):
                continue
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                dotted = ".".join(parts[:i])
                if dotted not in out:
                    out.append(dotted)
    return out


def install(names):
    """Placeholder modules for `names` in sys.modules; returns the names actually added, for
    remove() once the standalone is imported (a later task must not find them)."""
    added = []
    for name in names:
        if name in sys.modules:
            continue
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
