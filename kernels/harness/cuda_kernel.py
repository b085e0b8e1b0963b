"""CUDA C kernels of a bundle (language "cuda"): nvcc compiles the unit to a cubin; on a GPU the
CUDA driver API, through ctypes, loads it (cuModuleLoadData), finds the kernel
(cuModuleGetFunction) and launches it once on synthesized arguments (cuLaunchKernel).
Standard library only. The driver is an object with CudaDriver's methods, so the launch code
runs unchanged against a stand-in on a machine without a GPU (tests/harness/test_cuda_kernel.py).
"""
import ctypes
import functools
import importlib.util
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import sysconfig
import time

# Same table as core/check/nvcc_check.cpp's classify_nvcc_error; first match wins.
NVCC_CLASSES = (
    ("resource_limit", r"too much (shared|local) data|too many resources|uses too much|out of memory|"
                       r"bad_alloc|cannot allocate memory"),
    ("unsupported_op", r"not supported|unsupported|requires? (a )?(newer|higher|\.target|sm_|compute)|"
                       r"is only (supported|available)|not available on|requires separate compilation"),
    ("missing_name", r"is undefined|cannot open (source|include) file|has no member|"
                     r"not a class or namespace|is not a template|is not a type name|"
                     r"undefined reference|unresolved extern|no such file|must have internal linkage"),
    ("type_error", r"no instance of|cannot be used to initialize|incompatible with|no suitable|"
                   r"cannot be assigned|too (few|many) arguments|expression must (have|be)|"
                   r"is not allowed|cannot convert|a value of type|invalid type conversion|"
                   r"declaration is incompatible|no operator .* matches"),
    ("syntax", r"expected (a|an)\b|unrecognized token|missing closing|unexpected|syntax error|"
               r"extra text after|unbalanced|invalid preprocessing|#error"),
)
_ERROR_LINE = re.compile(r"(^|\s|:)(error|fatal)\b", re.I)

DEFAULT_BLOCK = 256
MIN_ELEMENTS = 1 << 20
MAX_ELEMENTS = 1 << 26
# A size the launch does not give: small, so that the indexes a kernel forms from products of its
# sizes (`dout[(b * T + t) * C + c]`, four of them in attention layouts) stay inside buffers a GPU
# holds 16 workers' worth of.
INT_DEFAULT = 64
# With more sizes to guess (a deformable convolution's channels x kernel_h x kernel_w x height x
# width), each stand-in shrinks so that their product stays inside the largest buffer: a power of
# two, at least this, so that vectorized accesses (float4 over a channel count) stay aligned.
INT_DEFAULT_FLOOR = 8


def int_stand_in(sizes):
    """The stand-in of each of `sizes` integers a launch does not give: INT_DEFAULT while four or
    fewer multiply, else the largest power of two whose `sizes`-th power MAX_ELEMENTS holds
    (never below INT_DEFAULT_FLOOR)."""
    if sizes <= 4:
        return INT_DEFAULT
    bits = (MAX_ELEMENTS.bit_length() - 1) // sizes
    return max(INT_DEFAULT_FLOOR, min(INT_DEFAULT, 1 << bits))


class CudaError(RuntimeError):
    """A CUDA driver call failed; the message starts with the driver's error name."""


class MissingEntry(Exception):
    pass


class UnsupportedArgument(Exception):
    pass


def find_nvcc(env=None):
    """$NVCC when set (and nothing else then), else $CUDA_HOME/bin/nvcc, nvcc on $PATH,
    /usr/local/cuda/bin/nvcc; None when absent."""
    env = os.environ if env is None else env
    if env.get("NVCC"):
        given = env["NVCC"]
        return given if os.path.isfile(given) and os.access(given, os.X_OK) else None
    home = env.get("CUDA_HOME")
    candidates = [os.path.join(home, "bin", "nvcc")] if home else []
    on_path = shutil.which("nvcc", path=env.get("PATH"))
    candidates += [on_path] if on_path else []
    candidates.append("/usr/local/cuda/bin/nvcc")
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def classify_nvcc(output):
    line = next((l for l in output.splitlines() if _ERROR_LINE.search(l)), "")
    subject = line or output
    for cls, pattern in NVCC_CLASSES:
        if re.search(pattern, subject, re.I):
            return cls
    return "other"


def _number(line, what):
    m = re.search(r"(\d+) " + what, line)
    return int(m.group(1)) if m else None


def mangled_names(symbol):
    """The source names an Itanium-mangled function symbol spells out, outermost first:
    `_ZN3pyg3ops45_GLOBAL__N__fa53_..._2740423scatter_kernelIfEEvPKT_` -> [pyg, ops,
    _GLOBAL__N__..., scatter_kernel]. Read by their lengths: an anonymous namespace's name ends in
    digits, which a pattern looking for a name's length cannot tell from the length."""
    if not symbol.startswith("_Z"):
        return []
    i = 2 + (symbol[2:3] == "N")
    names = []
    while i < len(symbol):
        if symbol[i] in "KVrL":  # cv-qualifiers of a member function, an internal-linkage mark
            i += 1
            continue
        j = i
        while j < len(symbol) and symbol[j].isdigit():
            j += 1
        if j == i:
            break
        n = int(symbol[i:j])
        names.append(symbol[j:j + n])
        i = j + n
    return names


