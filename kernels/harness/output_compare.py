"""Eager against compiled outputs of a module, with tolerances by dtype. No torch import here:
the caller hands in how to tell a tensor and how to measure two of them, so the tests run with
stand-ins on machines without torch."""

# (rtol, atol) by dtype name: Inductor fuses and reorders reductions, so the last bits move;
# half types keep about three decimal digits.
TOLERANCES = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-3, 1e-3),
    "float16": (1e-2, 1e-2),
    "bfloat16": (2e-2, 2e-2),
}
DEFAULT_TOLERANCE = (1e-3, 1e-3)
MAX_LEAVES = 10000


class Mismatch(Exception):
    pass


def dtype_name(dtype):
    return str(dtype).replace("torch.", "")


def tolerance(dtype):
    return TOLERANCES.get(dtype_name(dtype), DEFAULT_TOLERANCE)


def flatten(obj, is_tensor, path="out", out=None):
    """[(path, leaf)] of a module's output: tensors, numbers, None and strings, through tuples,
    lists, dicts and objects with `_asdict` or a `__dict__` of outputs (ModelOutput-like)."""
    out = [] if out is None else out
    if len(out) > MAX_LEAVES:
        raise Mismatch("output has more than %d parts" % MAX_LEAVES)
    if is_tensor(obj) or obj is None or isinstance(obj, (bool, int, float, str)):
        out.append((path, obj))
    elif isinstance(obj, dict):
        for k in sorted(obj, key=str):
            flatten(obj[k], is_tensor, "%s[%r]" % (path, k), out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            flatten(v, is_tensor, "%s[%d]" % (path, i), out)
    elif hasattr(obj, "_asdict"):
        flatten(obj._asdict(), is_tensor, path, out)
    else:
        out.append((path, repr(type(obj))))
    return out


def compare(eager, compiled, is_tensor, measure):
    """{"match", "max_abs_error", "worst", "tolerances", "tensors"}. `measure(a, b)` returns
    (max |a - b|, max |b| , shapes_equal, dtypes_equal, close) for two tensors, where close applies
    torch.allclose-style rtol/atol from `tolerance(a.dtype)`."""
    a, b = flatten(eager, is_tensor), flatten(compiled, is_tensor)
    result = {"match": True, "max_abs_error": 0.0, "worst": None, "tolerances": {}, "tensors": 0}
    if [p for p, _ in a] != [p for p, _ in b]:
        result.update(match=False, worst="output structure differs")
        return result
    for (path, x), (_, y) in zip(a, b):
        if is_tensor(x) != is_tensor(y):
            result.update(match=False, worst="%s: tensor against non-tensor" % path)
            return result
        if not is_tensor(x):
            if x != y and not (isinstance(x, float) and isinstance(y, float) and abs(x - y) <= 1e-6):
                result.update(match=False, worst="%s: %r != %r" % (path, x, y))
            continue
        result["tensors"] += 1
        rtol, atol = tolerance(x.dtype)
        result["tolerances"][dtype_name(x.dtype)] = [rtol, atol]
        err, _, same_shape, same_dtype, close = measure(x, y, rtol, atol)
        if not same_shape or not same_dtype:
            result.update(match=False, worst="%s: shape or dtype differs" % path)
            return result
        if err is not None and err > result["max_abs_error"]:
            result["max_abs_error"] = err
            if not close:
                result["worst"] = path
        if not close:
            result["match"] = False
            result["worst"] = result["worst"] or path
    return result
