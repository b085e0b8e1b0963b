"""Specialization attributes for a compile: what the kernel's generator promised about its
arguments (Inductor's `divisible_by_16`, carried in the bundle as `attrs`).

Triton takes them as `{(index,): [["tt.divisibility", 16]]}` and compiles as if they held. The
promise was about the generator's real arguments; the check launches synthesized ones, so a
promise those break (an integer said divisible by 16 that gets 1) is left out: compiled in, it
would make the kernel vectorize over misaligned addresses for reasons not its own.
"""


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
