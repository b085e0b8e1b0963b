#!/usr/bin/env python3
"""Baseline for bench/scan.sh: what a competent Python programmer would write to do what
`mine scan` does on a git repository: list the HEAD tree, read blobs with one
`git cat-file --batch`, apply the same prefilter (the text mentions "triton"), parse with the
standard `ast` module, find functions whose decorator resolves to triton.jit through the
file's imports, and compute each kernel's same-file closure (module-level names reached
transitively). Prints one JSON line of counts so the bench can compare results too."""
import ast
import json
import subprocess
import sys
import threading


def list_python_blobs(repo):
    out = subprocess.run(["git", "--git-dir", repo, "ls-tree", "-r", "-z", "HEAD"], check=True,
                         capture_output=True).stdout
    blobs = []
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755") and path.endswith(b".py"):
            blobs.append((path.decode("utf-8", "replace"), sha.decode()))
    return blobs


def read_blobs(repo, shas):
    proc = subprocess.Popen(["git", "--git-dir", repo, "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    # Feed requests from a thread: git's answers fill the pipe long before all requests are written.
    def feed():
        proc.stdin.write(("\n".join(shas) + "\n").encode())
        proc.stdin.close()

    writer = threading.Thread(target=feed)
    writer.start()
    for _ in shas:
        header = proc.stdout.readline().split()
        size = int(header[2])
        data = proc.stdout.read(size)
        proc.stdout.read(1)
        yield data
    writer.join()
    proc.wait()


def import_targets(tree):
    targets = {}
    for node in tree.body:
        for stmt in ast.walk(node) if isinstance(node, (ast.If, ast.Try)) else [node]:
            if isinstance(stmt, ast.Import):
                for a in stmt.names:
                    targets[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
                for a in stmt.names:
                    targets[a.asname or a.name] = stmt.module + "." + a.name
    return targets


def dotted(expr, targets):
    if isinstance(expr, ast.Call):
        expr = expr.func
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or expr.id not in targets:
        return None
    return ".".join([targets[expr.id]] + parts[::-1])


def is_jit(name):
    return bool(name) and name.startswith("triton.") and (name == "triton.jit" or name.endswith(".jit"))


def module_bindings(tree):
    """name -> list of top-level statements binding it (defs under if/try included)."""
    binds = {}

    def add(name, stmt):
        binds.setdefault(name, []).append(stmt)

    def visit(body):
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                add(stmt.name, stmt)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for a in stmt.names:
                    add(a.asname or a.name.split(".")[0], stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            add(n.id, stmt)
            elif isinstance(stmt, ast.If):
                visit(stmt.body)
                visit(stmt.orelse)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body)
                for h in stmt.handlers:
                    visit(h.body)
                visit(stmt.orelse)
                visit(stmt.finalbody)

    visit(tree.body)
    return binds


def names_read(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def closure(kernel, binds):
    seen, needed, work = {kernel.name}, [], list(names_read(kernel))
    while work:
        name = work.pop()
        if name in seen:
            continue
        seen.add(name)
        for stmt in binds.get(name, []):
            if stmt is kernel:
                continue
            needed.append(stmt)
            if not isinstance(stmt, (ast.Import, ast.ImportFrom)):
                work.extend(names_read(stmt))
    return needed


def main():
    repo = sys.argv[1]
    blobs = list_python_blobs(repo)
    total_bytes = parsed_bytes = parsed_files = kernels = deps = 0
    for (path, _), data in zip(blobs, read_blobs(repo, [sha for _, sha in blobs])):
        total_bytes += len(data)
        if b"triton" not in data:
            continue
        try:
            tree = ast.parse(data, filename=path)
        except (SyntaxError, ValueError):
            continue
        parsed_files += 1
        parsed_bytes += len(data)
        targets = import_targets(tree)
        binds = module_bindings(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                    is_jit(dotted(d, targets)) for d in node.decorator_list):
                kernels += 1
                deps += len(closure(node, binds))
    print(json.dumps({"files": len(blobs), "bytes": total_bytes, "parsed_files": parsed_files,
                      "parsed_bytes": parsed_bytes, "kernels": kernels, "deps": deps}))


if __name__ == "__main__":
    main()
