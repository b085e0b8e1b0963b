"""The worker pool: one warm worker process per slot, each in its own session (process
group), fed one task at a time. The parent never imports Triton or torch, so nothing a kernel
does can take the batch down; it only reads the worker's answers, its exit status and /proc.
"""
import ctypes
import itertools
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

import cgroups
import launch
from classify import classify, signal_name, trim

HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(HERE, "worker.py")
READY_TIMEOUT_S = 300
POLL_S = 0.1
# How much larger every buffer is on the second try of a kernel that faulted (worker.grow_buffers).
GROW_ON_FAULT = 16
# How often guessed block sizes are halved before the second compile of a kernel that timed out.
SHRINK_ON_TIMEOUT = 2
# Second tries run at most this many at a time (GPU memory for grown buffers).
SECOND_TRY_JOBS = 4


def rss_bytes(pid):
    try:
        with open("/proc/%d/statm" % pid) as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def group_rss_bytes(pgid):
    """RSS of every process in the worker's group: os.system children count too."""
    total = 0
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return 0
    for pid in pids:
        try:
            if os.getpgid(pid) == pgid:
                total += rss_bytes(pid)
        except OSError:
            continue
    return total


_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Orphans of our workers' kernels (a daemon that called setsid, a fork bomb's children)
    reparent to us instead of init, where sweep_strays can find and kill them."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def parents():
    """{pid: parent pid} of every process now."""
    out = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % p) as f:
                out[int(p)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return out


def sweep_strays(keep, rounds=100):
    """SIGKILL every child of ours not in `keep` (live workers) and everything below it, until
    none is left; reaps them. Returns how many were killed. The pool must therefore be the only
    thing in its process that starts children (run_bundle.py is)."""
    me, killed = os.getpid(), set()
    for _ in range(rounds):
        tree = parents()
        strays = [p for p, pp in tree.items() if pp == me and p not in keep]
        if not strays:
            break
        below = {}
        for p, pp in tree.items():
            below.setdefault(pp, []).append(p)
        doomed, stack = set(), list(strays)
        while stack:
            p = stack.pop()
            if p not in doomed:
                doomed.add(p)
                stack.extend(below.get(p, ()))
        for p in doomed:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        killed |= doomed
        time.sleep(0.01)
        for p in strays:
            try:
                os.waitpid(p, os.WNOHANG)
            except OSError:
                pass
    return len(killed)


class WorkerProc:
    def __init__(self, env, log_path, cgroup=None):
        # Truncated per spawn so a crash message shows this worker's last words only.
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen([sys.executable, WORKER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log, env=env,
                                     start_new_session=True, cwd=HERE)
        self.buf = b""
        self.log_path = log_path
        self.cgroup = cgroup  # its own cgroup v2 (cgroups.py), or None
        self.versions = {}

    def kill(self):
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        if self.cgroup:
            # cgroup.kill also ends what left the process group (setsid daemons).
            cgroups.Tree.remove(self.cgroup)
            self.cgroup = None
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        self.log.close()

    def read_line(self, deadline, mem_limit, group_poll_every=10):
        """Return (line, None) or (None, reason) with reason in timeout|eof|memory."""
        fd = self.proc.stdout.fileno()
        ticks = 0
        while b"\n" not in self.buf:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return None, "timeout"
            wait = POLL_S if deadline is None else min(POLL_S, deadline - now)
            r, _, _ = select.select([fd], [], [], wait)
            if r:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return None, "eof"
                self.buf += chunk
            elif mem_limit:
                ticks += 1
                used = rss_bytes(self.proc.pid)
                if ticks % group_poll_every == 0:
                    used = max(used, group_rss_bytes(self.proc.pid))
                if used > mem_limit:
                    return None, "memory"
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8", "replace"), None

    def log_tail(self, n=1500):
        try:
            with open(self.log_path, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - n))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""


class Pool:
    def __init__(self, jobs, devices, work_dir, worker_env, timeout_s, mem_limit_mb,
                 max_tasks_per_worker=500, on_row=None, cgroup_tree=None, max_procs=0):
        self.jobs, self.devices, self.work_dir = jobs, devices, work_dir
        self.worker_env, self.timeout_s = worker_env, timeout_s
        self.mem_limit = (mem_limit_mb << 20) if mem_limit_mb else 0
        self.max_tasks = max_tasks_per_worker
        self.on_row = on_row
        # With a cgroup per worker, memory.max replaces the RSS watchdog and pids.max caps
        # processes (cgroups.py); the worker's own RLIMIT_DATA stays.
        self.cgroup_tree, self.max_procs = cgroup_tree, max_procs
        self.cgroup_serial = itertools.count()
        self.watchdog = self.mem_limit if not (cgroup_tree and "memory" in cgroup_tree.controllers) else 0
        self.lock = threading.Lock()
        self.spawns = 0
        self.sandbox = None  # what the workers said they could confine
        self.strays_killed = 0
        self.live_pids = set()
        # Held while a worker is forked and registered, and while strays are swept, so a sweep
        # never mistakes a worker being born for a stray.
        self.spawn_lock = threading.Lock()
        self.subreaper = become_subreaper()

    def sweep(self):
        if not self.subreaper:
            return
        with self.spawn_lock:
            n = sweep_strays(set(self.live_pids))
        if n:
            with self.lock:
                self.strays_killed += n

    def _spawn(self, slot):
        env = dict(os.environ)
        env.update(self.worker_env)
        if self.devices is not None:
            env["CUDA_VISIBLE_DEVICES"] = str(self.devices[slot % len(self.devices)])
        if self.mem_limit:
            env["MINE_MEM_LIMIT_MB"] = str(self.mem_limit >> 20)
        log = os.path.join(self.work_dir, "worker%d.log" % slot)
        cgroup = None
        if self.cgroup_tree:
            try:
                cgroup = self.cgroup_tree.make("w%d-%d" % (slot, next(self.cgroup_serial)),
                                               self.max_procs, self.mem_limit)
            except OSError as e:
                raise RuntimeError("cannot make the worker's cgroup: %s" % e)
            env["MINE_CGROUP"] = cgroup
        with self.spawn_lock:
            w = WorkerProc(env, log, cgroup)
            self.live_pids.add(w.proc.pid)
        line, why = w.read_line(time.monotonic() + READY_TIMEOUT_S, 0)
        with self.lock:
            self.spawns += 1
        if line is None:
            tail = w.log_tail()
            w.kill()
            raise RuntimeError("worker did not start (%s): %s" % (why, tail))
        msg = json.loads(line)
        if not msg.get("ready"):
            w.kill()
            raise RuntimeError("worker did not start: %s" % msg.get("message"))
        w.versions = msg.get("versions") or {}
        with self.lock:
            self.sandbox = msg.get("sandbox")
        return w

    def run(self, tasks):
        self.second_tries = []
        self._run_queue([(t, None) for t in tasks], self.jobs)
        # Second tries run after everything else, fewer at a time: grown buffers take GPU memory
        # that kernels running beside them would otherwise miss.
        retries, self.second_tries = self.second_tries, []
        if retries:
            self._run_queue(retries, min(self.jobs, SECOND_TRY_JOBS))
        self.sweep()

    def _run_queue(self, items, jobs):
        queue = list(reversed(items))
        threads = [threading.Thread(target=self._slot, args=(i, queue), daemon=True)
                   for i in range(min(jobs, len(items)) or 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()

    def _next(self, queue):
        with self.lock:
            return queue.pop() if queue else None

    def _slot(self, slot, queue):
        w, done, start_failures = None, 0, 0
        while True:
            item = self._next(queue)
            if item is None:
                break
            task, first = item  # first: the row of the first try, for a second try
            if w is None:
                try:
                    w = self._spawn(slot)
                    done = 0
                except RuntimeError as e:
                    start_failures += 1
                    self._emit(task, first or self._fail_row(task, "worker_start", "other", str(e)), {})
                    if start_failures >= 3:
                        # A worker that cannot start will not start for later tasks either.
                        while True:
                            t = self._next(queue)
                            if t is None:
                                break
                            self._emit(t[0], t[1] or self._fail_row(t[0], "worker_start", "other", str(e)), {})
                        return
                    continue
            start_failures = 0
            deferred = False
            try:
                row, w_ok = self._one(w, task)
                if first is not None:
                    row = self._after_retry(first, row)
                else:
                    change = self._second_try(task, row)
                    if change:
                        with self.lock:
                            self.second_tries.append((dict(task, **change), row))
                        deferred = True
            except Exception as e:  # a harness bug must cost one row, not the slot's queue
                row, w_ok = first or self._fail_row(task, "import", "other", "harness error: %r" % e), False
            if not deferred:
                self._emit(task, row, w.versions, w.proc.pid, slot)
            done += 1
            if not w_ok or done >= self.max_tasks:
                self._retire(w)
                w = None
            self.sweep()
        if w is not None:
            try:
                w.proc.stdin.close()
                w.proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                pass
            self._retire(w)

    @staticmethod
    def _second_try(task, row):
        """What a Triton kernel's one more try changes, or None. The first try's failure may be
        the guesses' fault, not the kernel's:
        - a fault at run time on buffers sized from stand-in shapes: every buffer grows
          (worker.grow_buffers);
        - a compile that ran out of time with guessed block sizes (128-wide fp32 tiles of a
          backward kernel spill until ptxas takes minutes): the guessed sizes are quartered;
        - one that ran out of time with the first of its autotune configs (Mamba's 256x256 tiles
          on four warps): the config of the smallest tiles, which the autotuner tries as well."""
        spec = task.get("spec") or {}
        if (row.get("status") != "fail" or spec.get("language", "triton") != "triton" or
                task.get("grow") or task.get("shrink") or task.get("config") is not None):
            return None
        if (row.get("error_class") == "illegal_address" and row.get("stage_reached") == "run" and
                task.get("stage") == "run"):
            return {"grow": GROW_ON_FAULT}
        guessed = set(spec.get("guessed") or [])
        blocks = [v for n, v in (spec.get("constexprs") or {}).items() if n in guessed and launch.power_of_two(v, 64)]
        stage = row.get("stage_reached")
        if stage == "unknown":  # the worker was killed: its scratch folder says how far it got
            stage = Pool._last_stage_hint(task)
        if row.get("error_class") == "timeout" and stage == "compile" and blocks:
            return {"shrink": SHRINK_ON_TIMEOUT}
        if row.get("error_class") == "timeout" and stage == "compile":
            smallest = Pool._smallest_config(spec.get("autotune") or [])
            if smallest:
                return {"config": smallest}
        return None

    @staticmethod
    def _smallest_config(configs):
        """Index of the autotune config whose integer constexprs multiply to the least (fewer
        stages, then warps, on a tie); None where that is the first, which ran already."""
        def size(i):
            c = configs[i] if isinstance(configs[i], dict) else {}
            product = 1
            for v in (c.get("constexprs") or {}).values():
                if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                    product *= v
            return (product, c.get("num_stages") or 0, c.get("num_warps") or 0, i)
        if len(configs) < 2:
            return None
        best = min(range(len(configs)), key=size)
        return best if size(best)[:3] < size(0)[:3] else None

    @staticmethod
    def _after_retry(first, retry):
        """The row to report: the retry's when it passed (with the first outcome kept), else the
        first one, which ran on the buffers as planned."""
        first_try = {k: first.get(k) for k in ("error_class", "message")}
        if retry.get("status") == "ok":
            retry["first_try"] = first_try
            return retry
        first["grown_retry"] = {k: retry.get(k) for k in ("status", "error_class", "message")}
        return first

    def _retire(self, w):
        w.kill()
        with self.spawn_lock:
            self.live_pids.discard(w.proc.pid)

    def _one(self, w, task):
        """Run one task on w; returns (row, worker_still_usable)."""
        t0 = time.monotonic()
        try:
            w.proc.stdin.write((json.dumps(task) + "\n").encode())
            w.proc.stdin.flush()
        except OSError as e:
            return self._fail_row(task, "import", "crash", "worker pipe closed: %s" % e), False
        line, why = w.read_line(t0 + self.timeout_s, self.watchdog)
        wall_ms = round((time.monotonic() - t0) * 1000.0, 1)
        if line is not None:
            try:
                row = json.loads(line)
            except ValueError:
                return self._fail_row(task, "import", "crash",
                                      "garbled worker answer: %s" % line[:200]), False
            row["wall_ms"] = wall_ms
            return row, not row.pop("recycle", False)
        if why == "timeout":
            w.kill()
            row = self._fail_row(task, "unknown", "timeout",
                                 "no result after %ss; process group killed\n%s"
                                 % (self.timeout_s, w.log_tail(600)))
        elif why == "memory":
            w.kill()
            row = self._fail_row(task, "unknown", "resource_limit",
                                 "host memory limit exceeded (%d MiB RSS); process group killed"
                                 % (self.mem_limit >> 20))
        else:
            try:
                rc = w.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                rc = None
            oom = cgroups.Tree.oom_kills(w.cgroup) if w.cgroup else 0
            w.kill()
            if oom:
                row = self._fail_row(task, "unknown", "resource_limit",
                                     "host memory limit exceeded (cgroup memory.max %d MiB); the "
                                     "worker's cgroup was killed" % (self.mem_limit >> 20))
                row["wall_ms"] = wall_ms
                return row, False
            if rc is not None and rc < 0:
                how = "killed by %s" % signal_name(-rc)
                cls = classify("unknown", (), "", signal_no=-rc)
            else:
                how = "exited with status %s" % rc
                cls = classify("unknown", (), "", exit_code=rc if rc is not None else -1)
            row = self._fail_row(task, "unknown", cls,
                                 "worker %s without a result\n%s" % (how, w.log_tail(800)))
        row["wall_ms"] = wall_ms
        return row, False

    @staticmethod
    def _fail_row(task, stage, cls, message):
        spec = task["spec"]
        return {"id": spec["id"], "entry": spec.get("entry"),
                "stage_requested": task["stage"], "stage_reached": stage,
                "status": "fail", "error_class": cls, "message": trim(message),
                "compile_ms": None, "n_regs": None, "n_spills": None, "shared_bytes": None,
                "run_ms": None, "arch": task.get("arch")}

    def _emit(self, task, row, versions, pid=None, slot=None):
        for k, v in versions.items():
            row.setdefault(k, v)
        target = (task.get("spec") or {}).get("target")
        if target:
            # Written for another accelerator (bundle.json says which): a failure here is no
            # verdict on the kernel where it is meant to run.
            row["target"] = target.get("backend")
        if row.get("stage_reached") == "unknown":
            row["stage_reached"] = self._last_stage_hint(task)
            self._eager_from_stage(task, row)
        if self.devices is not None and slot is not None:
            row["device"] = self.devices[slot % len(self.devices)]
        row["worker_pid"] = pid
        if self.on_row:
            self.on_row(row)

    @staticmethod
    def _eager_from_stage(task, row):
        """A PyTorch module whose worker was killed (a compile past the timeout, a crash) after
        its eager run: the inductor stage marks "run" only once the eager forward passed
        (inductor_stage.run), so the row says the module ran eagerly and stopped compiling."""
        if ((task.get("spec") or {}).get("language") == "torch_module" and row.get("stage_reached") == "run"
                and "inductor" not in row):
            row["checker"] = "inductor"
            row["inductor"] = {"phase": "compile", "eager_ok": True, "compiled_ok": False, "match": False,
                               "deduce": [], "deferred_imports": []}

    @staticmethod
    def _last_stage_hint(task):
        # A worker that died took its progress with it; the scratch dir tells how far it got.
        marker = os.path.join(task["scratch"], ".stage")
        try:
            with open(marker) as f:
                return f.read().strip() or "import"
        except OSError:
            return "import"
