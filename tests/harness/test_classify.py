import unittest

from util import HARNESS  # noqa: F401 -- puts the harness on sys.path
from classify import CLASSES, classify, missing_from_triton, trim, unresolved_externs, unsupported_on_target


class Classify(unittest.TestCase):
    def test_every_class_reachable(self):
        cases = {
            "syntax": dict(stage="import", exc_types=("SyntaxError",), message="invalid syntax"),
            "missing_name": dict(stage="compile", exc_types=("CompilationError", "NameError"),
                                 message="at 3:4: name 'foo' is not defined"),
            "type_error": dict(stage="compile", exc_types=("CompilationError", "TypeError"),
                               message="at 5:8: incompatible types fp32 and i1"),
            "unsupported_op": dict(stage="compile", exc_types=("CompilationError",),
                                   message="at 2:4: unsupported AST node type: With"),
            "resource_limit": dict(stage="load", exc_types=("OutOfResources",),
                                   message="out of resource: shared memory, Required: 262144"),
            "illegal_address": dict(stage="run", exc_types=("RuntimeError",),
                                    message="CUDA error: an illegal memory access was encountered"),
            "timeout": dict(stage="compile", timed_out=True),
            "crash": dict(stage="compile", signal_no=11),
            "other": dict(stage="run", exc_types=("RuntimeError",), message="something odd"),
        }
        self.assertEqual(set(cases), set(CLASSES))
        for want, kw in cases.items():
            with self.subTest(want=want):
                self.assertEqual(classify(**kw), want)

    def test_wrapped_cause_decides_over_wrapper(self):
        # Triton wraps everything in CompilationError; the cause's type is the verdict.
        self.assertEqual(classify("compile", ("CompilationError", "AttributeError"),
                                  "module 'triton.language' has no attribute 'foo'"),
                         "missing_name")
        self.assertEqual(classify("import", ("ModuleNotFoundError",), "No module named 'apex'"),
                         "missing_name")
        self.assertEqual(classify("compile", ("CompilationError", "NotImplementedError"), ""),
                         "unsupported_op")

    def test_cuda_messages_beat_exception_types(self):
        self.assertEqual(classify("run", ("ValueError",),
                                  "CUDA_ERROR_MISALIGNED_ADDRESS: misaligned address"),
                         "illegal_address")
        self.assertEqual(classify("run", ("TypeError",), "CUDA out of memory. Tried to allocate"),
                         "resource_limit")

    def test_process_deaths(self):
        self.assertEqual(classify("import", (), "", exit_code=0), "crash")
        self.assertEqual(classify("compile", (), "", signal_no=6), "crash")
        self.assertEqual(classify("compile", (), "", mem_exceeded=True), "resource_limit")
        # A timeout wins over whatever else was seen: the process was killed by us.
        self.assertEqual(classify("run", ("RuntimeError",), "illegal memory access",
                                  timed_out=True), "timeout")

    def test_quoted_kernel_source_is_not_the_error(self):
        message = ("CompilationError: at 3:11:\ndef tanh(x):\n    # fused while the data is in shared memory\n"
                   "    return tl.libdevice.tanh(x)\n           ^\n"
                   "AttributeError(\"module 'triton.language' has no attribute 'libdevice'\")")
        self.assertEqual(classify("compile", ("CompilationError",), message), "missing_name")
        self.assertEqual(classify("compile", ("CompilationError", "AttributeError"), message), "missing_name")
        static_assert = ("CompileTimeAssertionFailure: at 20:4:\n    gl.static_assert(a_desc.dtype == gl.float8e4nv)"
                         "\n    ^\nA must use FP8 E4M3")
        self.assertEqual(classify("compile", ("CompileTimeAssertionFailure",), static_assert), "type_error")
        self.assertEqual(classify("compile", ("CompilationError",), message.replace(
            "AttributeError", "OutOfResources: shared memory, Required: 262144")), "resource_limit")

    def test_instructions_the_target_lacks_are_named(self):
        message = ("PTXASError: ptxas /tmp/x.ptx, line 4857; error   : Instruction 'cvt with .e2m1x2' not "
                   "supported on .target 'sm_90a'\nptxas /tmp/x.ptx, line 4858; error   : Instruction "
                   "'cvt with .e2m1x2' not supported on .target 'sm_90a'\nptxas /tmp/x.ptx, line 5852; "
                   "error   : Instruction 'cvt with .ue8m0x2' not supported on .target 'sm_90a'")
        self.assertEqual(unsupported_on_target(message),
                         {"target": "sm_90a", "instructions": ["cvt with .e2m1x2", "cvt with .ue8m0x2"]})
        self.assertIsNone(unsupported_on_target("ptxas fatal: Unresolved extern function"))

    def test_names_the_installed_triton_lacks_are_named(self):
        self.assertEqual(missing_from_triton("AttributeError: module 'triton.language' has no attribute 'async_task'"),
                         "triton.language.async_task")
        self.assertEqual(missing_from_triton("AttributeError: 'triton._C.libtriton.ir.builder' object has no "
                                             "attribute 'create_distributed_wait'"),
                         "ir.builder.create_distributed_wait")
        self.assertEqual(missing_from_triton("ModuleNotFoundError: No module named 'triton.language.extra.tlx'"),
                         "triton.language.extra.tlx")
        # Other libraries, and names only the quoted kernel source mentions, are not Triton's.
        self.assertIsNone(missing_from_triton("ModuleNotFoundError: No module named 'fla'"))
        self.assertIsNone(missing_from_triton("CompilationError: at 3:4:\n    # module 'triton.language' has no "
                                              "attribute 'x'\n    ^\nNameError: y is not defined"))

    def test_message_fallbacks_without_types(self):
        self.assertEqual(classify("compile", ("CompilationError",), "x is not defined"),
                         "missing_name")
        self.assertEqual(classify("compile", ("CompilationError",),
                                  "Cannot call @triton.jit'd outside of the scope of a kernel "
                                  "... not supported"), "unsupported_op")
        self.assertEqual(classify("compile", ("CompilationError",), "", ), "other")

    def test_trim_keeps_head_and_tail(self):
        msg = "HEAD" + "x" * 5000 + "TAIL"
        t = trim(msg, 200)
        self.assertLessEqual(len(t), 220)
        self.assertTrue(t.startswith("HEAD") and t.endswith("TAIL"))
        self.assertEqual(trim("short"), "short")
        self.assertEqual(trim(None), "")


