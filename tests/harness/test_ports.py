"""Ports for moved Triton APIs (triton_ports.py) and the worker's retry on the ported module.

The table's rewrites are checked on text with a stated installed Triton; the retry runs through
the harness with the Triton stand-in, whose tl.math has exp and sqrt only and whose
triton.language.extra.libdevice has tanh and pow (as Triton 3.x splits them)."""
import os
import tempfile
import unittest

from util import run_standin, write_bundle

import triton_ports

HDR = "import triton\nimport triton.language as tl\n"


def installed(version="3.6.0", math=("exp", "sqrt", "rsqrt"), libdevice=("tanh", "pow", "erfinv"),
              resolves=()):
    return triton_ports.Installed(version, set(math), set(libdevice), lambda d: d in set(resolves))


class PortText(unittest.TestCase):
    def test_dtype_called_as_constructor_becomes_a_cast(self):
        # Kernels for a Triton whose dtypes make scalars when called (`m = tl.float32(-inf)`);
        # Triton 3.6 answers "'dtype' object is not callable". A dtype passed as a value stays.
        src = HDR + ("@triton.jit\ndef k(x, D: tl.constexpr):\n    m = tl.float32(-float(\"inf\"))\n"
                     "    n = triton.language.int64(tl.load(x))\n    z = tl.zeros((4,), dtype=tl.float32)\n")
        out, rewrites = triton_ports.port(src, triton_ports.Installed("3.6.0", set(), set(), lambda d: False, False))
        self.assertIn('m = tl.cast(-float("inf"), tl.float32)\n', out)
        self.assertIn("n = triton.language.cast(tl.load(x), triton.language.int64)\n", out)
        self.assertIn("z = tl.zeros((4,), dtype=tl.float32)\n", out)
        self.assertEqual(rewrites, [{"move": "dtype.call", "old": "tl.<dtype>(x)", "new": "tl.cast(x, tl.<dtype>)",
                                     "count": 2}])
        # A Triton whose dtypes are callable keeps the source as written.
        same, none = triton_ports.port(src, triton_ports.Installed("3.6.0", set(), set(), lambda d: False, True))
        self.assertEqual((same, none), (src, []))
        self.assertTrue(triton_ports.moved_signature("TypeError: 'dtype' object is not callable"))

    def test_flip_without_dim_flips_the_last_dimension(self):
        # Triton before 3.6 read a missing dim as the last one; 3.6 compares None with an int.
        # A flip that names its dimension stays as written.
        src = HDR + ("@triton.jit\ndef k(x, y):\n    a = tl.flip(tl.load(x + tl.arange(0, 4)))\n"
                     "    b = tl.flip(a, dim=None)\n    c = tl.flip(b, 0)\n    tl.store(y, c)\n")
        flips_none = triton_ports.Installed("3.6.0", set(), set(), lambda d: False, True, False)
        out, rewrites = triton_ports.port(src, flips_none)
        self.assertIn("    a = tl.flip(tl.load(x + tl.arange(0, 4)), -1)\n", out)
        self.assertIn("    b = tl.flip(a, -1)\n", out)
        self.assertIn("    c = tl.flip(b, 0)\n", out)
        self.assertEqual(rewrites, [{"move": "flip.dim", "old": "tl.flip(x)", "new": "tl.flip(x, -1)", "count": 2}])
        compile(out, "ported.py", "exec")
        # A Triton whose flip still takes None keeps the source as written.
        keeps = triton_ports.Installed("3.6.0", set(), set(), lambda d: False, True, True)
        self.assertEqual(triton_ports.port(src, keeps), (src, []))
        self.assertTrue(triton_ports.moved_signature(
            "TypeError: '<=' not supported between instances of 'int' and 'NoneType'"))

    def test_get_int_dtype_is_chosen_in_constexpr_branches(self):
        # Triton 3.5+ refuses the plain core.get_int_dtype inside a jitted function (the copied
        # bitonic sort); the port picks the dtype in constexpr branches, as TransformerEngine did.
        src = ("import triton\nimport triton.language.core as core\n"
               "@triton.jit\ndef swap(x):\n"
               "    idtype = core.get_int_dtype(bitwidth=x.dtype.primitive_bitwidth, signed=True)\n"
               "    return x.to(idtype, bitcast=True)\n"
               "def host(b):\n    return core.get_int_dtype(b, False)\n")
        out, rewrites = triton_ports.port(src, installed("3.6.0"))
        self.assertIn("    _mine_bitwidth: core.constexpr = x.dtype.primitive_bitwidth\n"
                      "    if _mine_bitwidth == 8:\n        idtype = core.int8\n"
                      "    elif _mine_bitwidth == 16:\n        idtype = core.int16\n"
                      "    elif _mine_bitwidth == 32:\n        idtype = core.int32\n"
                      "    else:\n        idtype = core.int64\n"
                      "    return x.to(idtype, bitcast=True)\n", out)
        self.assertIn("    return core.get_int_dtype(b, False)\n", out)  # host code stays
        self.assertEqual(rewrites, [{"move": "get_int_dtype", "old": "NAME = core.get_int_dtype(...)",
                                     "new": "NAME chosen in constexpr branches", "count": 1}])
        compile(out, "ported.py", "exec")
        # Before Triton 3.5 the call was accepted: the source stays as written.
        self.assertEqual(triton_ports.port(src, installed("3.4.0")), (src, []))
        self.assertTrue(triton_ports.moved_signature(
            "RuntimeError: Unsupported function referenced: <function get_int_dtype at 0x7f>"))

    def test_tl_math_libdevice_function_moves_to_libdevice(self):
        src = HDR + "@triton.jit\ndef k(x):\n    y = tl.math.tanh(x) + tl.math.exp(x)\n"
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("libdevice.tanh(x) + tl.math.exp(x)", out)  # exp stayed in tl.math
        self.assertTrue(out.startswith(triton_ports.LIBDEVICE_IMPORT + "\n"))
        self.assertEqual(rewrites, [{"move": "tl.math.libdevice", "old": "tl.math.tanh",
                                     "new": "libdevice.tanh", "count": 1}])

    def test_tl_math_max_and_min_become_elementwise_maximum_and_minimum(self):
        src = HDR + "@triton.jit\ndef k(x, eps):\n    y = x / tl.math.max(x, eps) + triton.language.math.min(x, 1.0)\n"
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("y = x / tl.maximum(x, eps) + tl.minimum(x, 1.0)", out)
        self.assertEqual([(r["move"], r["old"]) for r in rewrites],
                         [("tl.math.minmax", "tl.math.max"), ("tl.math.minmax", "triton.language.math.min")])
        # Where tl.math still has them (Triton 2.1 to 2.3), nothing moves.
        self.assertEqual(triton_ports.port(src, installed(version="2.2.0"))[1], [])

    def test_name_libdevice_lacks_is_left_alone(self):
        src = HDR + "def k(x):\n    return tl.math.nosuchfn(x)\n"
        out, rewrites = triton_ports.port(src, installed())
        self.assertEqual((out, rewrites), (src, []))

    def test_dot_transposes_become_tl_trans(self):
        # Triton 2.1 dropped tl.dot's trans_a/trans_b; literal flags port, a variable flag does not.
        src = HDR + ("@triton.jit\ndef k(q, k, w, p, flag):\n    a = tl.dot(q, k, trans_b=True)\n"
                     "    b = tl.dot(tl.load(p, mask=(1, 2)), w, trans_a=True, trans_b=False)\n"
                     "    c = tl.dot(q, k, trans_b=flag)\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("a = tl.dot(q, tl.trans(k))\n", out)
        self.assertIn("b = tl.dot(tl.trans(tl.load(p, mask=(1, 2))), w)\n", out)
        self.assertIn("c = tl.dot(q, k, trans_b=flag)\n", out)
        self.assertEqual([(r["move"], r["count"]) for r in rewrites], [("dot.trans", 2)])
        self.assertEqual(triton_ports.port(src, installed("2.0.0"))[1], [])
        self.assertTrue(triton_ports.moved_signature("TypeError: dot() got an unexpected keyword argument 'trans_b'"))
        self.assertFalse(triton_ports.moved_signature("TypeError: dot() got an unexpected keyword argument 'acc'"))
        # A refused global (a class of jitted helpers) is retried with Triton's knob; a missing
        # name is not.
        self.assertTrue(triton_ports.refused_global(
            "NameError(\"Cannot access global variable Linear from within @jit'ed function. ...\")"))
        self.assertFalse(triton_ports.refused_global("NameError('row_indx is not defined')"))

    def test_older_triton_gets_no_port(self):
        # tl.math.tanh still existed before Triton 3.0: nothing to port there.
        src = HDR + "def k(x):\n    return tl.math.tanh(x)\n"
        self.assertEqual(triton_ports.port(src, installed("2.2.0"))[1], [])

    def test_triton_2_0_libdevice(self):
        src = HDR + "def k(x):\n    return triton.language.libdevice.pow(x, 2.0) + tl.libdevice.tanh(x)\n"
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("return libdevice.pow(x, 2.0) + libdevice.tanh(x)", out)
        self.assertEqual({r["move"] for r in rewrites}, {"tl.libdevice"})

    def test_libdevice_import_goes_after_future_imports(self):
        src = "from __future__ import annotations\n" + HDR + "def k(x):\n    return tl.math.tanh(x)\n"
        out, _ = triton_ports.port(src, installed())
        self.assertTrue(out.startswith("from __future__ import annotations\n" + triton_ports.LIBDEVICE_IMPORT))

    def test_cuda_libdevice_path_only_where_it_no_longer_resolves(self):
        src = "from triton.language.extra.cuda import libdevice\n" + HDR
        self.assertEqual(triton_ports.port(src, installed(resolves=("triton.language.extra.cuda.libdevice",)))[1], [])
        out, rewrites = triton_ports.port(src, installed())
        self.assertTrue(out.startswith(triton_ports.LIBDEVICE_IMPORT + "\n"))
        self.assertEqual(rewrites[0]["move"], "extra.cuda.libdevice")

    def test_experimental_make_tensor_descriptor(self):
        src = HDR + "def k(p):\n    d = tl._experimental_make_tensor_descriptor(p, [8], [1], [8])\n"
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("d = tl.make_tensor_descriptor(p, [8], [1], [8])", out)
        self.assertEqual(triton_ports.port(src, installed("3.2.0"))[1], [])

    def test_old_inductor_helpers_move_under_runtime(self):
        src = ("from torch._inductor import triton_helpers\n"
               "from torch._inductor.triton_helpers import libdevice\n")
        out, rewrites = triton_ports.port(src, installed(resolves=("torch._inductor.runtime.triton_helpers",)))
        self.assertEqual(out, "from torch._inductor.runtime import triton_helpers\n"
                              "from torch._inductor.runtime.triton_helpers import libdevice\n")
        self.assertEqual(len(rewrites), 2)

    def test_moves_without_port_are_named(self):
        src = "from triton.compiler.compiler import AttrsDescriptor\n" + HDR
        self.assertEqual(triton_ports.port(src, installed())[1], [])
        self.assertEqual(triton_ports.unported_moves(src, "3.6.0"), ["AttrsDescriptor"])

    def test_experimental_descriptor_calls_become_descriptor_methods(self):
        src = HDR + ("def k(a_desc, c_desc, BM: tl.constexpr):\n"
                     "    x = tl._experimental_descriptor_load(a_desc, [pid * BM, 0], [BM, 64], tl.float16)\n"
                     "    tl._experimental_descriptor_store(c_desc, x.to(tl.float32), [pid * BM, f(1, 2)])\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("    x = a_desc.load([pid * BM, 0])\n", out)
        self.assertIn("    c_desc.store([pid * BM, f(1, 2)], x.to(tl.float32))\n", out)
        self.assertEqual([(r["move"], r["count"]) for r in rewrites], [("experimental_descriptor_load", 2)])
        self.assertEqual(triton_ports.unported_moves(src, "3.6.0"), [])  # ported: not named as unported
        # Where the installed Triton still has the experimental ops, nothing moves.
        kept = installed(resolves=("triton.language._experimental_descriptor_load",
                                   "triton.tools.experimental_descriptor"))
        self.assertEqual(triton_ports.port(src, kept)[1], [])
        self.assertEqual(triton_ports.port(src, installed("3.2.0"))[1], [])

    def test_module_aliases_of_experimental_descriptor_calls_are_ported(self):
        # lorafusion binds the old ops to module names and calls those inside its kernels.
        src = HDR + ("tl_experimental_descriptor_load = tl._experimental_descriptor_load\n"
                     "tl_experimental_descriptor_store = tl._experimental_descriptor_store\n"
                     "def k(a_desc, c_desc, BM: tl.constexpr):\n"
                     "    x = tl_experimental_descriptor_load(a_desc, [0, 0], [BM, 64], tl.float16)\n"
                     "    tl_experimental_descriptor_store(c_desc, x, [0, 0])\n"
                     "    y = my.tl_experimental_descriptor_load(1)\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertNotIn("= tl._experimental_descriptor", out)
        self.assertIn("    x = a_desc.load([0, 0])\n", out)
        self.assertIn("    c_desc.store([0, 0], x)\n", out)
        self.assertIn("    y = my.tl_experimental_descriptor_load(1)\n", out)  # another object's: as written
        self.assertEqual([(r["move"], r["count"]) for r in rewrites], [("experimental_descriptor_load", 4)])

    def test_a_deprecated_plain_function_called_in_a_kernel_asks_for_a_port(self):
        self.assertTrue(triton_ports.moved_signature(
            "ValueError: Did you forget to add @triton.jit ? (`_semantic` argument must be provided "
            "outside of JIT functions.)"))
        self.assertFalse(triton_ports.moved_signature("ValueError: Did you forget to add @triton.jit ?"))

    def test_a_ported_descriptors_pointer_dtype_becomes_its_element_type(self):
        # FBGEMM's fp8 gemm: `acc.to(C_ptr.dtype.element_ty)` of the pointer the old API took.
        src = HDR + ("def k(a_desc, C_ptr, BM: tl.constexpr):\n"
                     "    x = tl._experimental_descriptor_load(a_desc, [0, 0], [BM, 64], tl.float16)\n"
                     "    tl._experimental_descriptor_store(C_ptr, x.to(C_ptr.dtype.element_ty), [0, 0])\n"
                     "    y = other.dtype.element_ty\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("    C_ptr.store([0, 0], x.to(C_ptr.dtype))\n", out)
        self.assertIn("    y = other.dtype.element_ty\n", out)  # not a descriptor: as written
        self.assertEqual([(r["move"], r["count"]) for r in rewrites], [("experimental_descriptor_load", 3)])

    def test_experimental_descriptor_tools_import_is_guarded(self):
        src = ("if ok:\n    import triton.tools.experimental_descriptor\n"
               "from triton.tools.experimental_descriptor import create_2d_tma_descriptor\nx = 1\n")
        out, rewrites = triton_ports.port(src, installed())
        # The dotted import bound `triton` too; its fallback still does.
        self.assertIn("if ok:\n    try:\n        import triton.tools.experimental_descriptor\n"
                      "    except ImportError:\n        import triton\n", out)
        self.assertIn("try:\n    from triton.tools.experimental_descriptor import create_2d_tma_descriptor\n"
                      "except ImportError:\n    pass\nx = 1\n", out)
        compile(out, "<ported>", "exec")  # still Python
        self.assertEqual(rewrites[0]["move"], "tools.experimental_descriptor")

    def test_float8e4_becomes_float8e4nv(self):
        src = HDR + "def k(x):\n    return x.to(tl.float8e4), tl.float8e4b15\n"
        out, rewrites = triton_ports.port(src, installed(resolves=("triton.language.float8e4nv",)))
        self.assertIn("x.to(tl.float8e4nv), tl.float8e4b15", out)  # the b15 format is another type
        self.assertEqual(rewrites[0]["count"], 1)

    def test_math_import_of_a_libdevice_function(self):
        # `from triton.language.math import tanh` stopped importing in Triton 3.0; exp stayed.
        src = "from triton.language.math import tanh, exp\n" + HDR
        out, rewrites = triton_ports.port(src, installed())
        self.assertTrue(out.startswith("from triton.language.math import exp\n"
                                       "from triton.language.extra.libdevice import tanh\n"), out)
        self.assertEqual([r["move"] for r in rewrites], ["tl.math.import"])
        self.assertEqual(triton_ports.port(src, installed("2.3.0"))[1], [])

    def test_literal_global_read_in_a_kernel_becomes_constexpr(self):
        # Triton 3.3 refuses plain globals in kernels; a literal bound once ports, the others do not.
        # A literal Python also reads at import (`ASM = make_asm(NUM_REG)`) keeps its number there.
        src = HDR + ("EPSILON = 1e-12  # guard\nSCALE = -2\nTWICE = 1\nTWICE = 2\nUNUSED = 3\nNAME = 'x'\n"
                     "FP8_MAX: tl.constexpr = 448.0\nNUM_REG = 1\nASM = '$%d' % NUM_REG\n"
                     "@triton.jit\ndef k(x, EPS_ARG):\n    y = x + EPSILON * SCALE + TWICE + EPS_ARG + FP8_MAX + NUM_REG\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("\nEPSILON = triton.language.constexpr(1e-12)  # guard\n", out)
        self.assertIn("\nSCALE = triton.language.constexpr(-2)\n", out)
        self.assertIn("\nFP8_MAX = triton.language.constexpr(448.0)\n", out)
        for kept in ("TWICE = 1\nTWICE = 2\n", "UNUSED = 3\n", "NAME = 'x'\n", "NUM_REG = 1\n"):
            self.assertIn(kept, out)
        self.assertTrue(out.startswith(triton_ports.CONSTEXPR_IMPORT + "\n"))
        self.assertEqual(sorted(r["old"] for r in rewrites),
                         ["EPSILON = <literal>", "FP8_MAX = <literal>", "SCALE = <literal>"])
        compile(out, "ported.py", "exec")
        self.assertEqual(triton_ports.port(src, installed("3.2.0"))[1], [])

    def test_one_element_tuple_assigned_to_a_name_in_a_kernel_binds_its_element(self):
        # Triton before tuple support zipped one name with a tuple's values: `a_ptr = (p + o,)`
        # bound the pointer. Host code's one-element tuples (grids) and longer tuples stay.
        src = HDR + ("@triton.jit\ndef k(x_ptr, o, n):\n    a_ptr = (x_ptr + o * n +\n             o,)\n"
                     "    pair = (x_ptr, o)\n    v = tl.load(a_ptr)\n"
                     "def launch(x):\n    grid = (x.numel(),)\n    k[grid](x, 1, 2)\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("    a_ptr = (x_ptr + o * n +\n             o)\n", out)
        self.assertIn("    pair = (x_ptr, o)\n", out)
        self.assertIn("    grid = (x.numel(),)\n", out)
        self.assertEqual(rewrites, [{"move": "tuple.single", "old": "NAME = (EXPR,)", "new": "NAME = (EXPR)",
                                     "count": 1}])
        compile(out, "ported.py", "exec")
        self.assertEqual(triton_ports.port(src, installed("3.1.0"))[1], [])
        # Reading an attribute of such a tuple (`off.to(tl.int64)`) fails with a ValueError that
        # asks for the port; other ValueErrors do not.
        self.assertTrue(triton_ports.moved_signature("ValueError: 'to' is not in list"))
        self.assertFalse(triton_ports.moved_signature("ValueError: Scalar 99999999999 is out of range"))
        # So does handing one as a load's mask; the port takes an unparenthesized one too.
        self.assertTrue(triton_ports.moved_signature(
            "TypeError: cannot convert ['int1[constexpr[32]]'] of type <class 'triton.language.core.tuple'> to tensor"))
        self.assertFalse(triton_ports.moved_signature("TypeError: cannot convert 3.5 of type <class 'float'> to tensor"))
        bare = HDR + "@triton.jit\ndef k(x_ptr, n):\n    offs = tl.arange(0, 16)\n    mask = offs < n,\n    v = tl.load(x_ptr + offs, mask=mask)\n"
        self.assertIn("    mask = (offs < n)\n", triton_ports.port(bare, installed())[0])

    def test_string_defaults_of_jitted_constexpr_parameters_become_constexprs(self):
        # A call that leaves DIRECTION out hands the callee the raw str on Triton 3.x; wrapped, it
        # is the constexpr a caller passing it would hand. Other defaults and host code stay.
        src = HDR + ("@triton.jit\ndef diag(N: tl.constexpr, DIRECTION: tl.constexpr = 'lower', *,\n"
                     "         MODE: triton.language.constexpr = \"row\", K: tl.constexpr = 4, s=\"x\"):\n"
                     "    return N\n"
                     "def host(mode: str = \"row\"):\n    return mode\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("DIRECTION: tl.constexpr = tl.constexpr('lower'), *,\n", out)
        self.assertIn("MODE: triton.language.constexpr = triton.language.constexpr(\"row\"), K: tl.constexpr = 4,"
                      " s=\"x\"):", out)
        self.assertIn("def host(mode: str = \"row\"):", out)
        self.assertEqual([(r["move"], r["count"]) for r in rewrites], [("constexpr.str_default", 2)])
        compile(out, "ported.py", "exec")

    def test_typing_annotations_of_a_jitted_function_are_dropped(self):
        # Triton 3.x refuses `typing.Tuple` as a referenced function; its annotations never
        # mattered to code generation. tl.constexpr annotations and host functions stay.
        src = HDR + ("from typing import Tuple, Optional\n"
                     "@triton.jit\ndef step(acc, x, n: Optional[int] = None, B: tl.constexpr = 4\n"
                     "         ) -> Tuple[tl.tensor,\n                    tl.tensor]:\n    return acc + x, x\n"
                     "def host(x) -> Tuple[int, int]:\n    return 1, 2\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("def step(acc, x, n = None, B: tl.constexpr = 4\n         ):\n    return acc + x, x\n", out)
        self.assertIn("def host(x) -> Tuple[int, int]:\n", out)
        self.assertEqual(rewrites, [{"move": "typing.annotation", "old": "a typing annotation of a jitted function",
                                     "new": "no annotation", "count": 2}])
        compile(out, "ported.py", "exec")
        self.assertTrue(triton_ports.moved_signature("RuntimeError: Unsupported function referenced: typing.Tuple"))

    def test_const_pointer_type_annotations_are_dropped_where_triton_lacks_them(self):
        # Triton 2.x to 3.0 had tl.const_pointer_type; 3.1 folded it into pointer_type and a module
        # that annotates a helper's parameter with it no longer loads. Other annotations, host
        # functions and a Triton that still has the class keep theirs.
        src = HDR + ("@triton.jit\ndef load_fn(ptrs, offs: tl.const_pointer_type,\n"
                     "            LIM: tl.constexpr, rows: triton.language.const_pointer_type = None):\n"
                     "    return tl.load(ptrs, mask=offs < LIM)\n"
                     "def host(o: tl.const_pointer_type):\n    return o\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("def load_fn(ptrs, offs,\n            LIM: tl.constexpr, rows = None):\n", out)
        self.assertIn("def host(o: tl.const_pointer_type):\n", out)
        self.assertEqual([(r["move"], r["count"]) for r in rewrites], [("const_pointer_type", 2)])
        compile(out, "ported.py", "exec")
        self.assertEqual(triton_ports.port(src, installed(resolves=("triton.language.const_pointer_type",)))[1], [])
        self.assertEqual(triton_ports.port(src, installed(version="3.0.0"))[1], [])

    def test_plain_functions_a_constexpr_function_calls_become_constexpr_functions(self):
        # OpenAI's triton_kernels: `is_hip()` (a constexpr_function, through an alias bound in a
        # version switch) calls the plain `current_target()`, which Triton 3.6's dependency hash
        # refuses. Functions nobody decorated calls, decorated ones and host code stay.
        src = HDR + ("if ok:\n    _cf = triton.constexpr_function\nelse:\n    _cf = tl.constexpr_function\n\n"
                     "def current_target():\n    return driver.active.get_current_target()\n\n"
                     "def unrelated():\n    return 1\n\n"
                     "@_cf\ndef is_hip():\n    return current_target().backend == 'hip'\n\n"
                     "@tl.constexpr_function\ndef arch():\n    return current_target().arch\n")
        out, rewrites = triton_ports.port(src, installed())
        self.assertIn("\n@_cf\ndef current_target():\n", out)
        self.assertIn("\n\ndef unrelated():\n", out)
        self.assertEqual(out.count("@_cf\n"), 2)
        self.assertEqual([(r["move"], r["count"]) for r in rewrites], [("constexpr_function.callee", 1)])
        compile(out, "ported.py", "exec")
        self.assertTrue(triton_ports.moved_signature(
            "RuntimeError: Unsupported function referenced: <function current_target at 0x7f76fdd8c7c0>"))

    def test_table_entries_name_their_source_and_versions(self):
        for move in triton_ports.table():
            self.assertTrue(move["source"], move["id"])
            # A move without removed_in is gated by what the installed Triton resolves.
            self.assertTrue(move["removed_in"] or "resolve" in move["note"], move["id"])


TANH = HDR + '''
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    y = tl.math.tanh(x_ptr)
'''

UNDEFINED = HDR + '''
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    y = not_a_triton_function(x_ptr)
'''

# Ported, the first failure goes away but the kernel's own bug remains (tl.math.pow -> libdevice.pow
# is fine; the missing helper is not a move).
TANH_AND_BUG = HDR + '''
@triton.jit
def k(x_ptr, BLOCK: tl.constexpr):
    y = tl.math.pow(x_ptr, 2.0)
    z = not_a_triton_function(y)
'''


# A standalone that cannot import (as a 2024 Inductor header on today's torch) whose kernel-only
# module needs the port: the kernel-only module is what gets ported.
HEADER_GONE = "from triton.compiler.compiler import AttrsDescriptor\n" + TANH


class RetryOnPortedModule(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.bundle = os.path.join(cls.tmp.name, "bundle")
        os.makedirs(cls.bundle)
        spec = {"signature": {"x_ptr": "*fp32"}, "constexprs": {"BLOCK": 64}}
        write_bundle(cls.bundle, [(1, "k", TANH, spec), (2, "k", UNDEFINED, spec), (3, "k", TANH_AND_BUG, spec),
                                  (4, "k", HEADER_GONE, dict(spec, kernel_only_module="k4_kernel.py"))])
        with open(os.path.join(cls.bundle, "k4_kernel.py"), "w") as f:
            f.write(TANH)
        # The stand-in says 0.0+standin; a real Triton 3.6 is what the ports target.
        os.environ["MINE_STANDIN_TRITON_VERSION"] = "3.6.0"
        cls.proc, cls.rows = run_standin(cls.bundle, os.path.join(cls.tmp.name, "out.jsonl"),
                                         "--stage", "compile", "--jobs", "1", "--timeout", "30")

    @classmethod
    def tearDownClass(cls):
        os.environ.pop("MINE_STANDIN_TRITON_VERSION", None)
        cls.tmp.cleanup()

    def test_moved_api_passes_on_the_ported_module(self):
        r = self.rows[1]
        self.assertEqual((r["status"], r["module_checked"]), ("ok", "ported"), r["message"])
        self.assertEqual((r["unported"]["status"], r["unported"]["error_class"]), ("fail", "missing_name"))
        self.assertEqual(r["port"]["of"], "standalone")
        self.assertEqual([w["old"] for w in r["port"]["rewrites"]], ["tl.math.tanh"])
        self.assertIn("y = libdevice.tanh(x_ptr)", r["port"]["source"])

    def test_original_module_is_not_changed(self):
        with open(os.path.join(self.bundle, "k1.py")) as f:
            self.assertEqual(f.read(), TANH)

    def test_missing_name_that_is_no_move_gets_no_port(self):
        r = self.rows[2]
        self.assertEqual((r["status"], r["error_class"]), ("fail", "missing_name"))
        self.assertNotIn("port", r)
        self.assertNotIn("module_checked", r)

    def test_the_kernel_only_module_is_ported_when_it_was_the_one_checked(self):
        r = self.rows[4]
        self.assertEqual((r["status"], r["module_checked"]), ("ok", "ported"), r["message"])
        self.assertEqual(r["port"]["of"], "kernel_only")
        self.assertEqual(r["unported"]["module_checked"], "kernel_only")
        self.assertNotIn("AttrsDescriptor", r["port"]["source"])

    def test_ported_module_can_still_fail_on_its_own(self):
        r = self.rows[3]
        self.assertEqual((r["status"], r["module_checked"], r["error_class"]), ("fail", "ported", "missing_name"))
        self.assertIn("not_a_triton_function", r["message"])
        self.assertEqual(r["unported"]["error_class"], "missing_name")
        # The ported check's own failure only: the first one is in `unported`, not its cause.
        self.assertIn("triton.language.math", r["unported"]["message"])
        self.assertNotIn("triton.language.math", r["message"])


class KeywordSplat(unittest.TestCase):
    SRC = ("import triton\nimport triton.language as tl\n\n\n@triton.heuristics({'TN': lambda *args, **meta: 2 * meta['BLOCK']})\n"
           "@triton.jit\ndef k(X, N, **meta):\n    TN = meta['TN']\n    offs = tl.arange(0, TN) % meta[\"BLOCK\"]\n"
           "    if meta['APPLY']:\n        tl.store(X + offs, tl.load(X + offs), mask=offs < N)\n\n\n"
           "def launch(x):\n    return meta['TN']\n")

    def test_keys_become_constexpr_parameters_in_order_of_use(self):
        out, keys = triton_ports.expand_keyword_splat(self.SRC, "k", "meta")
        self.assertEqual(keys, ["TN", "BLOCK", "APPLY"])
        self.assertIn("def k(X, N, TN: tl.constexpr, BLOCK: tl.constexpr, APPLY: tl.constexpr):", out)
        # `TN = meta['TN']` would rebind the constexpr as a plain local (Triton 3 rejects it in
        # tl.arange): it goes.
        self.assertIn("    pass\n    offs = tl.arange(0, TN) % BLOCK\n    if APPLY:", out)
        # Only the kernel changes: the launcher's own `meta` is another name.
        self.assertIn("def launch(x):\n    return meta['TN']\n", out)
        compile(out, "k.py", "exec")

    def test_a_kernel_without_the_splat_is_left_alone(self):
        src = "import triton\n\n@triton.jit\ndef k(X, BLOCK: triton.language.constexpr):\n    pass\n"
        self.assertEqual(triton_ports.expand_keyword_splat(src, "k", "meta"), (src, []))
        self.assertEqual(triton_ports.expand_keyword_splat(self.SRC, "other", "meta"), (self.SRC, []))


if __name__ == "__main__":
    unittest.main()
