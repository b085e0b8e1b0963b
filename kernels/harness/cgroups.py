"""A cgroup v2 per worker, where the machine lets this process make them: `pids.max` caps every
process and thread a worker and its kernels start (exactly, per worker, and for root as well),
and `memory.max` caps the memory they charge, replacing the pool's resident-memory watchdog.
`memory.oom.group` makes an out-of-memory kill take the whole worker down, so it is one clear
`resource_limit` row, and `cgroup.kill` ends even daemons that left the worker's session.

Where it goes: the run makes one folder, mine-run-PID, under the nearest cgroup from this
process's own upwards that has the pids and memory controllers enabled for its children (either
one where none has both) and that it may write (on a GPU node run as root, usually the root of
the hierarchy or the job's delegated cgroup); each worker gets a child of it. It is not made
under this process's own cgroup, which holds processes and so cannot hand controllers down
(cgroup v2's "no internal processes" rule). Where no such cgroup exists (cgroup v1, a read-only
/sys/fs/cgroup in a container, not root and nothing delegated) `setup` says why and the harness
falls back to RLIMIT_NPROC and the watchdog.

A worker joins its cgroup itself, first thing and while still root (worker.py); after it drops
to an unprivileged uid it can neither leave the cgroup nor raise its limits, which stay owned
by root. Standard library only; every path is a parameter so tests can use a fake tree.
"""
import os
import time

WANTED = ("pids", "memory")


def cgroup2_mount(mountinfo="/proc/self/mountinfo"):
    """(mount point, root of the mount within the hierarchy) of the cgroup2 file system, or None."""
    try:
        with open(mountinfo) as f:
            for line in f:
                left, _, right = line.partition(" - ")
                if right.split()[:1] == ["cgroup2"]:
                    fields = left.split()
                    return fields[4], fields[3]
    except OSError:
        pass
    return None


def own_cgroup(proc_cgroup="/proc/self/cgroup"):
    """This process's cgroup v2 path ('0::/a/b' -> '/a/b'), or None."""
    try:
        with open(proc_cgroup) as f:
            for line in f:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        pass
    return None


def _read(path):
    with open(path) as f:
        return f.read()


def _write(path, text):
    with open(path, "w") as f:
        f.write(text)


class Tree:
    """The run's cgroup folder and its workers' cgroups."""

    def __init__(self, path, controllers):
        self.path, self.controllers = path, controllers

    def make(self, name, pids_max, memory_bytes):
        """A worker's cgroup with its limits (0: none); returns its path."""
        path = os.path.join(self.path, name)
        os.mkdir(path)
        if "pids" in self.controllers:
            _write(os.path.join(path, "pids.max"), str(pids_max) if pids_max > 0 else "max")
        if "memory" in self.controllers:
            _write(os.path.join(path, "memory.max"), str(memory_bytes) if memory_bytes > 0 else "max")
            for name, value in (("memory.oom.group", "1"), ("memory.swap.max", "0")):
                # Swap would turn a memory hog into a slow thrash instead of a kill.
                if os.path.exists(os.path.join(path, name)):
                    _write(os.path.join(path, name), value)
        return path

    @staticmethod
    def oom_kills(path):
        """How many times the kernel killed for memory in this cgroup."""
        try:
            for line in _read(os.path.join(path, "memory.events")).splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    return int(value)
        except (OSError, ValueError):
            pass
        return 0

    @staticmethod
    def remove(path, wait_s=5.0):
        """Kills whatever is left in the cgroup and removes it; False if it could not."""
        kill = os.path.join(path, "cgroup.kill")
        if os.path.exists(kill):
            try:
                _write(kill, "1")
            except OSError:
                pass
        deadline = time.monotonic() + wait_s
        while True:
            try:
                os.rmdir(path)
                return True
            except FileNotFoundError:
                return True
            except OSError:
                if time.monotonic() >= deadline:
                    return False
                time.sleep(0.02)

    def close(self):
        for name in os.listdir(self.path) if os.path.isdir(self.path) else ():
            if os.path.isdir(os.path.join(self.path, name)):
                self.remove(os.path.join(self.path, name))
        return self.remove(self.path)


