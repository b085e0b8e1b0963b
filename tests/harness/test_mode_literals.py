"""Modes a kernel has for a guessed constexpr (mode_literals.py), and the worker's retry of a
guessed mode whose branch does not compile (worker.compile_shrinking), with its compile replaced."""
import types
import unittest

import util  # noqa: F401 -- puts the harness on sys.path
import mode_literals
import worker

SOURCE = '''
import triton
import triton.language as tl

@triton.jit
def _score(q, ROPE: tl.constexpr):
    if ROPE == "dynamic":
        q = q * 2
    return q

@triton.jit
def k(x, CACHE_METHOD: tl.constexpr, ROPE: tl.constexpr, N: tl.constexpr, FLAG: tl.constexpr):
    if CACHE_METHOD == "cont":
        assert ROPE in ["none", "self_extend"]
    elif CACHE_METHOD != "vllm":
        pass
    if N == 4:
        pass
    if FLAG:
        pass
'''


class Modes(unittest.TestCase):
    def test_other_literals_compared_with_each_guessed_name_in_source_order(self):
        found = mode_literals.modes(SOURCE, {"CACHE_METHOD": "cont", "ROPE": "self_extend", "N": 1, "FLAG": False})
        # Helpers compare the name too (`_score`'s ROPE); a list's elements count; the guess and
        # values of another kind (4 is no mode of a bool) are left out; FLAG has no literal.
        self.assertEqual(found, {"CACHE_METHOD": ["vllm"], "ROPE": ["dynamic", "none"], "N": [4]})

    def test_a_string_mode_the_kernel_also_tests_against_none_tries_none_first(self):
        source = '''
@triton.jit
def k(y, Y_TMA_MODE: tl.constexpr):
    if Y_TMA_MODE is not None:
        y = make_descriptor(y, Y_TMA_MODE == "ragged")
    elif Y_TMA_MODE == "dense":
        pass
'''
        self.assertEqual(mode_literals.modes(source, {"Y_TMA_MODE": "ragged"}), {"Y_TMA_MODE": [None, "dense"]})
        # An integer selector tested against None has no None mode: its guess is a size.
        self.assertEqual(mode_literals.modes(source.replace('"ragged"', "2").replace('"dense"', "4"),
                                             {"Y_TMA_MODE": 2}), {"Y_TMA_MODE": [4]})

    def test_names_not_guessed_and_sources_that_do_not_parse_have_none(self):
        self.assertEqual(mode_literals.modes(SOURCE, {}), {})
        self.assertEqual(mode_literals.modes("def k(:\n", {"MODE": "a"}), {})


class ModeRetry(unittest.TestCase):
    def run_check(self, compiles):
        w = worker.Worker.__new__(worker.Worker)
        seen = []

        def compile_load_run(fn, spec, p, task, stage, row, cfg):
            seen.append(dict(p["constexprs"]))
            row["stage_reached"] = "compile"
            if not compiles(p["constexprs"]):
                raise RuntimeError("AttributeError: 'str' object has no attribute 'type'")
            return {"status": "ok"}
        w.compile_load_run = compile_load_run
        constexprs = {"CACHE_METHOD": "cont", "ROPE": "self_extend"}
        p = {"constexprs": dict(constexprs), "guessed": list(constexprs), "args": [], "signature": {},
             "modes": mode_literals.modes(SOURCE, constexprs)}
        row = {}
        try:
            w.compile_shrinking(None, {}, p, {}, "run", row)
            ok = True
        except RuntimeError:
            ok = False
        return ok, row, seen

    def test_a_guessed_mode_that_does_not_compile_moves_to_the_kernels_next_one(self):
        ok, row, seen = self.run_check(lambda c: c["CACHE_METHOD"] == "vllm")
        self.assertTrue(ok)
        self.assertEqual(seen, [{"CACHE_METHOD": "cont", "ROPE": "self_extend"},
                                {"CACHE_METHOD": "vllm", "ROPE": "self_extend"}])
        self.assertEqual(row["mode"], {"CACHE_METHOD": "vllm"})
        self.assertEqual(row["modes_tried"][0]["mode"], {"CACHE_METHOD": "cont", "ROPE": "self_extend"})

    def test_each_try_moves_one_name_and_the_last_failure_is_raised(self):
        ok, row, seen = self.run_check(lambda c: False)
        self.assertFalse(ok)
        self.assertEqual(seen[1:], [{"CACHE_METHOD": "vllm", "ROPE": "self_extend"},
                                    {"CACHE_METHOD": "cont", "ROPE": "dynamic"},
                                    {"CACHE_METHOD": "cont", "ROPE": "none"}])
        self.assertEqual(len(row["modes_tried"]), 3)


class ModeOrder(unittest.TestCase):
    def test_string_modes_are_tried_before_integer_ones(self):
        p = {"constexprs": {"G": 128, "METHOD": "random"}, "modes": {"G": [1], "METHOD": ["last"]}}
        row = {}
        self.assertTrue(worker.Worker.next_mode(p, row, "first failure"))
        self.assertEqual(row["mode"], {"METHOD": "last"})
        self.assertTrue(worker.Worker.next_mode(p, row, "second failure"))
        self.assertEqual(row["mode"], {"G": 1})
        self.assertEqual(p["constexprs"], {"G": 1, "METHOD": "random"})
        self.assertFalse(worker.Worker.next_mode(p, row, "third failure"))


if __name__ == "__main__":
    unittest.main()
