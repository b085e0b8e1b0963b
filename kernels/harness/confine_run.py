"""The pool's side of containing a run, before any worker starts: who the workers will be
(privileges.py), the folders they need handed to that identity, and their cgroups (cgroups.py).
run_bundle.py calls `prepare` once and passes what it returns to the workers and the pool.
"""
import os
import shutil
import sys

import cgroups
import privileges
import sandbox

HERE = os.path.dirname(os.path.abspath(__file__))


class SetupError(Exception):
    pass


def _bundle_files(bundle_dir):
    out = [bundle_dir]
    for top, dirs, files in os.walk(bundle_dir):
        out.extend(os.path.join(top, n) for n in dirs + files)
    return out


def _readable_copy(bundle_dir, dest):
    """A copy of the bundle that any user can read: `mine check --run` emits into a private
    (0700) temporary folder, which an unprivileged worker could not enter."""
    if os.path.isdir(dest):  # a reused --work-dir: last run's copy, perhaps of another bundle
        shutil.rmtree(dest)
    shutil.copytree(bundle_dir, dest, symlinks=False)
    os.chmod(dest, 0o755)
    for top, dirs, files in os.walk(dest):
        for n in dirs:
            os.chmod(os.path.join(top, n), 0o755)
        for n in files:
            os.chmod(os.path.join(top, n), 0o644)
    return dest


def prepare(work, bundle_dir, cache_dir, tmp_dir, writable, want_gpu, worker_user,
            allow_root, use_cgroups, jobs, max_procs, log=print):
    """Returns (worker_env, bundle_dir, cgroup_tree or None). Raises SetupError with what to
    change when the workers could not run as asked."""
    env = {}
    uid = os.geteuid()
    if uid == 0 and allow_root:
        log("run_bundle: warning: workers keep root (--allow-root-workers): mined code can signal "
            "any process, write wherever Landlock allows, and is exempt from RLIMIT_NPROC")
    elif uid == 0:
        try:
            uid, gid, label = privileges.resolve(worker_user)
        except privileges.IdentityError as e:
            raise SetupError(str(e))
        home = os.path.join(work, "home")  # root's HOME (/root) is closed to the worker
        scratch = os.path.join(work, "scratch")
        for d in (home, scratch, tmp_dir):
            os.makedirs(d, exist_ok=True)
        # Only what workers write in is theirs: the work folder itself, the results and the
        # worker logs stay root's, so a kernel cannot delete or rewrite them.
        for d in (home, scratch, tmp_dir, cache_dir):
            privileges.chown_tree(d, uid, gid)
        mode = os.stat(work).st_mode & 0o777
        if not mode & 0o001:
            os.chmod(work, mode | 0o111)  # mkdtemp makes it 0700; workers must pass through
        devices = privileges.gpu_nodes() if want_gpu else []
        readable = [HERE, sys.executable] + [p for p in sys.path if p and os.path.exists(p)]
        writable_dirs = [home, scratch, tmp_dir, cache_dir] + list(writable)
        bundle_problems = privileges.preflight(uid, gid, _bundle_files(bundle_dir), [], [])
        if bundle_problems:
            copy = _readable_copy(bundle_dir, os.path.join(work, "bundle"))
            log("run_bundle: the workers (%s) cannot read the bundle (%s); checking a readable "
                "copy in %s" % (label, bundle_problems[0], copy))
            bundle_dir = copy
        problems = privileges.preflight(uid, gid, readable + [bundle_dir], writable_dirs, devices)
        if problems:
            raise SetupError("workers would run as %s (uid %d gid %d) and then %s; make these "
                             "reachable, choose another --worker-user, or keep root with "
                             "--allow-root-workers" % (label, uid, gid, "; ".join(problems)))
        env.update(MINE_WORKER_UID=str(uid), MINE_WORKER_GID=str(gid), HOME=home)
    tree = None
    if use_cgroups:
        tree, why = cgroups.setup()
        if tree is None:
            env["MINE_CGROUP_WHY"] = why
    else:
        env["MINE_CGROUP_WHY"] = "disabled (--no-cgroups)"
    if max_procs > 0 and not (tree and "pids" in tree.controllers):
        # RLIMIT_NPROC instead of pids.max: one limit for the uid that all workers share,
        # counted now, before any of them runs a kernel (sandbox.limit_processes says why).
        env["MINE_NPROC_LIMIT"] = str(sandbox.processes_of_user(uid) + max(jobs, 1) * max_procs)
    return env, bundle_dir, tree