def ptxas_usage(output, name):
    """{symbol, n_regs, n_spills, shared_bytes, stack_bytes, spill_load_bytes} of kernel `name`'s
    entry function in `nvcc --resource-usage` output (unmangled or Itanium-mangled), else None."""
    found = None
    for line in output.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            if found:
                break
            sym = m.group(1)
            if sym == name or name in mangled_names(sym):
                found = {"symbol": sym, "n_regs": None, "n_spills": None, "shared_bytes": None,
                         "stack_bytes": None, "spill_load_bytes": None}
            continue
        if not found:
            continue
        if "bytes stack frame" in line:
            found["stack_bytes"] = _number(line, "bytes stack frame")
            found["n_spills"] = _number(line, "bytes spill stores")
            found["spill_load_bytes"] = _number(line, "bytes spill loads")
        elif "Used " in line and "registers" in line:
            found["n_regs"] = _number(line, "registers")
            found["shared_bytes"] = _number(line, "bytes smem") or 0
    return found


_TORCH_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](torch|ATen|c10|caffe2)/', re.M)


@functools.lru_cache(maxsize=1)
def torch_include_flags():
    """nvcc flags that find PyTorch's C++ headers (what torch.utils.cpp_extension passes a CUDA
    extension), from where torch is installed, without importing it; [] without torch."""
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return []
    if not spec or not spec.origin:
        return []
    include = os.path.join(os.path.dirname(spec.origin), "include")
    if not os.path.isdir(include):
        return []
    dirs = [include, os.path.join(include, "torch", "csrc", "api", "include"), sysconfig.get_paths()["include"]]
    return ["-std=c++17"] + ["-I" + d for d in dirs if os.path.isdir(d)]


def includes_torch(text):
    """Whether a unit's text includes PyTorch's C++ headers."""
    return bool(_TORCH_INCLUDE.search(text))


def include_flags(source):
    """Extra nvcc flags a unit's includes ask for: PyTorch's headers for an extension's kernel."""
    try:
        with open(source, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return []
    return torch_include_flags() if includes_torch(text) else []


# PyTorch's cpp_extension builds every CUDA extension with it, and kernels written for extensions
# call constexpr host functions from device code (`std::min`, a numeric type's operators).
RELAXED_CONSTEXPR = "--expt-relaxed-constexpr"
# PyTorch builds ATen with it and extensions commonly add it: device code that takes a
# `[] __device__ (...)` lambda (a functor a kernel template applies) compiles only with it. It
# enables a language feature and changes nothing in code without such lambdas.
EXTENDED_LAMBDA = "--extended-lambda"


def compile_cubin(nvcc, source, arch, out_dir, timeout_s, mem_limit_mb=0):
    """(returncode or None on timeout, output, compile_ms, cubin path). nvcc runs in its own
    session so that a timeout kills cicc and ptxas with it; mem_limit_mb caps its address space."""
    cubin = os.path.join(out_dir, os.path.splitext(os.path.basename(source))[0] + ".cubin")
    cmd = [nvcc, "-cubin", "-arch=" + arch, "--resource-usage", RELAXED_CONSTEXPR, EXTENDED_LAMBDA,
           *include_flags(source), "-o", cubin, source]

    def limits():
        if mem_limit_mb > 0:
            lim = mem_limit_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    # nvcc's intermediate files go to $TMPDIR; the worker may write only beneath its scratch folder.
    env = dict(os.environ, TMPDIR=out_dir)
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         cwd=out_dir, env=env, start_new_session=True, preexec_fn=limits)
    try:
        out, _ = p.communicate(timeout=timeout_s)
        code = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        code = None
    ms = (time.perf_counter() - t0) * 1000.0
    text = out.decode("utf-8", "replace").replace(source, os.path.basename(source))
    return code, text, ms, cubin


# --- arguments ------------------------------------------------------------------------------

