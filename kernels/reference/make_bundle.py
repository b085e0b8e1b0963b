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


def main(out):
    os.makedirs(out, exist_ok=True)
    kernels, kid = [], 0
    for name in MODULES:
        src = os.path.join(HERE, name + ".py")
        for spec in bundle_spec(src):
            kid += 1
            module = "k%d.py" % kid
            shutil.copyfile(src, os.path.join(out, module))
            kernels.append(dict(spec, id=kid, module=module, language="triton",
                                guessed=[], source=name))
    with open(os.path.join(out, "bundle.json"), "w") as f:
        json.dump({"version": 1, "kernels": kernels}, f, indent=1)
    return len(kernels)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_bundle.py OUT_DIR")
    print("%d kernels -> %s" % (main(sys.argv[1]), sys.argv[1]))
