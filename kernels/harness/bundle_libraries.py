"""Packages `mine check --emit` copied from other repositories of the corpus into BUNDLE_DIR/lib
(BUNDLE.md, "libraries"): importable after everything installed, so a machine's own copy of a
package wins; and dropped again when one of them cannot import here (a package whose compiled
extension was never built), so the kernel meets the missing library as it would without them."""
import os
import sys


def use(bundle_dir):
    lib = os.path.join(bundle_dir, "lib") if bundle_dir else None
    if lib and os.path.isdir(lib) and lib not in sys.path:
        sys.path.append(lib)


def drop(bundle_dir, error):
    """After `error` (an ImportError): when it was raised inside a package of lib/, takes lib/
    off sys.path, forgets the modules imported from it and returns True (the import is worth
    trying again without them); else changes nothing and returns False."""
    lib = os.path.join(bundle_dir, "lib") if bundle_dir else None
    if not lib or lib not in sys.path:
        return False
    prefix = lib + os.sep
    tb = error.__traceback__
    inside = False
    while tb is not None and not inside:
        inside = tb.tb_frame.f_code.co_filename.startswith(prefix)
        tb = tb.tb_next
    if not inside:
        return False
    sys.path.remove(lib)
    for name, m in list(sys.modules.items()):
        if (getattr(m, "__file__", None) or "").startswith(prefix):
            sys.modules.pop(name, None)
    return True
