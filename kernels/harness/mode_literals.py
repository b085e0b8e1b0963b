"""The modes a kernel has for a constexpr: the literals its module compares that name with.

When nothing in the repository says which mode a kernel is launched in, `mine` guesses the first
literal the kernel compares the constexpr with (`if CACHE_METHOD == "cont":`). That branch may be
one the repository never compiles (an `assert ROPE_METHOD in [...]` Triton cannot evaluate, a call
left behind by a refactor). A compile failure under a guessed mode is then the guess's fault, and
the other modes are the kernel's own alternatives: the worker tries them (worker.py,
`compile_shrinking`) and the row says which one ran. Pure text work: no Triton needed.
"""
import ast

MAX_PER_NAME = 3
MAX_TRIES = 4  # compiles after the guess's, over all names: each can take seconds


def _literals(node):
    """Constants of a comparator: `"cont"`, or each element of `["none", "self_extend"]`."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, bool)):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = []
        for e in node.elts:
            if not (isinstance(e, ast.Constant) and isinstance(e.value, (str, int, bool))):
                return []
            out.append(e.value)
        return out
    return []


def modes(source, current):
    """{name: [other literals, in source order]} for the names of `current` ({name: the guessed
    value}) that the module compares with literals of the guessed value's type, None first for a
    string mode it also tests with `is None`; the guessed value itself and names without
    alternatives are left out. {} when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    seen = {name: [] for name in current}
    none_tested = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare) or len(node.ops) != 1:
            continue
        left, right = node.left, node.comparators[0]
        # `if Y_TMA_MODE is not None:`: the kernel has a path without the mode at all.
        if isinstance(node.ops[0], (ast.Is, ast.IsNot)):
            for name_node, other in ((left, right), (right, left)):
                if (isinstance(name_node, ast.Name) and name_node.id in seen and isinstance(other, ast.Constant)
                        and other.value is None):
                    none_tested.add(name_node.id)
            continue
        if not isinstance(node.ops[0], (ast.Eq, ast.NotEq, ast.In, ast.NotIn)):
            continue
        for name_node, other in ((left, right), (right, left)):
            if isinstance(name_node, ast.Name) and name_node.id in seen:
                for value in _literals(other):
                    seen[name_node.id].append((node.lineno, node.col_offset, value))
    out = {}
    for name, found in seen.items():
        guess = current[name]
        values = []
        for _, _, value in sorted(found, key=lambda f: (f[0], f[1])):
            # A mode of the guessed value's kind only: a string mode for a string guess (True is
            # an int to Python, and no mode of an integer selector).
            if type(value) is not type(guess) or value == guess or value in values:
                continue
            values.append(value)
        # A string mode the kernel also tests against None: None first, its simplest path.
        if name in none_tested and isinstance(guess, str):
            values.insert(0, None)
        if values:
            out[name] = values[:MAX_PER_NAME]
    return out
