"""deferred_imports.py: which imports of a standalone are deferred, and that a deferred library
still fails the module as soon as the module uses it."""
import os
import sys
import tempfile
import textwrap
import unittest

import util  # noqa: F401  (puts kernels/harness on the path)
import deferred_imports as di
import inductor_stage

# Names no interpreter here has.
GONE = "mine_test_absent_lib"
GONE2 = "mine_test_absent_other"


class WhichImports(unittest.TestCase):
    def test_unguarded_module_level_imports_of_absent_libraries(self):
        source = textwrap.dedent("""
            import os
            import %(g)s
            from %(g2)s.sub.deep import thing as alias
            if os.name:
                import %(g)s.nn
            try:
                import mine_test_guarded_absent
            except ImportError:
                mine_test_guarded_absent = None
            def f():
                import mine_test_inner_absent
            from . import sibling
        """ % {"g": GONE, "g2": GONE2})
        self.assertEqual(di.missing_imports(source),
                         [GONE, GONE2, GONE2 + ".sub", GONE2 + ".sub.deep", GONE + ".nn"])

    def test_a_submodule_an_installed_package_no_longer_has(self):
        # `json` is here and `json.gone` is not (as `triton.ops` beside Triton 3.2 and later):
        # the missing part on is deferred, never the installed package itself.
        source = "from json.mine_test_gone.deep import thing\nimport json.decoder\nimport os.path\n"
        self.assertEqual(di.missing_imports(source), ["json.mine_test_gone", "json.mine_test_gone.deep"])
        added = di.install(di.missing_imports(source))
        self.addCleanup(di.remove, added)
        ns = {}
        exec(source, ns)
        import json
        self.assertFalse(hasattr(json, "mine_test_gone"))
        with self.assertRaises(ModuleNotFoundError) as raised:
            ns["thing"]()
        self.assertEqual(raised.exception.name, "json.mine_test_gone")

    def test_a_failing_finder_leaves_the_import_as_written(self):
        class Broken:
            @staticmethod
            def find_spec(name, path=None, target=None):
                raise ValueError("broken finder")
        sys.meta_path.insert(0, Broken)
        try:
            self.assertEqual(di.missing_imports("import %s\n" % GONE), [])
        finally:
            sys.meta_path.remove(Broken)

    def test_installed_libraries_and_bad_syntax_defer_nothing(self):
        self.assertEqual(di.missing_imports("import json\nfrom os import path\n"), [])
        self.assertEqual(di.missing_imports("def (:\n"), [])


class Placeholders(unittest.TestCase):
    def setUp(self):
        self.added = di.install([GONE, GONE + ".nn"])
        self.addCleanup(di.remove, self.added)

    def test_binding_and_annotating_work_and_any_use_raises_the_import_error(self):
        ns = {}
        exec(textwrap.dedent("""
            import typing
            import %(g)s
            from %(g)s.nn import Layer
            def f(x: typing.Optional[Layer] = None) -> Layer:
                return %(g)s.rearrange(x)
            instance_check = isinstance(3, Layer)
        """ % {"g": GONE}), ns)
        self.assertFalse(ns["instance_check"])  # nothing is an instance of a class not installed
        with self.assertRaises(ModuleNotFoundError) as caught:
            ns["f"](1)
        self.assertEqual(caught.exception.name, GONE)
        # Pickling the module is a use too: Triton pickles a kernel's globals into its cache key.
        for use in ("Layer()", "Layer.weight", "%s.__version__" % GONE, "import pickle; pickle.dumps(%s)" % GONE):
            with self.subTest(use=use), self.assertRaises(ModuleNotFoundError):
                exec(use, ns)

    def test_a_subclass_defines_and_building_one_raises(self):
        # A schema class beside the kernel (`class Item(BaseModel)`) must not stop the file from
        # importing; what needs the library is an instance or an attribute of the class.
        ns = {}
        exec(textwrap.dedent("""
            from %(g)s.nn import Layer
            class Sub(Layer):
                size: int = 3
                def forward(self, x):
                    return x
            class Deeper(Sub):
                pass
        """ % {"g": GONE}), ns)
        for use in ("Sub()", "Deeper(1)", "Sub.forward", "Deeper.size"):
            with self.subTest(use=use), self.assertRaises(ModuleNotFoundError) as caught:
                exec(use, ns)
            self.assertEqual(caught.exception.name, GONE)
        self.assertEqual(ns["Sub"].__name__, "Sub")

    def test_remove_leaves_no_placeholder_for_the_next_module(self):
        di.remove(self.added)
        self.assertNotIn(GONE, sys.modules)
        with self.assertRaises(ModuleNotFoundError):
            exec("import %s" % GONE, {})


