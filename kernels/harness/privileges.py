"""Who a worker runs as. When the harness starts as root, each worker gives up root before it
imports any mined code: it takes an unprivileged uid/gid (default nobody/nogroup, 65534),
clears its supplementary groups and sets PR_SET_NO_NEW_PRIVS, so nothing it starts can regain
privileges through a setuid program. Root's powers (signalling other users' processes, writing
/etc, raw sockets, ignoring RLIMIT_NPROC) are then gone for the kernel and its children.

The run's folders are prepared by the (root) pool: `chown_tree` hands the scratch, temporary
and cache folders to the worker's uid, and `preflight` checks, in a forked child that has
dropped exactly as a worker will, that the worker can still read the harness, the bundle and
Python's own path, and write where it must; so a folder it cannot reach is one clear error at
start, not a failure per kernel. The GPU is initialised before the drop (see worker.py); the
device nodes must still open for the new uid when a CUDA context is made later (they are
0666 on the usual driver install; preflight says when they are not).

Standard library only.
"""
import ctypes
import glob
import grp
import json
import os
import pwd
import stat

DEFAULT_USER = "nobody"
FALLBACK_ID = 65534  # nobody/nogroup on Debian, Ubuntu and most other distributions
_PR_SET_NO_NEW_PRIVS, _PR_GET_NO_NEW_PRIVS = 38, 39


class IdentityError(Exception):
    pass


def resolve(spec):
    """'USER[:GROUP]' (names or numbers) -> (uid, gid, label). The group defaults to the user's
    primary group; the default user, when missing from /etc/passwd, to 65534:65534."""
    spec = (spec or DEFAULT_USER).strip()
    user, _, group = spec.partition(":")
    try:
        if user.isdigit():
            uid, gid = int(user), None
            try:
                gid = pwd.getpwuid(uid).pw_gid
            except KeyError:
                pass
        else:
            entry = pwd.getpwnam(user)
            uid, gid = entry.pw_uid, entry.pw_gid
    except KeyError:
        if user != DEFAULT_USER:
            raise IdentityError("no user %r on this machine (--worker-user)" % user)
        uid, gid = FALLBACK_ID, None
    if group:
        if group.isdigit():
            gid = int(group)
        else:
            try:
                gid = grp.getgrnam(group).gr_gid
            except KeyError:
                raise IdentityError("no group %r on this machine (--worker-user)" % group)
    if gid is None:
        gid = FALLBACK_ID if uid == FALLBACK_ID else uid
    if uid == 0 or gid == 0:
        raise IdentityError("--worker-user must not be root (use --allow-root-workers to keep root)")
    return uid, gid, "%s:%s" % (_name(pwd.getpwuid, uid, "pw_name"), _name(grp.getgrgid, gid, "gr_name"))


def _name(lookup, number, field):
    try:
        return getattr(lookup(number), field)
    except KeyError:
        return str(number)


def _prctl(option, arg=0):
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.prctl(option, arg, 0, 0, 0)
    if r < 0:
        raise OSError(ctypes.get_errno(), "prctl(%d): %s" % (option, os.strerror(ctypes.get_errno())))
    return r


def effective_caps():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("CapEff:"):
                return int(line.split()[1], 16)
    return None


def drop_to(uid, gid):
    """Becomes uid/gid for good (real, effective and saved ids; glibc applies it to every
    thread), with no supplementary groups and no_new_privs; then checks each of those, since a
    half-dropped worker must never run a kernel. Raises IdentityError on any failure."""
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)  # the group first: after setresuid we could not change it
        os.setresuid(uid, uid, uid)
        _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    except OSError as e:
        raise IdentityError("could not drop root for uid %d gid %d: %s" % (uid, gid, e))
    problems = []
    if os.getresuid() != (uid, uid, uid):
        problems.append("uids %s" % (os.getresuid(),))
    if os.getresgid() != (gid, gid, gid):
        problems.append("gids %s" % (os.getresgid(),))
    if os.getgroups() not in ([], [gid]):
        problems.append("groups %s" % os.getgroups())
    if _prctl(_PR_GET_NO_NEW_PRIVS) != 1:
        problems.append("no_new_privs not set")
    if effective_caps() not in (0, None):
        problems.append("capabilities left: %x" % effective_caps())
    try:
        os.setuid(0)
        problems.append("setuid(0) succeeded")
    except OSError:
        pass
    if problems:
        raise IdentityError("privilege drop incomplete: " + ", ".join(problems))
    return "uid %d gid %d, no groups, no_new_privs" % (uid, gid)


def drop_from_env(env=None):
    """The worker's side: drops to $MINE_WORKER_UID/$MINE_WORKER_GID when running as root and
    they are set. Returns what the summary line says about identity."""
    env = os.environ if env is None else env
    if os.geteuid() != 0:
        return "uid %d (not root: unchanged)" % os.geteuid()
    if env.get("MINE_WORKER_UID", "") == "":
        return "root (--allow-root-workers)"
    return drop_to(int(env["MINE_WORKER_UID"]), int(env["MINE_WORKER_GID"]))


def chown_tree(path, uid, gid):
    """Gives `path` and everything beneath it to uid/gid. Links are changed themselves, never
    followed, so a link planted in a reused folder cannot hand out a file elsewhere."""
    os.chown(path, uid, gid, follow_symlinks=False)
    for top, dirs, files in os.walk(path):
        for name in dirs + files:
            try:
                os.chown(os.path.join(top, name), uid, gid, follow_symlinks=False)
            except FileNotFoundError:
                continue


def _check(uid, gid, readable, writable, devices):
    drop_to(uid, gid)
    problems = []
    for p in readable:
        try:
            is_dir = stat.S_ISDIR(os.stat(p).st_mode)
        except FileNotFoundError:
            continue
        except OSError as e:  # a folder above it is closed (os.path.exists would say "absent")
            problems.append("cannot read %s (%s)" % (p, e.strerror))
            continue
        if not os.access(p, os.R_OK | (os.X_OK if is_dir else 0)):
            problems.append("cannot read %s" % p)
    for p in writable:
        if not os.access(p, os.W_OK | os.X_OK):
            problems.append("cannot write in %s" % p)
    for p in devices:
        try:
            os.close(os.open(p, os.O_RDWR))
        except OSError as e:
            problems.append("cannot open %s (%s)" % (p, e.strerror))
    return problems


def gpu_nodes():
    return sorted(p for p in glob.glob("/dev/nvidia*") if not os.path.isdir(p))


def in_child(fn):
    """fn()'s JSON answer, computed in a forked child so that this process keeps its identity
    ({'error': ...} if it raised). Call it before any thread starts."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            out = fn()
        except BaseException as e:  # noqa: B902 -- anything goes back as a sentence
            out = {"error": "%s: %s" % (type(e).__name__, e)}
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    try:
        return json.loads(data.decode())
    except ValueError:
        return {"error": "the child died without an answer (%r)" % data[:200]}


def preflight(uid, gid, readable, writable, devices=()):
    """What a worker dropped to uid/gid could not reach, as a list of sentences (empty: all
    fine), found by a forked child that has dropped exactly so."""
    out = in_child(lambda: _check(uid, gid, readable, writable, devices))
    return [out["error"]] if isinstance(out, dict) else out
