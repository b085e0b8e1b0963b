"""One warm interpreter of the check pool: reads tasks as JSON lines on stdin, answers one
JSON line per task on the protocol fd. Run by run_bundle.py, never by hand.

Triton (and torch, for load/run) are imported once at start-up so a task pays only for its
own kernel. Anything the kernel prints goes to stderr: stdout is the protocol and a stray
print must not corrupt it.
"""
import ast
import contextlib
import importlib.util
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bundle_libraries  # noqa: E402
import cgroups  # noqa: E402
import cuda_kernel  # noqa: E402
import deferred_imports  # noqa: E402
import inductor_stage  # noqa: E402
import launch  # noqa: E402
import mode_literals  # noqa: E402
import offset_reach  # noqa: E402
import privileges  # noqa: E402
import sandbox  # noqa: E402
import shared_state  # noqa: E402
import specialize  # noqa: E402
import triton_ports  # noqa: E402
from classify import classify, missing_from_triton, trim, unresolved_externs, unsupported_on_target  # noqa: E402

STAGE_ORDER = ("import", "compile", "load", "run")


class MissingEntry(Exception):
    pass


def apply_limits():
    # RLIMIT_AS would break CUDA, which reserves tens of GiB of address space; RLIMIT_DATA
    # counts only writable private memory actually mapped, which CUDA's reservations are not.
    mb = int(os.environ.get("MINE_MEM_LIMIT_MB", "0") or 0)
    if mb > 0 and os.environ.get("MINE_RLIMIT_DATA", "1") == "1":
        lim = mb << 20
        resource.setrlimit(resource.RLIMIT_DATA, (lim, lim))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return ["rlimit-data %d MiB" % mb] if mb > 0 and os.environ.get("MINE_RLIMIT_DATA", "1") == "1" else []


def confine_writes():
    """After triton/torch (and CUDA) are up: from here on files change only in the folders the
    pool named (scratch, Triton cache, /dev), for the kernel and whatever it starts."""
    writable = [p for p in os.environ.get("MINE_SANDBOX_WRITABLE", "").split(os.pathsep) if p]
    if not writable:
        return "none (disabled)"
    return sandbox.restrict_writes(writable)


