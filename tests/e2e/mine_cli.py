"""Shared by the e2e tests: run the `mine` binary under test and read what it writes."""
import json
import os
import subprocess

MINE = os.environ["MINE"]


def mine(*args, check=True):
    """Runs `mine ARGS...`; raises on a non-zero exit unless check=False."""
    return subprocess.run([MINE, *args], check=check, capture_output=True, text=True)


def git(repo, *args):
    """Runs git in `repo` (a work tree made by the test)."""
    subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True)


def query(db, sql):
    """Rows of a `mine query` as dicts."""
    return json.loads(mine("query", sql, "--db", db, "--format", "json").stdout)


def read_json(path):
    with open(path) as f:
        return json.load(f)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]