_QUALIFIERS = {"const", "volatile", "__restrict__", "__restrict", "restrict", "struct", "__grid_constant__"}
_SCALARS = {  # C type -> (ctypes type, is_float)
    "int": (ctypes.c_int32, False), "signed": (ctypes.c_int32, False), "unsigned": (ctypes.c_uint32, False),
    "unsigned int": (ctypes.c_uint32, False), "int32_t": (ctypes.c_int32, False),
    "uint32_t": (ctypes.c_uint32, False), "uint": (ctypes.c_uint32, False),
    "long": (ctypes.c_int64, False), "long int": (ctypes.c_int64, False), "long long": (ctypes.c_int64, False),
    "unsigned long": (ctypes.c_uint64, False), "unsigned long long": (ctypes.c_uint64, False),
    "int64_t": (ctypes.c_int64, False), "uint64_t": (ctypes.c_uint64, False), "size_t": (ctypes.c_uint64, False),
    "ptrdiff_t": (ctypes.c_int64, False), "short": (ctypes.c_int16, False), "int16_t": (ctypes.c_int16, False),
    "unsigned short": (ctypes.c_uint16, False), "uint16_t": (ctypes.c_uint16, False),
    "char": (ctypes.c_int8, False), "signed char": (ctypes.c_int8, False), "int8_t": (ctypes.c_int8, False),
    "unsigned char": (ctypes.c_uint8, False), "uint8_t": (ctypes.c_uint8, False), "bool": (ctypes.c_bool, False),
    "float": (ctypes.c_float, True), "double": (ctypes.c_double, True),
}
_HALF_BITS = {"half": 0x3C00, "__half": 0x3C00, "__nv_bfloat16": 0x3F80, "nv_bfloat16": 0x3F80}
_ELEMENT_BYTES = {"double": 8, "long": 8, "int64_t": 8, "uint64_t": 8, "size_t": 8, "long long": 8,
                  "unsigned long long": 8, "float2": 8, "int2": 8, "double2": 16, "float4": 16, "int4": 16,
                  "half": 2, "__half": 2, "__nv_bfloat16": 2, "half2": 4, "__half2": 4, "char": 1,
                  "unsigned char": 1, "uint8_t": 1, "int8_t": 1, "bool": 1, "short": 2, "int16_t": 2}


# Handles that must name a live object; a made-up value would fault or read garbage.
_HANDLES = {"cudaTextureObject_t", "cudaSurfaceObject_t", "CUtexObject", "CUsurfObject", "cudaStream_t",
            "CUstream", "cudaEvent_t"}


def parse_param(decl):
    """{name, type, pointer} of one C parameter declaration as the extractor wrote it."""
    text = decl.split("=")[0].strip()
    pointer = "*" in text or "[" in text
    reference = "&" in text
    text = re.sub(r"\[[^\]]*\]", " ", text).replace("*", " ").replace("&", " ")
    words = [w for w in text.split() if w not in _QUALIFIERS]
    name = words[-1] if len(words) > 1 else ""
    ctype = " ".join(words[:-1] if len(words) > 1 else words)
    return {"name": name, "type": ctype, "pointer": pointer, "reference": reference}


def unknown_scalar(p):
    """A value parameter of a type the argument table does not know (`scalar_t`, `opmath_t`, a
    typedef): nvcc, which instantiated the kernel, knows what it is."""
    return (not p["pointer"] and not p["reference"] and p["type"] not in _SCALARS and p["type"] not in _HALF_BITS
            and p["type"] not in _HANDLES)


def unknown_scalars(params):
    return [p for p in params if unknown_scalar(p)]


# The unit's own instantiation of a template kernel (cuda_source.cpp writes it):
# `static void* const mine_instantiation_k = (void*)&ns::k<float, 128>;`
_INSTANTIATION = re.compile(r"\bmine_instantiation_(\w+)\s*=\s*\(void\s*\*\)\s*&\s*([^;]+);")
PARAM_KINDS = "mine_param_kinds"
# Kinds of a parameter in the probe's table, above the size in bytes.
_KIND_FLOAT, _KIND_SIGNED, _KIND_UNSIGNED, _KIND_POINTER, _KIND_ENUM = 1, 2, 3, 4, 5

_PROBE = """
// Added by the check: the size and kind of each parameter of the (instantiated) kernel, as nvcc
// resolved them, so that arguments of template-dependent and typedef'd types can be made.
#include <tuple>
#include <type_traits>
namespace mine_probe {
template <typename T> constexpr unsigned long long kind() {
  return (unsigned long long)sizeof(T) | ((unsigned long long)(
      std::is_floating_point<T>::value ? %(float)d : std::is_integral<T>::value ?
      (std::is_signed<T>::value ? %(signed)d : %(unsigned)d) : std::is_pointer<T>::value ? %(pointer)d :
      std::is_enum<T>::value ? %(enum)d : 0) << 32);
}
template <typename F, unsigned I> struct at;
template <typename... A, unsigned I> struct at<void (*)(A...), I> {
  static constexpr unsigned long long value =
      kind<typename std::remove_cv<typename std::tuple_element<I, std::tuple<A...>>::type>::type>();
};
using entry = decltype(&%(entry)s);
}  // namespace mine_probe
__device__ unsigned long long %(table)s[%(count)d] = {%(items)s};
"""


def _plain_kernel(source_text, entry):
    """Whether the unit defines `entry` as a __global__ function that is no template."""
    for m in re.finditer(r"__global__[^;{}]*?\b%s\s*\(" % re.escape(entry), source_text):
        before = source_text[:m.start()]
        cut = max(before.rfind(";"), before.rfind("}"), before.rfind("{"))
        if "template" not in before[cut + 1:]:
            return True
    return False


