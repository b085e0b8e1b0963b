"""Shared by the e2e tests: does a standalone module parse, and which globals does it read
without defining or importing them? Uses only the standard library (ast, symtable)."""
import ast
import builtins
import symtable

_BUILTINS = set(dir(builtins)) | {"__name__", "__file__", "__doc__", "__spec__", "__builtins__"}


def unbound_globals(source: str) -> set:
    """Names read at module level or as globals from any scope that the module never binds."""
    ast.parse(source)  # raises SyntaxError first, with a line number
    top = symtable.symtable(source, "<standalone>", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    missing = set()

    def walk(table):
        for sym in table.get_symbols():
            name = sym.get_name()
            reads_global = sym.is_referenced() and (table is top or sym.is_global())
            if reads_global and name not in bound and name not in _BUILTINS:
                missing.add(name)
        for child in table.get_children():
            walk(child)

    walk(top)
    return missing
