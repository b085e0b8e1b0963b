"""shared_state.py: what a mined module installs into Triton's process-wide state is gone after
its task, and what Triton itself caches meanwhile is left alone. A stand-in package shaped as
triton.knobs is (knob groups with hook attributes and HookChains) plays Triton."""
import os
import sys
import textwrap
import types
import unittest

import util  # noqa: F401  (puts kernels/harness on the path)
import shared_state

PKG = "fk_test_fake_triton"


def _package():
    knobs_src = textwrap.dedent("""
        class HookChain:
            def __init__(self):
                self.calls = []
            def add(self, f):
                self.calls.append(f)

        class base_knobs:
            pass

        class runtime_knobs(base_knobs):
            add_stages_inspection_hook = None
            launch_enter_hook = HookChain()

        class compilation_knobs(base_knobs):
            allow_non_constexpr_globals = False

        runtime = runtime_knobs()
        compilation = compilation_knobs()
    """)
    language_src = textwrap.dedent("""
        class tensor:
            def __add__(self, other):
                return self
        def load(p):
            return p
    """)
    pkg = types.ModuleType(PKG)
    pkg.__path__ = []
    for sub, src in (("knobs", knobs_src), ("language", language_src)):
        m = types.ModuleType(PKG + "." + sub)
        exec(compile(src, "<%s>" % sub, "exec"), m.__dict__)
        sys.modules[m.__name__] = m
        setattr(pkg, sub, m)
    sys.modules[PKG] = pkg
    return pkg


def _mined_module(name, source, pkg):
    """A module as the worker imports a standalone: under a `mine_k<id>` name."""
    m = types.ModuleType(name)
    m.__dict__["triton"] = pkg
    exec(compile(textwrap.dedent(source), "<%s>" % name, "exec"), m.__dict__)
    return m


class RestoresWhatMinedCodeInstalled(unittest.TestCase):
    def setUp(self):
        self.pkg = _package()
        self.addCleanup(lambda: [sys.modules.pop(n) for n in list(sys.modules) if n.startswith(PKG)])
        self.state = shared_state.SharedState(self.pkg)

    def test_nothing_changed_nothing_restored(self):
        self.assertEqual(self.state.restore(), [])

    def test_a_stage_hook_set_at_import_is_removed(self):
        _mined_module("mine_k2117", """
            def hook(stages):
                import some_package_this_machine_lacks
            triton.knobs.runtime.add_stages_inspection_hook = hook
            triton.knobs.compilation.allow_non_constexpr_globals = True
        """, self.pkg)
        self.assertEqual(self.state.restore(), ["knobs.compilation", "knobs.runtime"])
        self.assertIsNone(self.pkg.knobs.runtime.add_stages_inspection_hook)
        self.assertFalse(self.pkg.knobs.compilation.allow_non_constexpr_globals)

    def test_hook_chain_entries_are_removed(self):
        _mined_module("mine_k5", """
            def enter(metadata):
                pass
            triton.knobs.runtime.launch_enter_hook.add(enter)
        """, self.pkg)
        self.assertEqual(self.state.restore(), ["knobs.runtime.launch_enter_hook"])
        self.assertEqual(self.pkg.knobs.runtime.launch_enter_hook.calls, [])

    def test_monkeypatched_functions_and_methods_are_put_back(self):
        original = self.pkg.language.load
        _mined_module("mine_k7", """
            def load(p):
                return None
            def tensor_load(self, mask=None):
                return self
            triton.language.load = load
            triton.language.tensor.load = tensor_load
        """, self.pkg)
        restored = self.state.restore()
        self.assertEqual(restored, [PKG + ".language.load", PKG + ".language.tensor.load"])
        self.assertIs(self.pkg.language.load, original)
        self.assertFalse(hasattr(self.pkg.language.tensor, "load"))

    def test_environment_set_by_a_module_is_undone(self):
        key = "FK_SHARED_STATE_TEST_VAR"
        self.assertNotIn(key, os.environ)
        os.environ[key] = "1"
        self.assertEqual(self.state.restore(), ["os.environ"])
        self.assertNotIn(key, os.environ)

    def test_values_the_library_itself_caches_are_left(self):
        # Triton binds lazily made objects of its own (a driver, a cache); they are not mined.
        self.pkg.language._cache = {"k": 1}
        self.assertEqual(self.state.restore(), [])
        self.assertEqual(self.pkg.language._cache, {"k": 1})

    def test_a_mined_value_with_a_raising_eq_is_compared_by_identity(self):
        _mined_module("mine_k9", """
            class Hostile:
                def __eq__(self, other):
                    raise RuntimeError("compared")
                __hash__ = object.__hash__
            triton.knobs.runtime.add_stages_inspection_hook = Hostile()
        """, self.pkg)
        self.assertEqual(self.state.restore(), ["knobs.runtime"])


if __name__ == "__main__":
    unittest.main()