def kill_children():
    """Processes a kernel started and left running die with its task; ones that slipped out of
    the process group (setsid) reparent to the pool, which sweeps them."""
    me = str(os.getpid())
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                ppid = f.read().rsplit(")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue
        if ppid == me:
            try:
                os.kill(int(pid), 9)
                os.waitpid(int(pid), 0)
            except OSError:
                pass


def _causes(e):
    """e, then what caused it (`raise ... from`, or the exception being handled), each once."""
    seen = set()
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        yield e
        e = e.__cause__ or e.__context__


def exc_chain(e):
    return [type(x).__name__ for x in _causes(e)]


def exc_message(e):
    parts = []
    for x in _causes(e):
        text = str(x).strip()
        parts.append("%s: %s" % (type(x).__name__, text) if text else type(x).__name__)
    return "\n-- caused by --\n".join(parts)


def fn_chain(obj):
    """`obj` and what it wraps: Autotuner, Heuristics and Inductor's CachingAutotuner all keep
    the function they wrap in .fn (eight levels at most)."""
    for _ in range(8):
        yield obj
        nxt = getattr(obj, "fn", None)
        if nxt is None or nxt is obj:
            return
        obj = nxt


def unwrap_jit(obj, jit_type):
    """The JITFunction `obj` is or wraps."""
    for o in fn_chain(obj):
        if isinstance(o, jit_type):
            return o
        obj = o
    raise MissingEntry("entry is not a @triton.jit function (got %s)" % type(obj).__name__)


def kernel_params(fn):
    """[(name, is_constexpr, default)] from a JITFunction; tolerant of Triton versions."""
    out = []
    for p in fn.params:
        default = launch.MISSING
        if getattr(p, "has_default", False):
            default = p.default
        out.append((p.name, bool(getattr(p, "is_constexpr", False)), default))
    return out


def parse_arch(arch):
    arch = str(arch).lower().replace("sm_", "").replace("sm", "")
    if arch.endswith("a"):
        arch = arch[:-1]
    return int(arch)


def probe_accelerator():
    """Compile-only workers never touch the GPU themselves, but modules often ask at import time
    which accelerator there is (`torch.cuda.is_available()`) and give up without one. Under the
    write sandbox cuInit fails, so on a GPU machine such a module would wrongly see none: ask
    once here, before the sandbox, so the driver is initialised. No context is created; where
    torch is missing (or $MINE_PROBE_ACCELERATOR=0) nothing happens. Costs a torch import per
    worker start, not per kernel."""
    if os.environ.get("MINE_PROBE_ACCELERATOR", "1") != "1":
        return
    try:
        import torch
        torch.cuda.is_available()
    except Exception:
        pass


def cuda_driver_factory():
    """CudaDriver over libcuda, or the stand-in $MINE_CUDA_DRIVER names (module:callable)."""
    name = os.environ.get("MINE_CUDA_DRIVER")
    if not name:
        return cuda_kernel.CudaDriver
    module, _, attr = name.partition(":")
    return getattr(importlib.import_module(module), attr)


class Worker:
    def __init__(self, want_gpu):
        self.want_gpu = want_gpu
        self.driver = None
        self.versions = {"triton_version": None, "torch_version": None}
        self._stand_ins = {}  # (arity, results) -> jitted stand-in function (stand_in_function)
        self._stand_in_dir = None
        # A bundle of CUDA C kernels only needs neither Triton nor torch.
        if os.environ.get("MINE_NEED_TRITON", "1") == "1":
            self._start_triton(want_gpu)
        elif want_gpu:
            # cuInit must run before the write sandbox goes up (as torch's does on the Triton
            # path): under Landlock it fails with CUDA_ERROR_OPERATING_SYSTEM. Without a usable
            # GPU the error is reported per kernel at its load stage instead.
            try:
                self.cuda_driver()
            except Exception:
                self.driver = None

    def _start_triton(self, want_gpu):
        import triton
        self.triton = triton
        from triton.compiler import ASTSource
        from triton.backends.compiler import GPUTarget
        self.ASTSource, self.GPUTarget = ASTSource, GPUTarget
        self.jit_type = triton.runtime.jit.JITFunction
        self.torch = None
        self.versions = {"triton_version": getattr(triton, "__version__", None),
                         "torch_version": None}
        if want_gpu:
            import torch
            self.torch = torch
            self.versions["torch_version"] = torch.__version__
            if torch.cuda.is_available():
                torch.cuda.init()
                self.versions["gpu_name"] = torch.cuda.get_device_name(0)
                # Kernels that build TMA descriptors in the kernel (`tl.make_tensor_descriptor`)
                # need scratch memory from the host; their repositories set this allocator.
                set_allocator = getattr(triton, "set_allocator", None)
                if set_allocator is not None:
                    set_allocator(lambda size, alignment, stream:
                                  torch.empty(size, dtype=torch.int8, device="cuda"))
        else:
            # Importing torch only for its version would cost start-up time and memory.
            try:
                from importlib.metadata import version
                self.versions["torch_version"] = version("torch")
            except Exception:
                pass
            probe_accelerator()

    def cuda_driver(self):
        if self.driver is None:
            self.driver = cuda_driver_factory()()
            self.versions["gpu_name"] = getattr(self.driver, "name", None)
        return self.driver

    def run_cuda_task(self, task):
        spec, stage = task["spec"], task["stage"]
        row = {"id": spec["id"], "entry": spec["entry"], "stage_requested": stage,
               "stage_reached": "compile", "status": "fail", "error_class": None,
               "message": "", "compile_ms": None, "n_regs": None, "n_spills": None,
               "shared_bytes": None, "run_ms": None, "arch": task["arch"], "checker": "nvcc"}
        scratch = task["scratch"]
        os.makedirs(scratch, exist_ok=True)
        self.marker = os.path.join(scratch, ".stage")
        poisoned = False
        try:
            cuda_kernel.run_task(task, row, self.cuda_driver, self.mark)
            if self.driver is not None and getattr(self.driver, "name", None):
                row["gpu_name"] = self.driver.name
            row["status"] = "ok"
        except BaseException as e:  # noqa: B902
            if isinstance(e, KeyboardInterrupt):
                raise
            current = row["stage_reached"]
            row["message"] = trim(str(e) if current == "compile" and row["error_class"] else
                                  exc_message(e) + "\n" + _tail_tb(e))
            if isinstance(e, cuda_kernel.UnsupportedArgument):
                row["error_class"] = "other"
            elif not row["error_class"]:
                row["error_class"] = classify(current, exc_chain(e), exc_message(e))
            poisoned = current in ("load", "run")
        finally:
            if row["status"] == "ok":
                shutil.rmtree(scratch, ignore_errors=True)
        row["recycle"] = poisoned
        return row

    def run_module_task(self, task):
        """A PyTorch module: eager against torch.compile (inductor_stage.py)."""
        spec = task["spec"]
        row = {"id": spec["id"], "entry": spec["entry"], "stage_requested": "inductor",
               "stage_reached": "import", "status": "fail", "error_class": None,
               "message": "", "compile_ms": None, "run_ms": None, "arch": task["arch"],
               "checker": "inductor"}
        poisoned = False
        with self.in_scratch(task, row):
            try:
                if getattr(self, "torch", None) is None or not self.torch.cuda.is_available():
                    raise RuntimeError("the inductor stage needs torch with a CUDA device")
                inductor_stage.run(task, row, self.torch, self.mark)
                row["status"] = "ok"
            except BaseException as e:  # noqa: B902 -- SystemExit from module code is a failure too
                if isinstance(e, KeyboardInterrupt):
                    raise
                poisoned = self.record_failure(row, e)
                if isinstance(e, inductor_stage.OutputMismatch):
                    # Unless the float64 reference run after the comparison faulted on the GPU.
                    row["error_class"] = "other"
                    poisoned = bool((row.get("inductor") or {}).get("context_poisoned"))
                elif row["stage_reached"] == "load" and not isinstance(e, SystemExit):
                    # The eager forward failing on guessed inputs leaves the context usable unless
                    # the GPU itself complained.
                    poisoned = row["error_class"] in ("illegal_address", "crash")
        row["recycle"] = poisoned
        return row

    @contextlib.contextmanager
    def in_scratch(self, task, row):
        """Runs a task in its scratch folder; after it, back home with its children killed and
        the folder removed if the task passed (a failure's folder stays for reading)."""
        scratch = task["scratch"]
        os.makedirs(scratch, exist_ok=True)
        self.marker = os.path.join(scratch, ".stage")
        os.chdir(scratch)
        try:
            yield scratch
        finally:
            os.chdir(HERE)
            kill_children()
            # PyTorch's caching allocator keeps what a task freed; sixteen workers share one GPU,
            # and a later kernel of another worker must not run out of memory for it.
            torch = getattr(self, "torch", None)
            if torch is not None and row.get("stage_reached") == "run":
                try:
                    torch.cuda.empty_cache()
                except Exception:  # noqa: BLE001 -- a poisoned context: the worker is recycled anyway
                    pass
            if row["status"] == "ok":
                shutil.rmtree(scratch, ignore_errors=True)

    def run_task(self, task):
        spec, stage = task["spec"], task["stage"]
        bundle_libraries.use(task.get("bundle_dir"))
        if spec.get("language") == "cuda":
            return self.run_cuda_task(task)
        if spec.get("language") == "torch_module":
            return self.run_module_task(task)
        row = {"id": spec["id"], "entry": spec["entry"], "stage_requested": stage,
               "stage_reached": "import", "status": "fail", "error_class": None,
               "message": "", "compile_ms": None, "n_regs": None, "n_spills": None,
               "shared_bytes": None, "run_ms": None, "arch": task["arch"]}
        poisoned = failed = False
        with self.in_scratch(task, row):
            self.mark("import")
            try:
                self.check_module(task, spec, stage, row)
            except BaseException as e:  # noqa: B902 -- SystemExit from kernel code is a failure too
                if isinstance(e, KeyboardInterrupt):
                    raise
                poisoned = self.record_failure(row, e)
                failed = True
            # Retried outside the handler: raised inside it, a retry's exceptions would chain the
            # first failure as their context, and its message would read as the retry's cause.
            if failed:
                # A name the installed Triton moved (tl.math.tanh, ...): check the ported module too.
                moved = row["error_class"] == "missing_name" or triton_ports.moved_signature(self.last_message)
                if moved and not poisoned:
                    poisoned = self.retry_ported(task, spec, stage, row)
                if not poisoned and row["status"] != "ok" and triton_ports.refused_global(self.last_message):
                    poisoned = self.retry_allowing_globals(task, spec, stage, row)
                if not poisoned and row["status"] != "ok" and row.get("unsupported_on_target") and stage != "import":
                    self.compile_for_newer_target(task, spec, row)
        row["recycle"] = poisoned
        return row

    def compile_for_newer_target(self, task, spec, row):
        """A kernel ptxas refused for instructions the check's target lacks (tcgen05, fp4
        conversions: written for Blackwell) is compiled again for sm_100a, the target those
        instructions exist on. When that compiles, the kernel is not broken: this GPU cannot load
        it. The row then stops at `load` (compiled, not loadable here) and says which target it
        compiled for; the first failure's message stays."""
        newer = "sm_100a"
        if parse_arch(task["arch"]) >= parse_arch(newer):
            return
        trial = {"id": spec["id"], "stage_reached": "import", "status": "fail", "message": ""}
        of = row.get("module_checked")
        ported = ported_path(task, spec) if of == "ported" else None
        try:
            self.check_module(dict(task, arch=newer), spec, "compile", trial, ported=ported)
        except Exception:  # noqa: BLE001 -- the first verdict stands
            return
        row["unsupported_on_target"]["compiles_for"] = newer
        row["stage_reached"] = "load"
        row["compile_ms"] = trial.get("compile_ms")
        row["shared_bytes"] = trial.get("shared_bytes")
        row["message"] = trim("compiles for %s; a %s GPU cannot load it.\n%s" % (
            newer, row["unsupported_on_target"].get("target", task["arch"]), row["message"]))

    def record_failure(self, row, e):
        """Fills the row from a failed attempt; True when the CUDA context may be poisoned."""
        # compile_load_run advances row["stage_reached"] as it goes: it names the failure.
        current = row["stage_reached"]
        message = exc_message(e)
        self.last_message = message  # whole: what decides a retry may sit in the part trim() drops
        row["message"] = trim(message + "\n" + _tail_tb(e))
        row["error_class"] = classify(current, exc_chain(e), message)
        target = unsupported_on_target(message)
        if target:
            row["unsupported_on_target"] = target
        lacked = missing_from_triton(message) if row["error_class"] == "missing_name" else None
        if lacked:
            row["missing_from_triton"] = lacked
        externs = unresolved_externs(message)
        if externs:
            row["unresolved_externs"] = externs
        return current in ("load", "run") or isinstance(e, SystemExit)

    def check_module(self, task, spec, stage, row, ported=None):
        """Imports the entry (or `ported`, a path) and compiles/loads/runs it up to `stage`."""
        if ported:
            fn, source = self.import_entry(task, spec, ported, row)
        else:
            fn = None
            try:
                fn, source = self.import_entry(task, spec, spec["module"], row)
            except Exception as e:
                # A standalone whose import fails (a runtime probing hardware, vendor modules,
                # data files, an Inductor header of an older torch) may still hold a kernel that
                # compiles: check the kernel-only module instead, and keep the import failure.
                if stage == "import" or not spec.get("kernel_only_module") or isinstance(e, SyntaxError):
                    raise
                row["standalone_import"] = {"error_class": classify("import", exc_chain(e), exc_message(e)),
                                            "message": trim(exc_message(e), 400)}
                # Set first: if the kernel-only module fails too, that is the failure to port.
                row["module_checked"] = "kernel_only"
            if fn is None:  # outside the handler: its failure is its own, not caused by the first
                fn, source = self.import_entry(task, spec, spec["kernel_only_module"], row)
        if stage != "import":
            row["stage_reached"] = "compile"
            self.mark("compile")
            p = launch.plan(spec, kernel_params(fn), source)
            p["modes"] = mode_literals.modes(source, {n: v for n, v in p["constexprs"].items() if n in p["guessed"]})
            unspecialized = {q.name for q in getattr(fn, "params", ()) if getattr(q, "do_not_specialize", False)}
            specialize.ones_as_constants(p, spec, unspecialized | specialize.converted_names(getattr(fn, "src", "")))
            specialize.attach(p, spec)
            # (A second try that quarters the guessed blocks after a compile timeout goes without.)
            if not task.get("shrink"):
                spec = use_imported_config(spec, p, getattr(self, "imported_configs", None), row)
            row.update(grid=p["grid"], constexprs=_jsonable(p["constexprs"]),
                       guessed=p["guessed"])
            if p.get("attrs"):
                row["attrs"] = p["attrs"]
            if p.get("symbolic_sizes"):
                row["symbolic_sizes"] = p["symbolic_sizes"]
            if task.get("grow"):
                p["reach"] = kernel_reach(source, spec.get("entry"), p)
            if task.get("configs"):
                row["configs"] = self.autotune(fn, spec, p, task, stage, row)
            else:
                self.compile_shrinking(fn, spec, p, task, stage, row)
        row["status"] = "ok"

    def retry_ported(self, task, spec, stage, row):
        """Checks the module the failure came from again, ported onto the installed Triton
        (triton_ports.py). The row then describes the ported check; `unported` keeps the first
        outcome and `port` the rewrites and the ported source. Returns the poisoned flag."""
        of = row.get("module_checked", "standalone")
        original = checked_source(task, spec, of)
        if original is None:
            return False
        installed = triton_ports.Installed(self.versions.get("triton_version"))
        ported, rewrites = triton_ports.port(original, installed)
        unported = triton_ports.unported_moves(original, self.versions.get("triton_version"))
        if unported:
            row["moves_without_port"] = unported
        if not rewrites:
            return False
        first = first_verdict(row)
        path = ported_path(task, spec)
        with open(path, "w") as f:
            f.write(ported)
        row["unported"] = first
        return self.check_ported(task, spec, stage, row, path, {"of": of, "rewrites": rewrites, "source": ported})

    def check_ported(self, task, spec, stage, row, path, port):
        """Checks the ported module at `path` afresh; the row then describes that check and
        carries `port`. Returns the poisoned flag."""
        for k in ("error_class", "message", "compile_ms", "n_regs", "n_spills", "shared_bytes", "run_ms"):
            row[k] = None if k != "message" else ""
        row.pop("unsupported_on_target", None)  # the first attempt's; this one says its own
        row.pop("missing_from_triton", None)
        row.pop("unresolved_externs", None)
        row.update(stage_reached="import", status="fail", module_checked="ported", port=port)
        self.mark("import")
        try:
            self.check_module(task, spec, stage, row, ported=path)
            return False
        except BaseException as e:  # noqa: B902
            if isinstance(e, KeyboardInterrupt):
                raise
            return self.record_failure(row, e)

    def retry_allowing_globals(self, task, spec, stage, row):
        """Checks the module (ported, if a port ran) again with Triton's allow_non_constexpr_globals
        knob on: kernels written before Triton 3.3 read module-level objects (a class holding
        jitted static methods) that Triton now refuses. The knob is restored afterwards, so no
        other kernel of this worker is checked with it. Returns the poisoned flag."""
        knobs = getattr(getattr(self.triton, "knobs", None), "compilation", None)
        if knobs is None or not hasattr(knobs, "allow_non_constexpr_globals"):
            return False
        of = row.get("module_checked", "standalone")
        path = ported_path(task, spec)
        if of == "ported":
            port = dict(row["port"])
        else:
            # The module as it was checked, as the ported form: same source, the knob is the port.
            source = checked_source(task, spec, of)
            if source is None:
                return False
            with open(path, "w") as f:
                f.write(source)
            port = {"of": of, "rewrites": [], "source": source}
            row["unported"] = first_verdict(row)
        port["rewrites"] = list(port.get("rewrites") or []) + [
            {"move": "global.object", "old": "a module-level object read inside @triton.jit",
             "new": "allow_non_constexpr_globals", "count": 1}]
        before = knobs.allow_non_constexpr_globals
        knobs.allow_non_constexpr_globals = True
        try:
            return self.check_ported(task, spec, stage, row, path, port)
        finally:
            knobs.allow_non_constexpr_globals = before

    def autotune(self, fn, spec, p, task, stage, row):
        """Every candidate config gets its own result; one that does not fit (shared memory,
        registers) fails alone. A CUDA error poisons the context, so it ends the sweep."""
        results, failures = [], 0
        for cfg in task["configs"]:
            try:
                results.append(self.compile_load_run(fn, spec, p, task, stage, row, cfg))
            except Exception as e:
                failures += 1
                msg = exc_message(e)
                cls = classify(row["stage_reached"], exc_chain(e), msg)
                results.append({"constexprs": _jsonable(cfg.get("constexprs") or {}),
                                "num_warps": cfg.get("num_warps"),
                                "num_stages": cfg.get("num_stages"),
                                "status": "fail", "error_class": cls, "message": trim(msg, 400)})
                if cls == "illegal_address" or failures == len(task["configs"]):
                    raise
        return results

    def import_entry(self, task, spec, module, row):
        """The entry's JITFunction and the module's source. Unguarded imports of libraries this
        machine lacks (`flash_attn` for helpers a constexpr branch may never reach, `triton.ops`
        for an autotuner's perf model) are deferred to their first use, noted in the row. A
        package the bundle carries (lib/) that cannot import here (its compiled extension was
        never built) counts as lacking: the import is tried again without the bundle's packages."""
        try:
            return self._import_entry(task, spec, module, row)
        except ImportError as e:
            if not bundle_libraries.drop(task.get("bundle_dir"), e):
                raise
            row["bundle_libraries_dropped"] = True
            return self._import_entry(task, spec, module, row)

    def _import_entry(self, task, spec, module, row):
        path = os.path.join(task["bundle_dir"], module)
        with open(path) as f:
            source = f.read()
        if spec.get("keyword_splat"):
            # A Triton 1.x `**meta` kernel: its keys become parameters in a copy in the scratch
            # folder (the bundle is never changed).
            source, keys = triton_ports.expand_keyword_splat(source, spec["entry"], spec["keyword_splat"])
            if keys:
                path = os.path.join(os.getcwd(), "expanded_" + os.path.basename(module))
                with open(path, "w") as f:
                    f.write(source)
        modname = "mine_k%d" % spec["id"]
        mspec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(mspec)
        sys.modules[modname] = mod
        placeholders = deferred_imports.install(deferred_imports.missing_imports(source))
        if placeholders:
            row["deferred_imports"] = placeholders
        try:
            mspec.loader.exec_module(mod)
            if not hasattr(mod, spec["entry"]):
                raise MissingEntry("entry %s not found in module" % spec["entry"])
            entry = getattr(mod, spec["entry"])
            self.imported_configs = imported_autotune_configs(entry)
            return unwrap_jit(entry, self.jit_type), source
        finally:
            sys.modules.pop(modname, None)
            deferred_imports.remove(placeholders)

    def compile_shrinking(self, fn, spec, p, task, stage, row):
        """Guessed block sizes can make a block bigger than Triton allows (three 128-wide
        dimensions exceed its 2**20 elements); the guess is at fault, not the kernel, so the
        guessed power-of-two constexprs are halved and the compile retried a few times."""
        grows = 0
        retyped = narrowed = matched = False
        if task.get("grow"):
            # The pool's second try after a fault: buffers whose addresses the kernel's code bounds
            # hold what they reach; every other stand-in buffer grows by a factor.
            reach = p.pop("reach", None) or {}
            reached, used = reach_buffers(p, reach, MAX_SECOND_TRY_BYTES)
            if reached:
                row["reached"] = reached
            # (A buffer grown to its reach now holds it; one the budget left out still does not.)
            rest = [label for _, _, _, n, label in planned_buffers(p)
                    if reach.get(label) is None or reach[label] >= n]
            row["grown"] = grow_buffers(p, rest, task["grow"], MAX_SECOND_TRY_BYTES - used)
        for _ in range(task.get("shrink") or 0):
            # The pool's second try after a compile ran out of time: smaller guessed blocks.
            halve_guessed_blocks(p, row)
        if task.get("config") is not None:
            # Or, for an autotuned kernel, its config of the smallest tiles.
            spec = use_autotune_config(spec, p, task["config"], row)
        while True:
            try:
                return self.compile_load_run(fn, spec, p, task, stage, row, None)
            except Exception as e:
                # `tl.dot` of a half-precision operand and one loaded through a pointer the check
                # had to assume fp32: the kernel dots one type, so the assumed pointers take it.
                if not retyped and self.retype_guessed_pointers(p, exc_message(e), row, spec):
                    retyped = True
                    continue
                # Two block dimensions that must agree (`k` loaded as [BLOCK_N, HEAD_DIM] under a
                # [1, BLOCK_N] mask: a kernel written for HEAD_DIM == BLOCK_N), one of them a stand-in
                # (a constexpr the launch derives from the stand-in sizes, or a guess): the stand-in
                # takes the other's size, once.
                if not matched and self.match_block_sizes(p, exc_message(e), row, spec):
                    matched = True
                    continue
                options = spec.get("options") or {}
                # ptxas `Insufficient registers (64) to compile instruction`: the launch's warps
                # leave each thread too few registers here (num_warps 32 suits Intel's GPUs, not
                # this one). Fewer warps, down to 4, until the instruction compiles.
                if _insufficient_registers(exc_message(e)) and options.get("num_warps", 4) > 4:
                    spec = dict(spec, options=dict(options, num_warps=options["num_warps"] // 2))
                    row["num_warps"] = spec["options"]["num_warps"]
                    continue
                # Software pipelining multiplies a tile's shared memory by num_stages; launch sites
                # tuned for operands narrower than the types the check had to assume (fp8 data
                # typed fp32) overflow it. One stage is the same kernel, unpipelined.
                if _shared_memory(exc_message(e)) and options.get("num_stages", 3) > 1:
                    spec = dict(spec, options=dict(options, num_stages=1))
                    row["num_stages"] = 1
                    continue
                # Still too large unpipelined: the tiles were sized for the half-precision tensors
                # models run with, which the launcher leaves to its caller and the check assumed
                # fp32. Those become bf16, once.
                if _shared_memory(exc_message(e)) and not narrowed and not retyped and \
                        self.retype_assumed(p, "bf16", row, spec):
                    narrowed = True
                    continue
                # Buffer sizes are stand-ins (the launcher's caller decides them): a write past one
                # says the guess was small, not that the kernel is wrong. Those buffers grow.
                grown = grows < MAX_GROWS and isinstance(e, OutOfBoundsWrite) and grow_buffers(p, e.names, GROW_FACTOR)
                if grown:
                    grows += 1
                    row.setdefault("first_try", {"error_class": "illegal_address", "message": trim(exc_message(e), 400)})
                    total = dict(row.get("grown") or {})
                    for n, f in grown.items():
                        total[n] = total.get(n, 1) * f
                    row["grown"] = total
                    continue
                # A mode the check guessed (`CACHE_METHOD = "cont"`, the first literal the kernel
                # compares it with) whose branch does not compile is the guess's fault: the
                # kernel's other modes are tried, one at a time (mode_literals.py).
                if row.get("stage_reached") == "compile" and self.next_mode(p, row, exc_message(e)):
                    continue
                if (row.get("shrunk", 0) == MAX_SHRINKS or not _too_big(exc_message(e)) or
                        not halve_guessed_blocks(p, row)):
                    raise

    @staticmethod
    def next_mode(p, row, message):
        """Sets the next untried mode of p["modes"] (one guessed constexpr moved to another literal
        its kernel compares it with, the others back to their guesses) and records the failure
        that asked for it in row["modes_tried"]; row["mode"] names the mode now checked. False when
        none is left."""
        # String modes first: an integer compared with a literal (`if G == 1:`) is more often a
        # special case than a mode, and the tries are few.
        pairs = [(n, v) for n, vs in (p.get("modes") or {}).items() for v in vs]
        queue = p.setdefault("_mode_queue", sorted(pairs, key=lambda nv: not isinstance(nv[1], (str, type(None))))
                             [:mode_literals.MAX_TRIES])
        if not queue:
            return False
        guesses = p.setdefault("_mode_guesses", {n: p["constexprs"][n] for n in (p.get("modes") or {})})
        current = row.get("mode") or {}
        row.setdefault("modes_tried", []).append(
            {"mode": current or {n: v for n, v in guesses.items()}, "message": trim(message, 300)})
        name, value = queue.pop(0)
        p["constexprs"].update(guesses)
        p["constexprs"][name] = value
        row["mode"] = {name: value}
        return True

    @staticmethod
    def match_block_sizes(p, message, row, spec):
        """After `Cannot make_shape_compatible: incompatible dimensions at index i: a and b`, the
        stand-in constexprs (the bundle's `nominal` and guessed ones) of value a take b, or those of
        b take a; where both sides have some, the smaller value moves to the larger. Recorded in
        row["matched_sizes"]; False when the message names no such sizes or no stand-in has them."""
        stand_ins = set(spec.get("nominal") or []) | set(p["guessed"])
        m = _INCOMPATIBLE_DIMS.search(message)
        if not m:
            return Worker.match_reduction_sizes(p, message, row, stand_ins)
        a, b = int(m.group(1)), int(m.group(2))
        holding = {v: [n for n, x in p["constexprs"].items()
                       if n in stand_ins and type(x) is int and x == v] for v in (a, b)}
        if holding[a] and holding[b]:
            old, new = min(a, b), max(a, b)
        elif holding[a] or holding[b]:
            old, new = (a, b) if holding[a] else (b, a)
        else:
            return False
        for name in holding[old]:
            p["constexprs"][name] = new
        row["matched_sizes"] = {name: new for name in holding[old]}
        return True

    @staticmethod
    def match_reduction_sizes(p, message, row, stand_ins):
        """`tl.dot`'s "input and other must have equal reduction dimensions" names no sizes. A
        kernel that dots a stand-in-sized block with one the launch states (`HEAD_DIM` from the
        stand-in tensors, a weight's block a literal 64) was written for them to be one size: each
        stand-in power-of-two constexpr takes the nearest other size a stated constexpr has (the
        larger on a tie). Recorded in row["matched_sizes"]; False when there is none."""
        if "must have equal reduction dimensions" not in message:
            return False
        stated = sorted({x for n, x in p["constexprs"].items() if n not in stand_ins and launch.power_of_two(x, 16)})
        moved = {}
        for name, x in p["constexprs"].items():
            others = [v for v in stated if v != x]
            if name in stand_ins and launch.power_of_two(x, 16) and others:
                moved[name] = min(others, key=lambda v: (abs(v.bit_length() - x.bit_length()), -v))
        if not moved:
            return False
        p["constexprs"].update(moved)
        row["matched_sizes"] = moved
        return True

    @staticmethod
    def retype_guessed_pointers(p, message, row, spec):
        """Pointers typed `*fp32` only by assumption (guessed, or named in the bundle's
        `assumed_fp32`: a launch tensor whose type the launcher leaves to its caller) become the
        half type a tl.dot's type error names; False when the message is no such error or no
        pointer was assumed fp32."""
        half = launch.dot_partner_type(message)
        return half is not None and Worker.retype_assumed(p, half, row, spec)

    @staticmethod
    def retype_assumed(p, half, row, spec):
        """Pointers typed `*fp32` only by assumption (guessed, or in `assumed_fp32`) become
        `*half`, their stand-in tensors too; recorded in row["retyped"]. False when none was."""
        assumed = set(p["guessed"]) | set(spec.get("assumed_fp32") or [])
        moved = {}
        for i, (name, kind, detail) in enumerate(p["args"]):
            if kind == "tensor" and name in assumed and p["signature"].get(name) == "*fp32":
                p["signature"][name] = "*" + half
                p["args"][i] = (name, kind, (launch.TORCH_DTYPES[half], detail[1]))
                moved[name] = "*" + half
        # A dtype constexpr as open as those pointers (`DTYPE` handed from the caller's tensors)
        # moves with them: `tl.store(bf16_ptr, h.to(DTYPE))` wants the pointers' type.
        to_dtype = HALF_CONSTEXPR.get(half)
        if moved and to_dtype:
            for name, value in p["constexprs"].items():
                if name in assumed and value == "tl.float32":
                    p["constexprs"][name] = to_dtype
                    moved[name] = to_dtype
        if moved:
            row["retyped"] = moved
        return bool(moved)

    def mark(self, stage):
        # The pool reads this when the worker dies, to tell which stage killed it.
        try:
            with open(self.marker, "w") as f:
                f.write(stage)
        except OSError:
            pass

    def as_constexpr(self, value):
        """Bundles are JSON, so a dtype constexpr travels as "tl.float16"; Triton wants the
        dtype object itself (a string has no .scalar and breaks `x.to(DTYPE)`)."""
        name = _dtype_name(value)
        if name is not None:
            dtype = getattr(self.triton.language, name, None)
            if isinstance(dtype, self.triton.language.dtype):
                return dtype
        shape = stand_in_shape(value)
        if shape is not None:
            return self.stand_in_function(*shape)
        layout = gluon_layout(value)
        if layout is not None:
            return layout
        return value

    def source_class(self, fn):
        """Gluon kernels compile from Gluon's own AST source (the GLUON language, TTGIR
        out), as their JIT launcher does; Triton kernels from Triton's."""
        is_gluon = getattr(fn, "is_gluon", None)
        if callable(is_gluon) and is_gluon():
            try:
                from triton.experimental.gluon._runtime import GluonASTSource
                return GluonASTSource
            except ImportError:
                pass
        return self.ASTSource

    def stand_in_function(self, arity, results=1):
        """A constexpr the kernel calls (`acc = ACTIVATION(acc)`) is a jitted function its
        repository hands in; the stand-in returns its first argument, or its first `results`
        arguments (in turn) where the kernel unpacks that many (`dg, du = COMPUTE_FN(g, u, dy)`).
        Triton reads a jitted function's source from its file, so each one is written to a file
        of its own."""
        if (arity, results) not in self._stand_ins:
            # Outlives the task's scratch folder: the worker keeps the function for later kernels.
            self._stand_in_dir = self._stand_in_dir or tempfile.mkdtemp(prefix="mine-stand-in-")
            name, source = stand_in_source(arity, results)
            path = os.path.join(self._stand_in_dir, name + ".py")
            with open(path, "w") as f:
                f.write(source)
            spec = importlib.util.spec_from_file_location("mine_stand_in_" + name, path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            self._stand_ins[(arity, results)] = getattr(module, name)
        return self._stand_ins[(arity, results)]

    def input_tensor(self, dtype_name, shape, generator):
        """A fresh input: uniform values for floating types of two bytes or more, else zeros
        (they keep gathered indices in bounds and make masks and bools harmless)."""
        torch = self.torch
        dtype = getattr(torch, dtype_name)
        if dtype.is_floating_point and dtype.itemsize >= 2:
            return torch.rand(shape, device="cuda", dtype=dtype, generator=generator)
        return torch.zeros(shape, device="cuda", dtype=dtype)

    def guarded_input(self, label, dtype_name, n, generator, guarded):
        """An input of n elements followed by its guard zone, noted in `guarded` under `label`."""
        whole = guard_zone(self.torch, self.input_tensor(dtype_name, n, generator))
        guarded.append((label, whole, n))
        return whole[:n]

    def descriptor(self, detail, generator):
        """A host-side TensorDescriptor (Triton 3.4+) over a fresh contiguous tensor."""
        from triton.tools.tensor_descriptor import TensorDescriptor
        block = detail[1]
        t = self.input_tensor(detail[0], launch.descriptor_shape(block), generator)
        return TensorDescriptor(t, list(t.shape), list(t.stride()), list(block))

    def compile_load_run(self, fn, spec, p, task, stage, row, cfg):
        """One compile (+load, +run) of fn; cfg overrides constexprs/options for --autotune."""
        constexprs = {k: self.as_constexpr(v) for k, v in p["constexprs"].items()}
        options = {k: v for k, v in (spec.get("options") or {}).items()
                   if k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
        if cfg:
            constexprs.update({k: self.as_constexpr(v) for k, v in (cfg.get("constexprs") or {}).items()})
            options.update({k: cfg[k] for k in ("num_warps", "num_stages") if k in cfg})
        names = list(p["signature"])
        ckeys = {(names.index(k),): v for k, v in constexprs.items()}
        attrs = {}
        for name, a in p.get("attrs", spec.get("attrs") or {}).items():
            if name in names:
                attrs[(names.index(name),)] = [list(x) for x in a]
        src = self.source_class(fn)(fn, launch.signature_for_triton(p["signature"]), ckeys, attrs)
        target = self.GPUTarget("cuda", parse_arch(task["arch"]), 32)
        row["stage_reached"] = "compile"
        self.mark("compile")
        t0 = time.perf_counter()
        ck = self.triton.compile(src, target=target, options=options)
        compile_ms = (time.perf_counter() - t0) * 1000.0
        res = {"constexprs": _jsonable(constexprs), "options": options, "status": "ok",
               "compile_ms": round(compile_ms, 2)}
        row["compile_ms"] = res["compile_ms"]
        meta = ck.metadata
        row["shared_bytes"] = getattr(meta, "shared", None)
        if STAGE_ORDER.index(stage) < STAGE_ORDER.index("load"):
            return res
        row["stage_reached"] = "load"
        self.mark("load")
        ck._init_handles()
        row["n_regs"], row["n_spills"] = ck.n_regs, ck.n_spills
        res.update(n_regs=ck.n_regs, n_spills=ck.n_spills)
        if STAGE_ORDER.index(stage) < STAGE_ORDER.index("run"):
            return res
        row["stage_reached"] = "run"
        self.mark("run")
        torch = self.torch
        args = []
        # The same inputs for a kernel in every run and on every worker: a result depends on the
        # kernel and its launch, not on the noise it was handed.
        generator = torch.Generator(device="cuda").manual_seed(0)
        guarded = []
        tables = set(spec.get("pointer_tables") or [])
        # What the addresses in pointer tables point at, alive until the run ends: one buffer per
        # table. Tables of peers' data buffers and of their signal pads (symmetric memory) must
        # not alias: data written through one would land in the signal slots another spins on.
        scratch = []
        buffers = []  # alive while the kernel runs: only their addresses are arguments
        for name, kind, detail in p["args"]:
            if kind == "tensor":
                t = self.guarded_input(name, detail[0], detail[1], generator, guarded)
                if name in tables and t.element_size() == 8:
                    scratch.append(torch.zeros(POINTER_TARGET_BYTES, dtype=torch.uint8, device="cuda"))
                    fill_addresses(torch, t, scratch[-1])
                args.append(t)
            elif kind == "address":  # an integer the kernel casts to a pointer: a buffer's address
                buffers.append(self.guarded_input(name, detail[0], detail[1], generator, guarded))
                args.append(buffers[-1].data_ptr())
            elif kind == "descriptor":
                args.append(self.descriptor(detail, generator))
            elif kind == "tuple":
                args.append(tuple(
                    self.guarded_input("%s[%d]" % (name, j), value[0], value[1], generator, guarded)
                    if element_kind == "tensor" else value
                    for j, (element_kind, value) in enumerate(detail)))
            elif kind == "constexpr":
                args.append(constexprs[name])
            else:
                args.append(detail)
        grid = tuple(p["grid"])
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        ck[grid](*args)
        torch.cuda.synchronize()
        row["run_ms"] = round((time.perf_counter() - t0) * 1000.0, 3)
        check_guard_zones(torch, guarded)
        del scratch, buffers
        res["run_ms"] = row["run_ms"]
        if cfg is not None and task.get("bench"):
            from triton.testing import do_bench
            res["bench_ms"] = do_bench(lambda: ck[grid](*args), return_mode="median")
        del args
        return res


GLUON_LAYOUT = re.compile(r"\$gluon:[A-Za-z]+Layout\(.*\)\Z", re.S)


def gluon_layout(value):
    """A Gluon layout a launcher builds (`"$gluon:BlockedLayout([1], [32], [4], [0])"`): the
    layout object, from Gluon's own constructors and the literal arguments the text holds (parsed
    as Python literals, never run); None for any other value."""
    if not isinstance(value, str) or not GLUON_LAYOUT.match(value):
        return None
    try:
        from triton.experimental.gluon import language as gl
        return _layout_argument(gl, ast.parse(value[len("$gluon:"):], mode="eval").body)
    except Exception:  # an older Triton without Gluon, or a layout it does not know
        return None


def _layout_argument(gl, node):
    """A layout call (`SliceLayout(1, BlockedLayout(...))`, nested ones too), or a literal."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith("Layout"):
        return getattr(gl, node.func.id)(*[_layout_argument(gl, a) for a in node.args],
                                          **{k.arg: _layout_argument(gl, k.value) for k in node.keywords})
    return ast.literal_eval(node)


def ported_path(task, spec):
    """Where a port of the kernel's module is written: its task's scratch folder."""
    return os.path.join(task["scratch"], "ported_%d.py" % spec["id"])


def checked_source(task, spec, of):
    """The text of the module a check read (`of`: standalone or kernel_only), None if unreadable."""
    name = spec["kernel_only_module"] if of == "kernel_only" else spec["module"]
    try:
        with open(os.path.join(task["bundle_dir"], name)) as f:
            return f.read()
    except OSError:
        return None


def first_verdict(row):
    """What a row said before a retry on a ported module: the row's `unported`."""
    return {k: row.get(k) for k in ("stage_reached", "status", "error_class", "message", "module_checked")}


MAX_SHRINKS = 3
_INCOMPATIBLE_DIMS = re.compile(r"incompatible dimensions at index \d+: (\d+) and (\d+)")
# The dtype constexpr that goes with pointers retyped to a half type.
HALF_CONSTEXPR = {"bf16": "tl.bfloat16", "fp16": "tl.float16"}
GUARD_BYTE = 0xA5
# The buffer every address in a pointer table points at (peer and symmetric-memory pointers of
# one GPU): large enough for a rank's row at stand-in strides.
POINTER_TARGET_BYTES = 256 << 20


def fill_addresses(torch, table, target):
    """Every entry of `table` (64-bit elements; the kernel casts what it loads from it to a
    pointer) becomes the address of `target`, so those pointers lead to memory the check owns
    instead of to address 0."""
    table.view(torch.int64).fill_(target.data_ptr())
MIN_GUARD_ELEMENTS = 16384


def guard_byte(dtype):
    """GUARD_BYTE for floating buffers; 0 for integer and bool ones, whose inputs are zeros: a
    kernel that reads sequence offsets or indices a little past a stand-in buffer then reads the
    same zeros as inside it, not 0xA5A5A5A5, which it would use as an offset far out of bounds.
    (A zero written past such a buffer goes unseen; any other value is caught.)"""
    return GUARD_BYTE if dtype.is_floating_point else 0


def guard_zone(torch, data):
    """`data` followed by a guard zone as large again (at least MIN_GUARD_ELEMENTS) filled with
    guard_byte, in one allocation. Sizes and strides come from stand-in shapes, so kernels often
    read a little past the end of what their repository would hand them; whether that faulted
    used to depend on what else the worker had allocated, so the same kernel passed in one run
    and failed in the next. Reads there are harmless now; writes there are caught below."""
    n = data.numel()
    whole = torch.empty(n + max(n, MIN_GUARD_ELEMENTS), device=data.device, dtype=data.dtype)
    whole[:n].copy_(data)
    whole.view(torch.uint8)[n * data.element_size():].fill_(guard_byte(data.dtype))
    return whole


def check_guard_zones(torch, guarded):
    """Raises naming every buffer whose guard zone the kernel wrote into."""
    hit = []
    for name, whole, n in guarded:
        zone = whole.view(torch.uint8)[n * whole.element_size():]
        changed = int((zone != guard_byte(whole.dtype)).sum().item())
        if changed:
            hit.append((name, changed, n))
    if hit:
        name, changed, n = hit[0]
        raise OutOfBoundsWrite("illegal address: the kernel wrote past the end of %r (%d bytes of the "
                               "guard zone after its %d elements changed)%s"
                               % (name, changed, n, "" if len(hit) == 1 else
                                  " and of %s" % ", ".join(repr(h[0]) for h in hit[1:])),
                               [h[0] for h in hit])


# A buffer grows by this factor per try, to at most MAX_GROWN_ELEMS elements, and all the growth of
# one kernel stays under MAX_GROWN_BYTES (twice that with guard zones): sixteen workers share one
# GPU, and kernels that fit must not run out of memory because a neighbour grew.
GROW_FACTOR = 16
MAX_GROWS = 2
MAX_GROWN_ELEMS = 1 << 26
MAX_GROWN_BYTES = 1 << 30
# The pool's second tries run four at a time, after everything else: more room.
MAX_SECOND_TRY_BYTES = 4 << 30


def kernel_reach(source, entry, p):
    """{pointer: highest element offset} of the plan's kernel at its launch values and grid
    (offset_reach.py); {} when its code cannot be read."""
    values = {n: v for n, kind, v in p["args"] if kind == "scalar"}
    values.update(p["constexprs"])
    grid = [g if isinstance(g, int) else 1 for g in p["grid"]]
    try:
        return offset_reach.reach(source, entry, values, grid) or {}
    except (SyntaxError, RecursionError, ValueError, TypeError, ZeroDivisionError):
        return {}


def planned_buffers(p):
    """The plan's input buffers: (arg index, element index or None, dtype, elements, label), a
    tuple's element labelled "t[1]"."""
    planned = []
    for i, (name, kind, detail) in enumerate(p["args"]):
        if kind in ("tensor", "address"):
            planned.append((i, None, detail[0], detail[1], name))
        elif kind == "tuple":
            for j, (element_kind, value) in enumerate(detail):
                if element_kind == "tensor":
                    planned.append((i, j, value[0], value[1], "%s[%d]" % (name, j)))
    return planned


def reach_buffers(p, reach, budget):
    """Grows each input buffer of the plan that a bounded address reaches past (reach: {name:
    highest element offset or None}) to hold what it reaches, smallest growth first, while the
    growth stays within `budget` bytes. Returns ({name: elements}, bytes added)."""
    wanted = []
    for i, j, dtype, n, label in planned_buffers(p):
        if j is None and isinstance(reach.get(label), int) and reach[label] >= n:
            wanted.append(((reach[label] + 1 - n) * ITEM_BYTES.get(dtype, 4), i, reach[label] + 1))
    reached, used = {}, 0
    for extra, i, n in sorted(wanted):
        if used + extra > budget:
            break
        name, kind, detail = p["args"][i]
        p["args"][i] = (name, kind, (detail[0], n))
        reached[name] = n
        used += extra
    return reached, used


def grow_buffers(p, names, factor, budget=MAX_GROWN_BYTES):
    """Multiplies the element count of the plan's input buffers named in `names` (a tuple's
    element as "t[1]"; None: all of them) by `factor`, or the largest power of two below it that
    keeps their growth within `budget` bytes and each buffer within MAX_GROWN_ELEMS. Returns
    {name: factor} of the buffers that grew."""
    chosen = [x for x in planned_buffers(p) if names is None or x[4] in names]

    def bigger(n, f):
        return min(n * f, max(n, MAX_GROWN_ELEMS))
    while factor > 1:
        extra = sum((bigger(n, factor) - n) * ITEM_BYTES.get(d, 4) for _, _, d, n, _ in chosen)
        if extra <= budget:
            break
        factor //= 2
    if not chosen or factor <= 1 or extra <= 0:
        return {}
    for i, j, dtype, n, _ in chosen:
        name, kind, detail = p["args"][i]
        if j is None:
            p["args"][i] = (name, kind, (dtype, bigger(n, factor)))
        else:
            elements = list(detail)
            elements[j] = ("tensor", (dtype, bigger(n, factor)))
            p["args"][i] = (name, kind, elements)
    return {x[4]: factor for x in chosen}


ITEM_BYTES = {"float64": 8, "int64": 8, "uint64": 8, "float32": 4, "int32": 4, "uint32": 4,
              "float16": 2, "bfloat16": 2, "int16": 2, "uint16": 2}


class OutOfBoundsWrite(RuntimeError):
    def __init__(self, message, names=()):
        super().__init__(message)
        self.names = list(names)


_DTYPE_TEXT = re.compile(r"^(?:tl|triton\.language)\.([A-Za-z0-9_]+)$")


def stand_in_shape(value):
    """(N, R) for the bundle's "$jit:first/N" (R = 1) or "$jit:first/N/R" (a constexpr the kernel
    calls with N arguments and whose result it unpacks into R names), else None."""
    if not isinstance(value, str) or not value.startswith("$jit:first/"):
        return None
    parts = value[11:].split("/")
    if not 1 <= len(parts) <= 2 or not all(p.isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1]) if len(parts) == 2 else 1


def stand_in_source(arity, results):
    """(function name, module source) of the stand-in for a called constexpr."""
    params = ["a%d" % i for i in range(max(arity, 1))]
    returned = ", ".join(params[i % len(params)] for i in range(max(results, 1)))
    name = "first_of_%d" % arity + ("_as_%d" % results if results > 1 else "")
    return name, "import triton\n\n\n@triton.jit\ndef %s(%s):\n    return %s\n" % (name, ", ".join(params), returned)


def _dtype_name(value):
    m = _DTYPE_TEXT.match(value) if isinstance(value, str) else None
    return m.group(1) if m else None


def use_autotune_config(spec, p, index, row):
    """The spec and plan with autotune config `index`'s constexprs and options in place of the
    first config's, noted in the row (`config`); the spec unchanged where there is no such config."""
    configs = spec.get("autotune") or []
    if not 0 <= index < len(configs) or not isinstance(configs[index], dict):
        return spec
    config = configs[index]
    for name, value in (config.get("constexprs") or {}).items():
        if name in p["constexprs"]:
            p["constexprs"][name] = value
    options = dict(spec.get("options") or {})
    options.update({k: config[k] for k in ("num_warps", "num_stages") if config.get(k) is not None})
    row["config"] = index
    row["constexprs"] = _jsonable(p["constexprs"])
    return dict(spec, options=options)


def imported_autotune_configs(entry):
    """The configs of the autotuner `entry` is (or wraps), as the import built them:
    [{constexprs, num_warps, num_stages}], constexprs of plain values only; None when it is not
    autotuned. Configs made by the module's own code (`configs=get_configs()`, a loop over
    block sizes with conditions) are read here where mine could not read them statically."""
    for obj in fn_chain(entry):
        configs = getattr(obj, "configs", None)
        if isinstance(configs, (list, tuple)) and configs and all(hasattr(c, "kwargs") for c in configs):
            out = []
            for c in configs:
                kwargs = c.kwargs if isinstance(c.kwargs, dict) else {}
                out.append({"constexprs": {k: v for k, v in kwargs.items()
                                           if isinstance(v, (int, float, str, bool)) and isinstance(k, str)},
                            "num_warps": getattr(c, "num_warps", None),
                            "num_stages": getattr(c, "num_stages", None)})
            return out
    return None


def use_imported_config(spec, p, configs, row):
    """Where mine could not read an autotuned kernel's configs (the entry has no `autotune`), the
    first config the import built gives the constexprs mine only guessed, and its options where
    the entry states none, noted in the row (`imported_config`). Values the launch site gave stay.
    The spec unchanged where nothing applies."""
    if not configs or spec.get("autotune"):
        return spec
    first = configs[0]
    taken = {n: v for n, v in first["constexprs"].items() if n in p["constexprs"] and n in p["guessed"]}
    options = dict(spec.get("options") or {})
    for k in ("num_warps", "num_stages"):
        if first.get(k) is not None and k not in options:
            options[k] = first[k]
    if not taken and options == (spec.get("options") or {}):
        return spec
    p["constexprs"].update(taken)
    p["guessed"] = [n for n in p["guessed"] if n not in taken]
    row["imported_config"] = dict(first, constexprs=_jsonable(taken), count=len(configs))
    return dict(spec, options=options)


def halve_guessed_blocks(p, row):
    """Halves the plan's guessed power-of-two constexprs of 32 or more, noting in the row how often
    (`shrunk`) and the values now planned; False when there is none to halve."""
    shrinkable = [n for n in p["guessed"] if launch.power_of_two(p["constexprs"].get(n), 32)]
    for n in shrinkable:
        p["constexprs"][n] //= 2
    if shrinkable:
        row["shrunk"] = row.get("shrunk", 0) + 1
        row["constexprs"] = _jsonable(p["constexprs"])
    return bool(shrinkable)


def _insufficient_registers(message):
    return "Insufficient registers" in message


def _shared_memory(message):
    return "out of resource: shared memory" in message


def _too_big(message):
    return "exceeds triton maximum tensor numel" in message or "out of resource: shared memory" in message


def _jsonable(d):
    out = {}
    for k, v in d.items():
        out[k] = v if isinstance(v, (int, float, str, bool)) or v is None else repr(v)
    return out


def _tail_tb(e):
    """The last frames where the error was raised: of the innermost cause that has frames, since
    a CompilationError's own frames are the compiler's entry, the same for every kernel."""
    inner = e
    for x in _causes(e):
        if x.__traceback__ is not None:
            inner = x
    frames = traceback.extract_tb(inner.__traceback__)[-3:]
    return "".join(traceback.format_list(frames)).rstrip()


def main():
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    want_gpu = os.environ.get("MINE_WANT_GPU") == "1"
    try:
        # Order matters (privileges.py, cgroups.py): the cgroup first, so everything the worker
        # starts counts; the GPU while still root; the drop before any mined code is imported;
        # RLIMIT_NPROC after it, counted for the new uid.
        cg, cg_why = cgroups.join_from_env()
        memory = apply_limits()
        w = Worker(want_gpu)
        identity = privileges.drop_from_env()
        if "pids.max" in cg:
            procs = "cgroup pids.max %s" % cg["pids.max"]
        else:
            procs = sandbox.limit_processes(int(os.environ.get("MINE_MAX_PROCS", "0") or 0),
                                            int(os.environ.get("MINE_NPROC_LIMIT", "0") or 0))
        if "memory.max" in cg:
            memory.append("cgroup memory.max %s" % cg["memory.max"])
        elif os.environ.get("MINE_MEM_LIMIT_MB", "0") not in ("", "0"):
            memory.append("rss watchdog")
        confined = confine_writes()
        # After the worker's own set-up (torch's allocator, Triton's), before any mined module.
        state = shared_state.SharedState(w.triton) if hasattr(w, "triton") else None
    except BaseException as e:
        proto.write(json.dumps({"ready": False, "message": trim(exc_message(e))}) + "\n")
        return 3
    sandbox_said = {"writes": confined, "processes": procs, "identity": identity,
                    "memory": ", ".join(memory) or "none",
                    "cgroup": "joined" if cg else "none (%s)" % cg_why}
    proto.write(json.dumps({"ready": True, "versions": w.versions, "pid": os.getpid(),
                            "sandbox": sandbox_said}) + "\n")
    me = os.getpid()
    for line in sys.stdin:
        if not line.strip():
            continue
        task = json.loads(line)
        row = w.run_task(task)
        restored = state.restore() if state is not None and os.getpid() == me else []
        if restored:
            row["restored_shared_state"] = restored
        if os.getpid() != me:
            # A kernel's fork that raised instead of exiting (a fork bomb's child refused by
            # the process cap) unwound into this loop: it must neither answer nor take tasks.
            os._exit(1)
        proto.write(json.dumps(row) + "\n")
        if row.get("recycle"):
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
