"""Reading and validating a check bundle (format in BUNDLE.md). Standard library only."""
import json
import os

VERSION = 1
LANGUAGES = ("triton", "cuda", "torch_module")
STAGES = ("import", "compile", "load", "run")


class BundleError(ValueError):
    pass


def _check_module_path(where, bundle_dir, module):
    # The bundle comes from elsewhere; a module path must not leave the bundle directory.
    if os.path.isabs(module) or ".." in module.replace("\\", "/").split("/"):
        raise BundleError("%s: module path %r escapes the bundle" % (where, module))
    if not os.path.isfile(os.path.join(bundle_dir, module)):
        raise BundleError("%s: module file %s is missing" % (where, module))


def _check_kernel(k, bundle_dir, seen):
    where = "kernel %r" % (k.get("id"),)
    if not isinstance(k.get("id"), int) or isinstance(k.get("id"), bool):
        raise BundleError("%s: id must be an integer" % where)
    if k["id"] in seen:
        raise BundleError("%s: duplicate id" % where)
    seen.add(k["id"])
    for field in ("entry", "module"):
        if not isinstance(k.get(field), str) or not k[field]:
            raise BundleError("%s: %s must be a non-empty string" % (where, field))
    _check_module_path(where, bundle_dir, k["module"])
    if k.get("kernel_only_module") is not None:
        if not isinstance(k["kernel_only_module"], str) or not k["kernel_only_module"]:
            raise BundleError("%s: kernel_only_module must be a non-empty string" % where)
        _check_module_path(where, bundle_dir, k["kernel_only_module"])
    lang = k.setdefault("language", "triton")
    if lang not in LANGUAGES:
        raise BundleError("%s: language %r is not supported" % (where, lang))
    if lang == "torch_module":
        inputs = k.setdefault("inputs", {})
        if not isinstance(inputs, dict) or not isinstance(inputs.get("init", []), list) \
                or not isinstance(inputs.get("forward", []), list):
            raise BundleError("%s: inputs must be {init: [...], forward: [...]}" % where)
        k.setdefault("guessed", [])
        return k
    if lang == "cuda":
        params = k.setdefault("params", [])
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise BundleError("%s: params must be a list of C parameter declarations" % where)
        if not isinstance(k.setdefault("args", {}), dict):
            raise BundleError("%s: args must be an object" % where)
        for field in ("grid", "block"):
            v = k.setdefault(field, None)
            if v is not None and (not isinstance(v, list) or not 1 <= len(v) <= 3
                                  or not all(isinstance(g, int) and g >= 1 for g in v)):
                raise BundleError("%s: %s must be null or 1-3 positive integers" % (where, field))
            if v is not None:
                k[field] = list(v) + [1] * (3 - len(v))
        k.setdefault("guessed", [])
        return k
    sig = k.setdefault("signature", {})
    if not isinstance(sig, dict) or not all(isinstance(v, str) for v in sig.values()):
        raise BundleError("%s: signature must map parameter names to type strings" % where)
    for field in ("constexprs", "numels", "args", "attrs", "options"):
        if not isinstance(k.setdefault(field, {}), dict):
            raise BundleError("%s: %s must be an object" % (where, field))
    grid = k.setdefault("grid", None)
    if grid is not None:
        if (not isinstance(grid, list) or not 1 <= len(grid) <= 3
                or not all(isinstance(g, int) and g >= 1 for g in grid)):
            raise BundleError("%s: grid must be null or 1-3 positive integers" % where)
        k["grid"] = list(grid) + [1] * (3 - len(grid))
    if not isinstance(k.setdefault("guessed", []), list):
        raise BundleError("%s: guessed must be a list" % where)
    if not isinstance(k.setdefault("autotune", []), list):
        raise BundleError("%s: autotune must be a list of configs" % where)
    return k


def load_bundle(bundle_dir):
    path = os.path.join(bundle_dir, "bundle.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except OSError as e:
        raise BundleError("cannot read %s: %s" % (path, e))
    except json.JSONDecodeError as e:
        raise BundleError("%s is not JSON: %s" % (path, e))
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise BundleError("%s: version must be %d" % (path, VERSION))
    kernels = doc.get("kernels")
    if not isinstance(kernels, list):
        raise BundleError("%s: kernels must be a list" % path)
    seen = set()
    return [_check_kernel(dict(k), bundle_dir, seen) if isinstance(k, dict)
            else _raise(BundleError("%s: every kernel must be an object" % path))
            for k in kernels]


def _raise(e):
    raise e