class ImportedByTheStage(unittest.TestCase):
    def test_the_stage_records_what_it_deferred_and_cleans_up(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k1.py")
            with open(path, "w") as f:
                f.write("import %s\nVALUE = 3\n" % GONE)
            deferred = []
            module = inductor_stage._import(path, "mined_module_test_deferred", deferred)
            sys.modules.pop("mined_module_test_deferred", None)
        self.assertEqual(module.VALUE, 3)
        self.assertEqual(deferred, [GONE])
        self.assertNotIn(GONE, sys.modules)

    def test_a_guarded_import_its_fallback_leaves_unbound_is_bound_to_a_placeholder(self):
        # kernl's llama: `try: import nvtx / except ImportError: config.set_nvtx(False)`, then
        # `nvtx.annotate = NoOpContextManager` where nvtx is off: a NameError without nvtx.
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k1.py")
            with open(path, "w") as f:
                f.write(textwrap.dedent("""
                    try:
                        import %s
                    except ImportError:
                        HAVE = False
                    try:
                        from %s.sub import thing
                    except ImportError:
                        pass
                    try:
                        import os.path
                        from %s import other
                    except ImportError:
                        other = None
                    class NoOp:
                        pass
                    def switch_off():
                        %s.annotate = NoOp
                        return %s.annotate
                    """ % (GONE, GONE2, GONE2, GONE, GONE)))
            deferred = []
            module = inductor_stage._import(path, "mined_module_test_guarded", deferred)
            sys.modules.pop("mined_module_test_guarded", None)
        self.assertIs(module.switch_off(), module.NoOp)
        self.assertEqual(sorted(deferred), sorted([GONE, "thing"]))
        self.assertIsNone(module.other)  # what the fallback bound stays
        with self.assertRaises(ModuleNotFoundError):
            module.thing()
        with self.assertRaises(ModuleNotFoundError):
            getattr(module, GONE).make()
        self.assertNotIn(GONE, sys.modules)

    def test_a_use_at_import_time_fails_the_import(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k1.py")
            with open(path, "w") as f:
                f.write("import %s\nX = %s.make()\n" % (GONE, GONE))
            with self.assertRaises(ModuleNotFoundError):
                inductor_stage._import(path, "mined_module_test_deferred2", [])
        self.assertNotIn(GONE, sys.modules)
        self.assertNotIn("mined_module_test_deferred2", sys.modules)


class CarriedPackages(unittest.TestCase):
    def test_a_carried_package_that_cannot_import_here_is_dropped_then_deferred(self):
        # bundle/lib holds a package whose compiled extension was never built: found on the path,
        # it is not deferred, and its import fails; dropped, the kernel meets it as missing.
        import bundle_libraries
        name = "mine_test_unbuilt_ext"
        with tempfile.TemporaryDirectory() as bundle:
            os.makedirs(os.path.join(bundle, "lib", name))
            with open(os.path.join(bundle, "lib", name, "__init__.py"), "w") as f:
                f.write("from . import _C  # the extension a build would have made\n")
            path = os.path.join(bundle, "k1.py")
            with open(path, "w") as f:
                f.write("import %s\nVALUE = 4\n" % name)
            before = list(sys.path)
            try:
                bundle_libraries.use(bundle)
                failed = None
                try:  # (assertRaises would strip the traceback drop() reads)
                    inductor_stage._import(path, "mined_module_test_carried", [])
                except ImportError as e:
                    failed = e
                self.assertIsNotNone(failed)
                self.assertFalse(bundle_libraries.drop(bundle, ImportError("raised elsewhere")))
                self.assertTrue(bundle_libraries.drop(bundle, failed))
                deferred = []
                module = inductor_stage._import(path, "mined_module_test_carried", deferred)
                sys.modules.pop("mined_module_test_carried", None)
            finally:
                sys.path[:] = before
        self.assertEqual(module.VALUE, 4)
        self.assertEqual(deferred, [name])


if __name__ == "__main__":
    unittest.main()