def _candidates(mount, mount_root, own):
    rel = own
    if mount_root not in ("/", "") and rel.startswith(mount_root):
        rel = rel[len(mount_root):]
    path = os.path.normpath(os.path.join(mount, rel.lstrip("/")))
    while True:
        yield path
        if path == os.path.normpath(mount) or len(path) <= len(mount):
            return
        path = os.path.dirname(path)


def _remove_stale(host):
    """Run folders of harnesses that died without closing them (SIGKILL): their workers have
    exited with them, so only empty cgroups are left; a live run's folder is never touched."""
    for entry in os.listdir(host):
        pid = entry[len("mine-run-"):]
        if entry.startswith("mine-run-") and pid.isdigit() and not os.path.exists("/proc/" + pid):
            try:
                Tree(os.path.join(host, entry), ()).close()
            except OSError:
                pass


def setup(name=None, mountinfo="/proc/self/mountinfo", proc_cgroup="/proc/self/cgroup"):
    """(Tree, None) for a new run folder, or (None, why not)."""
    found = cgroup2_mount(mountinfo)
    if not found:
        return None, "no cgroup v2 hierarchy mounted"
    own = own_cgroup(proc_cgroup)
    if own is None:
        return None, "this process is in no cgroup v2"
    name = name or "mine-run-%d" % os.getpid()
    why = "no writable cgroup with the pids and memory controllers above %s" % own
    hosts = []
    for host in _candidates(found[0], found[1], own):
        try:
            enabled = _read(os.path.join(host, "cgroup.subtree_control")).split()
        except OSError:
            continue
        controllers = [c for c in WANTED if c in enabled]
        if controllers and os.access(host, os.W_OK):
            hosts.append((host, controllers))
    # One that hands down both first (a VM's /process_api may enable only memory while the root
    # enables pids too); one with either only where there is none such.
    hosts.sort(key=lambda h: len(h[1]) < len(WANTED))
    for host, controllers in hosts:
        _remove_stale(host)
        path = os.path.join(host, name)
        try:
            os.mkdir(path)
        except OSError as e:
            why = "cannot make %s: %s" % (path, e.strerror)
            continue
        try:
            _write(os.path.join(path, "cgroup.subtree_control"), " ".join("+" + c for c in controllers))
            # The kernel reads back "memory pids"; a plain file (the tests' fake tree) "+pids +memory".
            on = [c.lstrip("+") for c in _read(os.path.join(path, "cgroup.subtree_control")).split()]
            if [c for c in controllers if c not in on]:
                raise OSError(0, "controllers not enabled (%s)" % " ".join(on))
        except OSError as e:
            why = "cannot enable %s in %s: %s" % (" ".join(controllers), path, e.strerror)
            Tree.remove(path, wait_s=0)
            continue
        return Tree(path, controllers), None
    return None, why


def join_from_env(env=None, proc_cgroup="/proc/self/cgroup"):
    """The worker's side, before anything else: moves this process into $MINE_CGROUP and reads
    back the limits now in force. Returns ({'pids.max': '256', ...}, None), or ({}, why not)
    when no cgroup was named. A cgroup named but not joined raises: the pool counted on it."""
    env = os.environ if env is None else env
    path = env.get("MINE_CGROUP", "")
    if not path:
        return {}, env.get("MINE_CGROUP_WHY", "not set up")
    _write(os.path.join(path, "cgroup.procs"), str(os.getpid()))
    own = own_cgroup(proc_cgroup)
    if own is None or not path.rstrip("/").endswith(own.rstrip("/")):
        raise OSError("worker is in cgroup %s, not %s" % (own, path))
    limits = {}
    for key in ("pids.max", "memory.max"):
        try:
            value = _read(os.path.join(path, key)).strip()
            limits[key] = "%d MiB" % (int(value) >> 20) if key == "memory.max" and value.isdigit() else value
        except OSError:
            pass
    return limits, None