def param_probe(source_text, entry, count):
    """Code to append to a unit whose kernel takes parameters of types only nvcc resolves: a
    __device__ table of (size, kind) per parameter of the unit's instantiation of `entry`, or of
    `entry` itself when it is no template (`typedef bf* __restrict__ F_;` then `F_ w`). None for
    a template the unit does not instantiate. (A kernel inside a namespace is not found by its bare
    name: the probe then fails to compile and the unit is compiled without it.)"""
    if count <= 0:
        return None
    function = None
    for m in _INSTANTIATION.finditer(source_text):
        if m.group(1) == entry:
            function = m.group(2).strip()
    if function is None and _plain_kernel(source_text, entry):
        function = entry
    if function is None:
        return None
    items = ", ".join("mine_probe::at<mine_probe::entry, %d>::value" % i for i in range(count))
    return _PROBE % {"float": _KIND_FLOAT, "signed": _KIND_SIGNED, "unsigned": _KIND_UNSIGNED,
                     "pointer": _KIND_POINTER, "enum": _KIND_ENUM, "entry": function, "table": PARAM_KINDS,
                     "count": count, "items": items}


_SIZED_INTS = {(1, _KIND_SIGNED): "int8_t", (2, _KIND_SIGNED): "int16_t", (4, _KIND_SIGNED): "int32_t",
               (8, _KIND_SIGNED): "int64_t", (1, _KIND_UNSIGNED): "uint8_t", (2, _KIND_UNSIGNED): "uint16_t",
               (4, _KIND_UNSIGNED): "uint32_t", (8, _KIND_UNSIGNED): "uint64_t",
               (4, _KIND_FLOAT): "float", (8, _KIND_FLOAT): "double"}


def resolve_types(params, kinds):
    """Parameters whose type the probe resolved, as the argument table knows them: `opmath_t` of
    4 floating bytes is a float; a pointer typedef is a pointer; an enum an integer of its size.
    Other types stay as written."""
    out = []
    for p, k in zip(params, kinds or []):
        size, kind = k & 0xFFFFFFFF, k >> 32
        if unknown_scalar(p):
            if kind == _KIND_POINTER:
                p = dict(p, pointer=True, resolved=p["type"])
            elif (size, kind) in _SIZED_INTS:
                p = dict(p, type=_SIZED_INTS[(size, kind)], resolved=p["type"])
            elif kind == _KIND_ENUM and (size, _KIND_SIGNED) in _SIZED_INTS:
                # An enumeration (`reduce_t reduce_type`) passes as an integer of its size; its
                # stand-in is 0, the first enumerator unless the enum says otherwise.
                p = dict(p, type=_SIZED_INTS[(size, _KIND_SIGNED)], resolved=p["type"], enum=True)
        out.append(p)
    return out + params[len(out):]


def largest_product(values, count):
    """The product of the `count` largest positive values: the furthest index a kernel reaches by
    multiplying that many of its sizes."""
    out = 1
    for v in sorted((int(v) for v in values if v and v > 0), reverse=True)[:count]:
        out *= v
    return out


# What a block may use without opting in (cuFuncSetAttribute): static and dynamic shared memory
# together.
DEFAULT_SHARED_LIMIT = 48 * 1024
_EXTERN_SHARED = re.compile(r"\bextern\s+(?:[\w:<>]+\s+)*__shared__\b|\b__shared__\s+extern\b")


def uses_dynamic_shared(source_text):
    """Whether the unit declares `extern __shared__` memory, whose size only the launch gives."""
    return bool(_EXTERN_SHARED.search(source_text))


