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

# The float64 reference (torch._dynamo.utils.same's fp64_ref, as PyTorch's own accuracy checks
# use it): a compiled output outside the tolerance still agrees when its root-mean-square error
# against the module run in float64 is at most MULTIPLIER times eager's own (half types: more,
# as there) plus a tenth of atol. Eager fp32 is not exact either (TF32 convolutions, reductions
# in another order): the compiled output only has to be about as close to the true value.
REFERENCE_MULTIPLIER = 2.0
HALF_REFERENCE_MULTIPLIER = 3.0
# The reference is trusted only where eager agrees with it within this many times the dtype's
# tolerance: a module whose float64 run computes something else (a dtype-dependent branch, an
# epsilon from finfo, random numbers drawn differently) gives no reference, and the two outputs
# being equally far from such a value says nothing.
REFERENCE_TRUST = 10.0


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


def reference_multiplier(dtype):
    return HALF_REFERENCE_MULTIPLIER if dtype_name(dtype) in ("float16", "bfloat16") else REFERENCE_MULTIPLIER


def reference_agrees(eager_rmse, compiled_rmse, dtype, atol):
    """Whether a compiled output is about as close to the float64 reference as eager's is (see
    REFERENCE_MULTIPLIER); never with an error that is not a number."""
    if eager_rmse is None or compiled_rmse is None or eager_rmse != eager_rmse or compiled_rmse != compiled_rmse:
        return False
    return compiled_rmse <= reference_multiplier(dtype) * eager_rmse + atol / 10.0


def compare(eager, compiled, is_tensor, measure, reference=None, against_reference=None):
    """{"match", "max_abs_error", "worst", "tolerances", "tensors", "comparison", "reference"}.
    `measure(a, b)` returns (max |a - b|, max |b| , shapes_equal, dtypes_equal, close) for two
    tensors, where close applies torch.allclose-style rtol/atol from `tolerance(a.dtype)`.
    `reference`: the module's output run in float64 (or None); `against_reference(a, b, r, rtol,
    atol)` returns (trusted, rmse of a against r, rmse of b against r), trusted when a is within
    REFERENCE_TRUST times the tolerance of r. A tensor that is not close agrees when the trusted
    reference says so (reference_agrees); "comparison" says what decided: "allclose" when every
    tensor was close, "float64_reference" when the reference accepted one that was not (or, on a
    mismatch, when a usable reference was given and refused it), and "reference" holds the errors
    of the tensor it accepted with the largest compiled error ("reference_refused" those of the
    first tensor it did not accept)."""
    a, b = flatten(eager, is_tensor), flatten(compiled, is_tensor)
    result = {"match": True, "max_abs_error": 0.0, "worst": None, "tolerances": {}, "tensors": 0,
              "comparison": "allclose", "reference": None}
    refs = None
    if reference is not None and against_reference is not None:
        try:
            r = flatten(reference, is_tensor)
        except Mismatch:
            r = None
        if r is not None and [p for p, _ in r] == [p for p, _ in a]:
            refs = [v for _, v in r]
    if [p for p, _ in a] != [p for p, _ in b]:
        result.update(match=False, worst="output structure differs")
        return result
    for i, ((path, x), (_, y)) in enumerate(zip(a, b)):
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
        if not close and refs is not None and is_tensor(refs[i]):
            trusted, eager_rmse, compiled_rmse = against_reference(x, y, refs[i], rtol, atol)
            if trusted and reference_agrees(eager_rmse, compiled_rmse, x.dtype, atol):
                close = True
                result["comparison"] = "float64_reference"
                if result["reference"] is None or compiled_rmse > result["reference"]["compiled_rmse"]:
                    result["reference"] = {"path": path, "eager_rmse": eager_rmse, "compiled_rmse": compiled_rmse}
            elif result.get("reference_refused") is None:
                result["reference_refused"] = {"path": path, "trusted": bool(trusted), "eager_rmse": eager_rmse,
                                               "compiled_rmse": compiled_rmse}
        if err is not None and err > result["max_abs_error"]:
            result["max_abs_error"] = err
            if not close:
                result["worst"] = path
        if not close:
            result["match"] = False
            result["worst"] = result["worst"] or path
    if not result["match"] and refs is not None:
        result["comparison"] = "float64_reference"  # what was tried last, and refused it
    return result
