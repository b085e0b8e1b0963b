"""What a worker does to itself before it runs any kernel: Landlock write confinement and a
process-count limit. Standard library only (ctypes for the Landlock system calls).

Landlock (Linux 5.13+, unprivileged) is irrevocable and inherited by every child, so a kernel,
and anything it starts through os.system or subprocess, can then create, change or delete files
only beneath the directories allowed here (the worker's scratch/work folder, the Triton cache,
/dev). Reads are not restricted: kernels import torch and triton from wherever they live.
"""
import ctypes
import os
import resource

# System call numbers are the same on every architecture for these (added after the tables
# were unified).
_SYS_CREATE_RULESET, _SYS_ADD_RULE, _SYS_RESTRICT_SELF = 444, 445, 446
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

# Every right that creates, changes or removes something; execute and read stay unrestricted.
_WRITE_FILE, _REMOVE_DIR, _REMOVE_FILE = 1 << 1, 1 << 4, 1 << 5
_MAKE = sum(1 << b for b in range(6, 13))  # char, dir, reg, sock, fifo, block, sym
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64)]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def landlock_abi():
    """The kernel's Landlock ABI version, 0 when it has none (or it is disabled)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        v = libc.syscall(_SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
        return v if v > 0 else 0
    except (OSError, AttributeError):
        return 0


def restrict_writes(writable):
    """Allows file-system changes only beneath the existing folders in `writable`, for this
    process and all it starts. Returns a description ('landlock-abi3') or 'none (why)'."""
    abi = landlock_abi()
    if abi <= 0:
        return "none (this kernel has no Landlock)"
    libc = ctypes.CDLL(None, use_errno=True)
    handled = _WRITE_FILE | _REMOVE_DIR | _REMOVE_FILE | _MAKE
    if abi >= 2:
        handled |= _REFER
    if abi >= 3:
        handled |= _TRUNCATE
    attr = _RulesetAttr(handled)
    fd = libc.syscall(_SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                      ctypes.c_uint32(0))
    if fd < 0:
        return "none (landlock_create_ruleset: %s)" % os.strerror(ctypes.get_errno())
    try:
        for path in writable:
            if not path or not os.path.isdir(path):
                continue
            pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneathAttr(handled, pfd)
                if libc.syscall(_SYS_ADD_RULE, fd, _RULE_PATH_BENEATH, ctypes.byref(rule), ctypes.c_uint32(0)) != 0:
                    return "none (landlock_add_rule %s: %s)" % (path, os.strerror(ctypes.get_errno()))
            finally:
                os.close(pfd)
        # Required for an unprivileged restrict_self; harmless otherwise (no setuid programs here).
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return "none (no_new_privs: %s)" % os.strerror(ctypes.get_errno())
        if libc.syscall(_SYS_RESTRICT_SELF, fd, ctypes.c_uint32(0)) != 0:
            return "none (landlock_restrict_self: %s)" % os.strerror(ctypes.get_errno())
    finally:
        os.close(fd)
    return "landlock-abi%d" % abi


def processes_of_user(uid):
    n = 0
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            if os.stat("/proc/" + p).st_uid == uid:
                n += 1
        except OSError:
            continue
    return n


def limit_processes(extra, limit=0):
    """RLIMIT_NPROC counts every process of the user, so the limit is what the user runs now
    plus `extra`: a fork bomb in a kernel stops there. `limit`, when the pool worked it out
    before any worker started (confine_run.py), is used instead: workers that share a uid
    counting for themselves would each count the others' kernels' processes too, and a worker
    starting beside a fork bomb would set its own limit above it. The kernel does not apply it
    to root (CAP_SYS_RESOURCE); there the pool's timeout and process sweep are what stop one."""
    if extra <= 0:
        return "none"
    uid = os.getuid()
    limit = limit if limit > 0 else processes_of_user(uid) + extra
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (limit, hard if hard != resource.RLIM_INFINITY else limit))
    return "rlimit-nproc %d%s" % (limit, " (not enforced for root)" if uid == 0 else "")