def fit_block(plan, max_threads):
    """Shrinks the plan's block to the kernel's limit on threads per block (its
    __launch_bounds__, or what its registers allow: cuLaunchKernel refuses more), in whole warps,
    and grows a grid the plan derived to cover the same elements."""
    block = plan["block"]
    if not max_threads or block[0] * block[1] * block[2] <= max_threads:
        return plan
    x = max(1, max_threads // (block[1] * block[2]))
    if x >= 32:
        x -= x % 32
    covered = plan["grid"][0] * block[0]
    plan = dict(plan, block=[x, block[1], block[2]])
    if plan.get("grid_derived"):
        plan["grid"] = [max(1, math.ceil(covered / x)), plan["grid"][1], plan["grid"][2]]
    return plan


# PyTorch's `at::cuda::detail::TensorInfo<T, IndexType>` (ATen/cuda/detail/TensorInfo.cuh), which
# CUDA extensions pass by value: a data pointer, sizes and strides for up to MAX_TENSORINFO_DIMS
# dimensions, and the count of dimensions in use.
_TENSOR_INFO = re.compile(r"(?:^|::)TensorInfo\s*<\s*([^,<>]+?)\s*,\s*([^,<>]+?)\s*>$")
MAX_TENSORINFO_DIMS = 25


def tensor_info(p):
    """(element bytes, index ctypes type) of a TensorInfo parameter, else None."""
    m = _TENSOR_INFO.search(p["type"]) if not p["pointer"] and not p["reference"] else None
    if not m or m.group(2) not in _SCALARS or _SCALARS[m.group(2)][1]:
        return None
    return (_ELEMENT_BYTES.get(m.group(1), 4 if m.group(1) in _SCALARS else 8), _SCALARS[m.group(2)][0])


def tensor_info_value(data, elements, index_type):
    """A one-dimensional TensorInfo over `elements` contiguous elements at `data`, laid out as
    nvcc lays out the struct (ctypes aligns fields as C does)."""
    class TensorInfo(ctypes.Structure):
        _fields_ = [("data", ctypes.c_uint64), ("sizes", index_type * MAX_TENSORINFO_DIMS),
                    ("strides", index_type * MAX_TENSORINFO_DIMS), ("dims", ctypes.c_int32)]
    value = TensorInfo()
    value.data, value.sizes[0], value.strides[0], value.dims = data, elements, 1, 1
    return value


# PyTorch's packed accessors (ATen/core/TensorAccessor.h), which extensions pass by value as
# `tensor.packed_accessor64<scalar_t, 3, at::RestrictPtrTraits>()`: a data pointer, then N sizes
# and N strides of the index type (int32 for the 32 form, int64 for the 64 form and by default).
_ACCESSOR = re.compile(r"(?:^|::)(Generic)?PackedTensorAccessor(32|64)?\s*<\s*([^,<>]+?)\s*,\s*(\d+)\s*"
                       r"(?:,\s*([^,<>]+?)\s*)?(?:,\s*([^,<>]+?)\s*)?>$")


def packed_accessor(p):
    """(element bytes, index ctypes type, rank) of a packed accessor parameter, else None."""
    m = _ACCESSOR.search(p["type"]) if not p["pointer"] and not p["reference"] else None
    if not m or int(m.group(4)) < 1:
        return None
    index = {"32": "int32_t", "64": "int64_t"}.get(m.group(2) or "", m.group(6) or "int64_t")
    if index not in _SCALARS or _SCALARS[index][1]:
        return None
    return (_ELEMENT_BYTES.get(m.group(3), 4 if m.group(3) in _SCALARS else 8), _SCALARS[index][0], int(m.group(4)))


def accessor_side(args, elements):
    """The size of every dimension of every accessor of one launch: one size for all, so that a
    size read from one accessor indexes the others in bounds, as large as the highest rank fits in
    `elements` and at most INT_DEFAULT, the integers' stand-in."""
    ranks = [detail[2] for kind, _, detail in args if kind == "accessor"]
    if not ranks:
        return 0
    side = max(1, int(round(elements ** (1.0 / max(ranks)))))
    while side ** max(ranks) > elements:
        side -= 1
    return max(1, min(INT_DEFAULT, side))


def packed_accessor_value(data, side, index_type, rank):
    """A contiguous accessor of `rank` dimensions of `side` elements each at `data`, laid out as
    nvcc lays out the class (ctypes aligns fields as C does)."""
    class Accessor(ctypes.Structure):
        _fields_ = [("data", ctypes.c_uint64), ("sizes", index_type * rank), ("strides", index_type * rank)]
    value = Accessor()
    value.data = data
    for d in range(rank):
        value.sizes[d] = side
        value.strides[d] = side ** (rank - 1 - d)
    return value


def plan_launch(spec):
    """Arguments, grid and block for one launch, and what was guessed: pointers get a zeroed
    buffer each, integers int_stand_in(how many sizes are guessed) (1 for names with 'stride', 0
    for 'offset'), floats 1.0 (1e-5 for 'eps'); one thread per element of the largest integer, in
    blocks of the kernel's __launch_bounds__ or DEFAULT_BLOCK. Buffers hold an n x n matrix of the
    largest integer and the product of the four largest (of every guessed size, when more are),
    within MIN_ELEMENTS..MAX_ELEMENTS."""
    params = [parse_param(d) for d in spec.get("params") or []]
    if spec.get("param_kinds"):
        params = resolve_types(params, spec["param_kinds"])
    given = spec.get("args") or {}
    args, guessed = [], []
    sizes = sum(1 for p in params
                if not p["pointer"] and not p["reference"] and p["name"] not in given and p["type"] in _SCALARS
                and not _SCALARS[p["type"]][1] and p["type"] != "bool"
                and "stride" not in p["name"].lower() and "offset" not in p["name"].lower())
    stand_in = int_stand_in(sizes)
    for p in params:
        info = tensor_info(p)
        if info:
            args.append(("tensor_info", p["name"], info))
            continue
        accessor = packed_accessor(p)
        if accessor:
            args.append(("accessor", p["name"], accessor))
            continue
        if p["reference"] or p["type"] in _HANDLES or (
                not p["pointer"] and p["type"] not in _SCALARS and p["type"] not in _HALF_BITS):
            raise UnsupportedArgument("cannot synthesize an argument for parameter %r of type %r"
                                      % (p["name"], p["type"] + (" &" if p["reference"] else "")))
        if p["pointer"]:
            args.append(("pointer", p["name"], _ELEMENT_BYTES.get(p["type"], 4 if p["type"] in _SCALARS else 16)))
            continue
        lname = p["name"].lower()
        if p["name"] in given:
            value = given[p["name"]]
        else:
            guessed.append(p["name"])
            if p["type"] in _HALF_BITS or _SCALARS[p["type"]][1]:
                value = 1e-5 if "eps" in lname else 1.0
            elif p["type"] == "bool":
                value = False
            elif p.get("enum"):
                value = 0
            else:
                value = 1 if "stride" in lname else 0 if "offset" in lname else stand_in
        args.append(("scalar", p["name"], (p["type"], value)))
    ints = [v for kind, _, d in args if kind == "scalar" for t, v in [d]
            if t in _SCALARS and not _SCALARS[t][1] and t != "bool"]
    biggest = max(ints) if ints else 1
    elements = min(MAX_ELEMENTS, max(MIN_ELEMENTS, 4 * biggest * biggest, largest_product(ints, max(4, sizes))))
    m = re.search(r"__launch_bounds__\s*\(\s*(\d+)", spec.get("launch_bounds") or "")
    block = min(int(m.group(1)), 1024) if m else DEFAULT_BLOCK
    block3 = spec.get("block") or [block, 1, 1]
    grid = spec.get("grid") or [max(1, math.ceil(biggest / block3[0])), 1, 1]
    return {"args": args, "elements": elements, "grid": list(grid), "block": list(block3), "guessed": guessed,
            "grid_derived": not spec.get("grid"), "accessor_side": accessor_side(args, elements)}


def _scalar_value(ctype, value):
    if ctype in _HALF_BITS:
        return ctypes.c_uint16(_HALF_BITS[ctype] if value else 0)
    return _SCALARS[ctype][0](value)


# --- the driver -----------------------------------------------------------------------------

CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4


class CudaDriver:
    """The few CUDA driver API calls the harness needs, through ctypes (libcuda.so.1)."""

    def __init__(self, library="libcuda.so.1", ordinal=0):
        self.cu = ctypes.CDLL(library)
        self._check(self.cu.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self._check(self.cu.cuDeviceGet(ctypes.byref(dev), ordinal), "cuDeviceGet")
        self.device = dev.value
        ctx = ctypes.c_void_p()
        self._check(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self.device), "cuDevicePrimaryCtxRetain")
        self._check(self.cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        name = ctypes.create_string_buffer(256)
        self.cu.cuDeviceGetName(name, 256, self.device)
        self.name = name.value.decode(errors="replace")
        version = ctypes.c_int()
        self.cu.cuDriverGetVersion(ctypes.byref(version))
        self.version = "%d.%d" % (version.value // 1000, version.value % 1000 // 10)

    def _check(self, rc, what):
        if rc != 0:
            name, text = ctypes.c_char_p(), ctypes.c_char_p()
            self.cu.cuGetErrorName(rc, ctypes.byref(name))
            self.cu.cuGetErrorString(rc, ctypes.byref(text))
            raise CudaError("%s: %s (%s returned %d)" % ((name.value or b"CUDA_ERROR").decode(),
                                                          (text.value or b"").decode(), what, rc))

    def load_module(self, image):
        module = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(image, len(image))
        self._check(self.cu.cuModuleLoadData(ctypes.byref(module), buf), "cuModuleLoadData")
        return module

    def get_function(self, module, symbol):
        fn = ctypes.c_void_p()
        self._check(self.cu.cuModuleGetFunction(ctypes.byref(fn), module, symbol.encode()), "cuModuleGetFunction")
        return fn

    def read_global(self, module, name, nbytes):
        """The bytes of a __device__ variable of the loaded module."""
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        self._check(self.cu.cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), module, name.encode()),
                    "cuModuleGetGlobal")
        out = ctypes.create_string_buffer(min(nbytes, size.value))
        self._check(self.cu.cuMemcpyDtoH_v2(out, ptr, ctypes.c_size_t(len(out))), "cuMemcpyDtoH")
        return out.raw

    def function_attribute(self, fn, attribute):
        value = ctypes.c_int()
        self._check(self.cu.cuFuncGetAttribute(ctypes.byref(value), attribute, fn), "cuFuncGetAttribute")
        return value.value

    def mem_alloc(self, nbytes):
        ptr = ctypes.c_uint64()
        self._check(self.cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(nbytes)), "cuMemAlloc")
        self._check(self.cu.cuMemsetD8_v2(ptr, ctypes.c_ubyte(0), ctypes.c_size_t(nbytes)), "cuMemsetD8")
        return ptr.value

    def mem_free(self, ptr):
        self.cu.cuMemFree_v2(ctypes.c_uint64(ptr))

    def launch(self, fn, grid, block, shared_bytes, params):
        """params: ctypes values; cuLaunchKernel gets an array of pointers to them."""
        array = (ctypes.c_void_p * max(1, len(params)))(
            *[ctypes.cast(ctypes.pointer(p), ctypes.c_void_p) for p in params])
        self._check(self.cu.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                           shared_bytes, None, array, None), "cuLaunchKernel")

    def synchronize(self):
        self._check(self.cu.cuCtxSynchronize(), "cuCtxSynchronize")

    def unload(self, module):
        self.cu.cuModuleUnload(module)


