"""torch_workarounds.py with stand-ins for the pieces of torch it patches (CI has no torch)."""
import types
import unittest

import util  # noqa: F401  (puts kernels/harness on the path)
import torch_workarounds as tw


class constexpr:  # noqa: N801 -- triton.language.constexpr's name, which the code goes by
    def __init__(self, value):
        self.value = value


KERNEL_SOURCE = '''\
@triton.jit
def _kldiv_kernel_forward(
    y_ptr,  # « a comment that is not ASCII »
    n_cols,
    eps,
    BLOCK_SIZE: tl.constexpr,
    log_target: tl.constexpr = False,
    reduction: tl.constexpr = _REDUCTION_MODE_BATCHMEAN,
    scale=_SCALE * 2,
    helper=_helper,
):
    if reduction == _REDUCTION_MODE_NONE:
        tl.store(y_ptr, 0.0)
'''


def _helper():
    pass


def kernel_globals():
    return {"_REDUCTION_MODE_BATCHMEAN": constexpr(3), "_REDUCTION_MODE_NONE": constexpr(0),
            "_SCALE": 0.5, "_helper": _helper}


def jit_function(src, namespace, name="_kldiv_kernel_forward"):
    fn = eval(compile("lambda: None", "<kernel>", "eval"), namespace)  # a function with those globals
    return types.SimpleNamespace(src=src, fn=fn, __name__=name)


class DefaultGlobals(unittest.TestCase):
    def test_defaults_that_name_globals_get_their_values(self):
        out = tw.inline_default_globals(KERNEL_SOURCE, kernel_globals())
        self.assertIn("reduction: tl.constexpr = tl.constexpr(3),", out)
        self.assertIn("scale=0.5 * 2,", out)
        self.assertIn("helper=_helper,", out)  # a function: Inductor emits no such global either
        self.assertIn("if reduction == _REDUCTION_MODE_NONE:", out)  # the body is left alone
        self.assertIn("« a comment that is not ASCII »", out)
        compile(out, "<emitted>", "exec")

    def test_a_kernel_without_such_defaults_is_unchanged(self):
        src = "def k(x, BLOCK: tl.constexpr = 128):\n    return x\n"
        self.assertEqual(tw.inline_default_globals(src, kernel_globals()), src)

    def test_the_emitted_copy_defines_the_kernel_where_the_globals_are_missing(self):
        kernel = jit_function(KERNEL_SOURCE, kernel_globals())
        emitted = tw.with_inlined_defaults(kernel)
        self.assertIsNot(emitted, kernel)
        self.assertIs(emitted.fn, kernel.fn)
        self.assertEqual(emitted.__name__, "_kldiv_kernel_forward")
        tl = types.SimpleNamespace(constexpr=constexpr)
        triton = types.SimpleNamespace(jit=lambda f: f)
        namespace = {"tl": tl, "triton": triton, "_helper": _helper}
        with self.assertRaises(NameError):
            exec(KERNEL_SOURCE, dict(namespace))  # Inductor's module without the globals
        exec(emitted.src, namespace)
        self.assertEqual(namespace["_kldiv_kernel_forward"].__defaults__[1].value, 3)

    def test_the_function_inductor_emits_kernels_with_is_wrapped_once_in_every_module(self):
        seen = []

        def closure(kernel):
            seen.append(kernel.src)
            return kernel.src

        wrapper = types.SimpleNamespace(**{tw.CLOSURE_FUNCTION: closure})
        codecache = types.SimpleNamespace(**{tw.CLOSURE_FUNCTION: closure})
        other = types.SimpleNamespace(unrelated=closure)
        self.assertTrue(tw.inline_default_globals_in([wrapper, codecache, other]))
        patched = getattr(wrapper, tw.CLOSURE_FUNCTION)
        self.assertIs(getattr(codecache, tw.CLOSURE_FUNCTION), patched)
        self.assertIs(other.unrelated, closure)
        self.assertFalse(tw.inline_default_globals_in([wrapper, codecache]))  # already wrapped
        del tw.USED[:]
        out = patched(jit_function(KERNEL_SOURCE, kernel_globals()))
        self.assertIn("tl.constexpr(3)", out)
        self.assertEqual(tw.USED, ["kernel_default_globals"])
        plain = jit_function("def k(x):\n    return x\n", {})
        self.assertEqual(patched(plain), plain.src)


class AutogradFunctionConstant(unittest.TestCase):
    def classes(self):
        class VariableTracker:
            def as_python_constant(self):
                raise NotImplementedError("%s is not a constant" % type(self).__name__)

        class AutogradFunctionVariable(VariableTracker):
            def __init__(self, fn_cls):
                self.fn_cls = fn_cls

        return VariableTracker, AutogradFunctionVariable

    def test_the_class_of_an_autograd_function_is_its_constant(self):
        _, variable = self.classes()

        class LigerLoss:  # what super() inside its classmethod forward looks up
            pass

        with self.assertRaises(NotImplementedError):
            variable(LigerLoss).as_python_constant()
        self.assertTrue(tw.autograd_function_constant(variable))
        del tw.USED[:]
        self.assertIs(variable(LigerLoss).as_python_constant(), LigerLoss)
        self.assertEqual(tw.USED, ["autograd_function_constant"])
        self.assertFalse(tw.autograd_function_constant(variable))  # installed once

    def test_a_torch_that_answers_it_is_left_alone(self):
        base, _ = self.classes()

        class Fixed(base):
            def as_python_constant(self):
                return "torch's own"

        self.assertFalse(tw.autograd_function_constant(Fixed))
        self.assertEqual(Fixed().as_python_constant(), "torch's own")


if __name__ == "__main__":
    unittest.main()