if __name__ == "__main__":
    unittest.main()


class RaisedWhere(unittest.TestCase):
    def test_frames_are_the_cause_s_not_the_wrapper_s(self):
        # A CompilationError's own frames are the compiler's entry for every kernel; the frames
        # that tell a failure apart are where its cause was raised.
        from worker import _tail_tb

        def raising_builtin():
            raise ValueError("no _semantic")

        def compile_kernel():
            try:
                raising_builtin()
            except ValueError as e:
                raise RuntimeError("at 3:4: compilation failed") from e

        try:
            compile_kernel()
        except RuntimeError as e:
            tail = _tail_tb(e)
        self.assertIn("raising_builtin", tail)
        self.assertIn('raise ValueError("no _semantic")', tail)


class UnresolvedExterns(unittest.TestCase):
    def test_device_library_calls_name_the_library(self):
        message = ("PTXASError: PTXAS error: Internal Triton PTX codegen error\n`ptxas` stderr:\n"
                   "ptxas fatal   : Unresolved extern function 'nvshmem_int_p'\n"
                   "ptxas fatal   : Unresolved extern function 'nvshmem_int_p'\n"
                   "ptxas fatal   : Unresolved extern function 'nvshmemx_barrier_all_block'")
        self.assertEqual(unresolved_externs(message),
                         {"functions": ["nvshmem_int_p", "nvshmemx_barrier_all_block"], "library": "NVSHMEM"})

    def test_other_failures_say_nothing(self):
        self.assertIsNone(unresolved_externs("ptxas fatal   : Ptx assembly aborted due to errors"))
        self.assertEqual(unresolved_externs("Unresolved extern function 'my_helper'"), {"functions": ["my_helper"]})
