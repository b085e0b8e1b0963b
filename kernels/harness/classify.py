"""Error classification for `mine check` results.

A pure function so the C++ ingest side and the tests can rely on one vocabulary; it sees only
what a worker (or the pool, for deaths and timeouts) could observe: the stage, the exception
type names along the cause chain, the message, and how the process ended.
"""
import re
import signal

CLASSES = ("syntax", "missing_name", "type_error", "unsupported_op", "resource_limit",
           "illegal_address", "timeout", "crash", "other")

# Order matters: the first class whose pattern matches wins, and resource/illegal-address
# markers are checked before generic type words because CUDA messages mention "type" too.
_MESSAGE_RULES = (
    ("resource_limit", r"out of resources|outofresources|shared memory|too many resources|"
                       r"out of memory|cuda_error_out_of_memory|memoryerror|cannot allocate memory|"
                       r"host memory limit|too many registers|exceeds the maximum|num_warps.*too large|"
                       r"launch_out_of_resources|cuda_error_launch_out_of_resources"),
    ("illegal_address", r"illegal memory access|illegal address|misaligned address|"
                        r"illegal instruction|cuda_error_illegal|unspecified launch failure|"
                        r"device-side assert|an illegal|invalid program counter"),
    ("syntax", r"invalid syntax|syntaxerror|indentationerror|unexpected indent|"
               r"unterminated string|was never closed|unmatched"),
    ("missing_name", r"is not defined|no module named|cannot import name|has no attribute|"
                     r"entry .* not found|unresolved name|undefined name"),
    ("unsupported_op", r"not supported|unsupported|not implemented|notimplemented|"
                       r"is not a triton|cannot be called from a jit|did you forget to add "
                       r"@triton.jit|not a valid triton|unsupported ast"),
    ("type_error", r"incompatible|type mismatch|expected .* got|must be|unexpected type|"
                   r"cannot cast|invalid type|dtype|shape|typeerror|valueerror|"
                   r"positional argument|keyword argument|constexpr"),
)

_TYPE_RULES = {
    "SyntaxError": "syntax", "IndentationError": "syntax", "TabError": "syntax",
    "NameError": "missing_name", "ImportError": "missing_name",
    "ModuleNotFoundError": "missing_name", "AttributeError": "missing_name",
    "UnboundLocalError": "missing_name", "MissingEntry": "missing_name",
    "NotImplementedError": "unsupported_op", "UnsupportedLanguageConstruct": "unsupported_op",
    "OutOfResources": "resource_limit", "MemoryError": "resource_limit",
    "OutOfMemoryError": "resource_limit",
    "TypeError": "type_error", "ValueError": "type_error", "AssertionError": "type_error",
    "IndexError": "type_error", "KeyError": "type_error",
    # tl.static_assert failing: the kernel's own contract on its arguments' types and sizes.
    "CompileTimeAssertionFailure": "type_error",
}

# Exception types that only wrap a more specific cause (Triton's CompilationError carries the
# real error in __cause__ and its message); skip them when looking for a type verdict.
_WRAPPERS = {"CompilationError", "RuntimeError", "Exception", "TritonError"}


# Triton's CompilationError quotes the kernel's source between "at L:C:" and a caret line; what
# that source says (a comment about shared memory) is not the error.
_SOURCE_EXCERPT = re.compile(r"\bat \d+:\d+:\n.*?^[ \t]*\^[ \t]*$", re.M | re.S)


