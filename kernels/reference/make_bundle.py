#!/usr/bin/env python3
"""Write the reference kernels as a check bundle: python3 make_bundle.py OUT_DIR.

Standard library only: each module's BUNDLE_SPEC is read with ast.literal_eval, so the bundle
can be made (and validated by the tests) where torch and Triton are absent."""
import ast
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Fixed order and ids: results of different runs line up row by row.
MODULES = ("vector_copy", "rgb_to_grey", "matmul_naive", "matmul_grouped",
           "matmul_autotuned", "softmax", "layer_norm")


def bundle_spec(path):
    """BUNDLE_SPEC may refer to other module-level literals (MATMUL_SIG); resolve them."""
    tree = ast.parse(open(path).read(), path)
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            try:
                names[node.targets[0].id] = ast.literal_eval(_inline(node.value, names))
            except ValueError:
                continue
    return names["BUNDLE_SPEC"]


def _inline(node, names):
    class Sub(ast.NodeTransformer):
        def visit_Name(self, n):
            if n.id in names:
                return ast.parse(repr(names[n.id]), mode="eval").body
            return n
    return Sub().visit(node)


# Distinct compiles of the same kernels, for throughput runs on plain Triton modules.
VARIANTS = [(w, s) for s in (2, 3, 4, 1) for w in (4, 2, 8)]


def main(out, variants=1):
    os.makedirs(out, exist_ok=True)
    kernels, kid = [], 0
    for name in MODULES:
        src = os.path.join(HERE, name + ".py")
        module = name + ".py"
        shutil.copyfile(src, os.path.join(out, module))
        for spec in bundle_spec(src):
            for v in range(variants):
                kid += 1
                k = dict(spec, id=kid, module=module, language="triton", guessed=[],
                         source=name)
                if variants > 1:
                    w, s = VARIANTS[v % len(VARIANTS)]
                    k["options"] = {"num_warps": w, "num_stages": s}
                kernels.append(k)
    with open(os.path.join(out, "bundle.json"), "w") as f:
        json.dump({"version": 1, "kernels": kernels}, f, indent=1)
    return len(kernels)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 4) or (len(sys.argv) == 4 and sys.argv[2] != "--variants"):
        sys.exit("usage: make_bundle.py OUT_DIR [--variants N]")
    n = main(sys.argv[1], int(sys.argv[3]) if len(sys.argv) == 4 else 1)
    print("%d kernels -> %s" % (n, sys.argv[1]))
