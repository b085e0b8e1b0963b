"""The loopback servers the crawl tests run: `git daemon` over a folder of bare repositories and
the fake GitHub API. Each runs in a session of its own, so tearDown can kill the whole session
(`git daemon` serves through a child of its own)."""
import os
import socket
import subprocess
import time

SOURCE = os.environ.get("MINE_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_git_daemon(served, port):
    """Serves every bare repository under `served` at git://127.0.0.1:PORT/<path>; returns once
    the port accepts connections."""
    proc = subprocess.Popen(["git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1",
                             "--port=%d" % port, "--base-path=" + served, served],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    wait_for_port(port)
    return proc


def start_fake_github(population_file, *options, env=None):
    """tests/fake_github/server.py over the repositories in `population_file`; returns the
    process and the API's base URL."""
    proc, port = start_announcing(["python3", "-u", os.path.join(SOURCE, "tests", "fake_github", "server.py"),
                                   "--population-file", population_file, *options], env)
    return proc, "http://127.0.0.1:%d" % port


def start_git_http(served):
    """tests/fake_github/git_http_server.py (git's smart HTTP through `git http-backend`) over the
    bare repositories under `served`; returns the process and its port."""
    return start_announcing(["python3", os.path.join(SOURCE, "tests", "fake_github", "git_http_server.py"), served])


def start_announcing(argv, env=None):
    """Starts a server that prints `PORT <n>` once it listens; returns the process and the port."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True)
    line = proc.stdout.readline().decode()
    if not line.startswith("PORT "):
        proc.kill()
        raise RuntimeError("%s did not start: %r" % (os.path.basename(argv[1]), line))
    return proc, int(line.split()[1])


def wait_for_port(port):
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("nothing listens on 127.0.0.1:%d" % port)