def load_and_run(driver, cubin, symbol, spec, stage, row, mark=lambda stage: None):
    """Loads the cubin and, for stage run, launches the kernel once on plan_launch's
    arguments; fills row in place."""
    with open(cubin, "rb") as f:
        image = f.read()
    row["stage_reached"] = "load"
    module = driver.load_module(image)
    buffers = []
    try:
        fn = driver.get_function(module, symbol)
        row["n_regs"] = driver.function_attribute(fn, CU_FUNC_ATTRIBUTE_NUM_REGS)
        row["shared_bytes"] = driver.function_attribute(fn, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
        row["local_bytes"] = driver.function_attribute(fn, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
        if stage != "run":
            return
        row["stage_reached"] = "run"
        mark("run")
        if spec.get("probed"):
            raw = driver.read_global(module, PARAM_KINDS, 8 * spec["probed"])
            spec = dict(spec, param_kinds=[int.from_bytes(raw[i:i + 8], "little") for i in range(0, len(raw), 8)])
        plan = fit_block(plan_launch(spec), driver.function_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK))
        row.update(grid=plan["grid"], block=plan["block"], guessed=plan["guessed"])
        # `extern __shared__` memory is sized by the launch, which the check does not know: the
        # kernel gets what is left of the default limit after its static shared memory.
        dynamic = max(0, DEFAULT_SHARED_LIMIT - row["shared_bytes"]) if spec.get("dynamic_shared") else 0
        if dynamic:
            row["dynamic_shared_bytes"] = dynamic
        params = []
        for kind, _, detail in plan["args"]:
            if kind == "pointer":
                ptr = driver.mem_alloc(plan["elements"] * detail)
                buffers.append(ptr)
                params.append(ctypes.c_uint64(ptr))
            elif kind == "tensor_info":
                ptr = driver.mem_alloc(plan["elements"] * detail[0])
                buffers.append(ptr)
                params.append(tensor_info_value(ptr, plan["elements"], detail[1]))
            elif kind == "accessor":
                ptr = driver.mem_alloc(plan["elements"] * detail[0])
                buffers.append(ptr)
                params.append(packed_accessor_value(ptr, plan["accessor_side"], detail[1], detail[2]))
            else:
                params.append(_scalar_value(*detail))
        driver.synchronize()
        t0 = time.perf_counter()
        driver.launch(fn, plan["grid"], plan["block"], dynamic, params)
        driver.synchronize()
        row["run_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
    finally:
        for ptr in buffers:
            driver.mem_free(ptr)
        driver.unload(module)


# Macros the toolkit's headers once left defined, which code written against those toolkits uses:
# CUDA 13's cuda_fp16.h and cuda_bf16.h #undef `__CUDA_ALIGN__` at their end, so TensorRT-LLM's
# `typedef struct __CUDA_ALIGN__(8) {...} bf16_4_t;` (vendored by many repositories) no longer
# compiles. Each is defined again, where the unit does not define it, before each line using it
# (a header included between two uses #undefs it again).
_TOOLKIT_MACROS = {"__CUDA_ALIGN__": "#define __CUDA_ALIGN__(n) __align__(n)"}


def toolkit_ports(text):
    """(text, names of the macros defined again) for a unit; see _TOOLKIT_MACROS."""
    ported = []
    for name, definition in _TOOLKIT_MACROS.items():
        if re.search(r"#\s*define\s+%s\b" % name, text):
            continue
        guard = "#ifndef %s\n%s\n#endif\n" % (name, definition)
        out, last = [], 0
        for use in re.finditer(r"^[^\n]*\b%s\s*\(" % name, text, re.M):
            if text[:use.start()].rstrip("\n").endswith("\\"):  # inside a multi-line #define
                continue
            out += [text[last:use.start()], guard]
            last = use.start()
        if out:
            text = "".join(out) + text[last:]
            ported.append(name)
    return text, ported


# CCCL 3 (CUDA 13) removed CUB's own operators `cub::Sum`, `cub::Max` and `cub::Min`, which
# block reductions of every toolkit before used (`BlockReduce(tmp).Reduce(v, cub::Sum())`); libcu++
# has them as `cuda::std::plus<>`, `cuda::maximum<>` and `cuda::minimum<>`. After the unit's last
# CUB include they are given back under their old names, only where CCCL is 3 or later.
_CUB_OPERATORS = {"Sum": "::cuda::std::plus<>", "Max": "::cuda::maximum<>", "Min": "::cuda::minimum<>"}
_CUB_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include[ \t]*<cub/[^>]*>[^\n]*\n", re.M)


def cub_operator_ports(text):
    """(text, the operators given back) for a unit; see _CUB_OPERATORS."""
    used = [n for n in _CUB_OPERATORS if re.search(r"\bcub::%s\s*[({]" % n, text)]
    includes = list(_CUB_INCLUDE.finditer(text))
    if not used or not includes:
        return text, []
    aliases = " ".join("using %s = %s;" % (n, _CUB_OPERATORS[n]) for n in used)
    shim = ("#if defined(CCCL_MAJOR_VERSION) && CCCL_MAJOR_VERSION >= 3\n#include <cuda/functional>\n"
            "#include <cuda/std/functional>\nnamespace cub { %s }\n#endif\n" % aliases)
    at = includes[-1].end()
    return text[:at] + shim + text[at:], ["cub::" + n for n in used]


def cuda_ports(text):
    """(text, rewrites) of a unit ported onto the installed toolkit: its macros (toolkit_ports) and
    CUB's operators (cub_operator_ports), each rewrite {move, old, new, count} as Triton's ports."""
    text, macros = toolkit_ports(text)
    text, operators = cub_operator_ports(text)
    return text, ([{"move": "cuda.toolkit_macro", "old": n, "new": _TOOLKIT_MACROS[n], "count": 1} for n in macros] +
                  [{"move": "cuda.cub_operator", "old": n, "new": _CUB_OPERATORS[n[len("cub::"):]], "count": 1}
                   for n in operators])


def run_task(task, row, driver_factory, mark=lambda stage: None):
    """Compile (and load/run) one CUDA kernel of the bundle, filling `row`; raises on failure
    with row["stage_reached"] naming the stage that failed and row["error_class"] set when
    the compiler's diagnostics decided it."""
    spec, stage = task["spec"], task["stage"]
    source = os.path.join(task["bundle_dir"], spec["module"])
    nvcc = find_nvcc()
    row["stage_reached"] = "compile"
    mark("compile")
    if nvcc is None:
        raise FileNotFoundError("nvcc not found ($CUDA_HOME/bin, $PATH, /usr/local/cuda/bin)")
    scratch = task["scratch"]
    unit = os.path.join(scratch, os.path.basename(spec["module"]))
    timeout = float(os.environ.get("MINE_TASK_TIMEOUT", "60")) * 0.9
    mem_limit = int(os.environ.get("MINE_MEM_LIMIT_MB", "0") or 0)
    with open(source, errors="replace") as f:
        text, rewrites = cuda_ports(f.read())
    if rewrites:
        # Checked as ported, the port stored with the result (as Triton's ports are).
        row["module_checked"] = "ported"
        row["port"] = {"of": "standalone", "source": text, "rewrites": rewrites}

    def write_unit():
        with open(unit, "w") as f:
            f.write(text)
    write_unit()
    params = [parse_param(d) for d in spec.get("params") or []]
    probe = param_probe(text, spec["entry"], len(params)) if stage == "run" and unknown_scalars(params) else None
    if probe:
        with open(unit, "a") as f:
            f.write(probe)
    code, output, ms, cubin = compile_cubin(nvcc, unit, task["arch"], scratch, timeout, mem_limit)
    if probe and code not in (0, None):
        # The probe must never be why a unit fails: compile the unit as it was.
        write_unit()
        probe = None
        code, output, ms, cubin = compile_cubin(nvcc, unit, task["arch"], scratch, timeout, mem_limit)
    if code != 0:
        row["error_class"] = "timeout" if code is None else classify_nvcc(output)
        raise RuntimeError(("nvcc did not finish within %.0f s\n" % timeout if code is None else "") + output)
    row["compile_ms"] = round(ms, 2)
    usage = ptxas_usage(output, spec["entry"])
    if usage:
        row.update({k: usage[k] for k in ("n_regs", "n_spills", "shared_bytes", "stack_bytes")})
        row["symbol"] = usage["symbol"]
    if stage in ("import", "compile"):
        return
    if not usage:
        row["stage_reached"] = "load"
        raise MissingEntry("no entry function for %s in the cubin (uninstantiated template?)" % spec["entry"])
    row["stage_reached"] = "load"
    mark("load")
    spec = dict(spec, dynamic_shared=uses_dynamic_shared(text), probed=len(params) if probe else 0)
    load_and_run(driver_factory(), cubin, usage["symbol"], spec, stage, row, mark)
