"""Specialization for a compile: what the kernel's generator promised about its arguments
(Inductor's `divisible_by_16`, carried in the bundle as `attrs`), and what Triton's own launcher
decides from the values it is handed (an integer equal to 1 is compiled in as a constant).

Triton takes them as `{(index,): [["tt.divisibility", 16]]}` and compiles as if they held. The
promise was about the generator's real arguments; the check launches synthesized ones, so a
promise those break (an integer said divisible by 16 that gets 1) is left out: compiled in, it
would make the kernel vectorize over misaligned addresses for reasons not its own.
"""
import re

_CONVERTED = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.to\(")


def converted_names(source):
    """Names the kernel's source converts with `.to(...)` (`stride.to(tl.int64)`). A constexpr
    has no `.to`, so where the repository launches the kernel such a parameter is never the 1
    Triton would specialize; a 1 the check derived from stand-in shapes must stay a scalar."""
    return set(_CONVERTED.findall(source or ""))


def attach(plan, spec):
    """Sets plan["attrs"] = {param: [[attr, value], ...]} from spec["attrs"], without constexprs,
    unknown parameters and divisibility the synthesized scalar does not have."""
    scalars = {name: detail for name, kind, detail in plan["args"] if kind == "scalar"}
    attrs = {}
    for name, pairs in (spec.get("attrs") or {}).items():
        if plan["signature"].get(name, "constexpr") == "constexpr":
            continue
        keep = []
        for pair in pairs or []:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                continue
            key, value = pair
            if key == "tt.divisibility" and name in scalars:
                v = scalars[name]
                if not isinstance(v, int) or isinstance(v, bool) or not isinstance(value, int) or value <= 0 or v % value:
                    continue
            keep.append([key, value])
        if keep:
            attrs[name] = keep
    plan["attrs"] = attrs
    return plan


def ones_as_constants(plan, spec, unspecialized=()):
    """Integer arguments equal to 1 become the constexpr 1, as `kernel[grid](...)` compiles them:
    Triton's launcher specializes such a value unless the parameter is in `do_not_specialize`.
    A kernel can depend on it (`tl.make_tensor_descriptor` wants a last stride it knows is 1), and
    the check compiles with a signature of its own, so it makes the same decision here. Only for
    values the launch gave: a guessed 1 (a row stride nobody stated) is no value the repository
    passes, and made a constant it breaks `stride.to(tl.int64)`. Inductor's kernels are left as
    their generator compiled them (`attrs`)."""
    if spec.get("plugin") == "inductor":
        return plan
    guessed = set(plan.get("guessed") or ())
    for i, (name, kind, value) in enumerate(plan["args"]):
        if kind != "scalar" or name in unspecialized or name in guessed or isinstance(value, bool) or value != 1:
            continue
        ty = plan["signature"].get(name, "")
        if not isinstance(value, int) or ty[:1] not in ("i", "u") or ty == "i1":
            continue
        plan["signature"][name] = "constexpr"
        plan["constexprs"][name] = 1
        plan["args"][i] = (name, "constexpr", 1)
    return plan