def classify(stage, exc_types=(), message="", signal_no=None, timed_out=False,
             exit_code=None, mem_exceeded=False):
    """Return one of CLASSES.

    stage: the stage that failed (import, compile, load, run).
    exc_types: exception class names, outermost first, then __cause__/__context__.
    signal_no / exit_code: how the worker ended when it died without a report.
    """
    if timed_out:
        return "timeout"
    if mem_exceeded:
        return "resource_limit"
    msg = _SOURCE_EXCERPT.sub("", message or "").lower()
    if signal_no is not None or (exit_code is not None and not exc_types):
        # A dead worker with an out-of-memory footprint (SIGKILL by the kernel OOM killer)
        # is still reported as a crash: we cannot tell it apart from other kills reliably.
        return "crash"
    # A CUDA error surfaces as RuntimeError at load/run; the message decides before types.
    for cls, pattern in _MESSAGE_RULES[:2]:
        if re.search(pattern, msg):
            return cls
    for name in exc_types:
        if name in _WRAPPERS:
            continue
        if name in _TYPE_RULES:
            return _TYPE_RULES[name]
    for cls, pattern in _MESSAGE_RULES[2:]:
        if re.search(pattern, msg):
            return cls
    return "other"


_NOT_ON_TARGET = re.compile(r"Instruction '([^']+)' not supported on \.target '(sm_\w+)'")


def unsupported_on_target(message):
    """{"target": "sm_90a", "instructions": [...]} when ptxas refused instructions the target lacks
    (`cvt with .e2m1x2` on sm_90a: a kernel written for a newer GPU), else None. The failure is
    the target's, not the kernel's guesses: rows say so, for a dataset to tell the two apart."""
    found = _NOT_ON_TARGET.findall(message or "")
    if not found:
        return None
    instructions = []
    for instruction, _ in found:
        if instruction not in instructions:
            instructions.append(instruction)
    return {"target": found[0][1], "instructions": instructions[:8]}


_UNRESOLVED_EXTERN = re.compile(r"Unresolved extern function '(\w+)'")
# Device libraries a kernel's extern calls name by prefix: none of them ships with Triton.
_EXTERN_LIBRARIES = (("nvshmem", "NVSHMEM"), ("nvshmemx", "NVSHMEM"), ("rocshmem", "rocSHMEM"),
                     ("__ocml", "ROCm device library (ocml)"), ("__ockl", "ROCm device library (ockl)"))


def unresolved_externs(message):
    """{"functions": [...], "library": "NVSHMEM"} when ptxas could not link device functions the
    kernel calls (`nvshmem_int_p` without the NVSHMEM device library), else None: the machine
    lacks a library the kernel links against, which says nothing of the kernel or the guesses."""
    functions = []
    for name in _UNRESOLVED_EXTERN.findall(message or ""):
        if name not in functions:
            functions.append(name)
    if not functions:
        return None
    out = {"functions": functions[:8]}
    for prefix, library in _EXTERN_LIBRARIES:
        if functions[0].startswith(prefix + "_"):
            out["library"] = library
    return out


# The installed Triton lacks a name the kernel uses: `tl.async_task` (a fork's warp
# specialization), the IR builder's `create_distributed_wait` (Triton-distributed's), a language
# module such as `triton.language.extra.tlx`.
_NOT_IN_TRITON = (
    re.compile(r"module '(triton(?:\.\w+)*)' has no attribute '(\w+)'"),
    re.compile(r"'triton\._C\.libtriton\.(ir\.builder)' object has no attribute '(\w+)'"),
    re.compile(r"No module named '(triton(?:\.\w+)*)\.(\w+)'"),
)


def missing_from_triton(message):
    """The dotted name the installed Triton lacks (`triton.language.async_task`,
    `ir.builder.create_distributed_wait`), when that is what a failure says, else None: a kernel
    written for a Triton fork, or one that moved an API no port knows, rather than a bad guess."""
    said = _SOURCE_EXCERPT.sub("", message or "")
    for pattern in _NOT_IN_TRITON:
        m = pattern.search(said)
        if m:
            return "%s.%s" % (m.group(1), m.group(2))
    return None


def signal_name(signal_no):
    try:
        return signal.Signals(signal_no).name
    except (ValueError, TypeError):
        return "signal %s" % signal_no


def trim(message, limit=2000):
    """Keep the head and tail of long messages: the head names the error, the tail has the
    innermost frame or the CUDA code."""
    message = message or ""
    if len(message) <= limit:
        return message
    half = limit // 2 - 10
    return message[:half] + "\n...[trimmed]...\n" + message[-half:]
