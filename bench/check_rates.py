#!/usr/bin/env python3
"""Compile and run rates of a `run_bundle.py --stage run` results file, by repository.

usage: bench/check_rates.py RESULTS.jsonl --db corpus.db [--baseline BEFORE.jsonl [--baseline-db before.db]]

Prints a markdown table: kernels, compiled, ran, their rates and the failures by class; with
--baseline, the same kernels' figures from an earlier run side by side. Kernels are joined to
their repository through the corpus the bundle was emitted from (kernel ids); a baseline emitted
from another corpus (another scan gives other ids) names its own with --baseline-db. Where the
results name a `target` (kernels written for another accelerator), two more lines give the rates
of the kernels written for CUDA and of the others apart.
"""
import argparse
import collections
import json
import sqlite3
import sys


def load(path):
    rows = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                r = json.loads(line)
                rows[r["id"]] = r
    return rows


def compiled(r):
    return r["status"] == "ok" or r.get("stage_reached") in ("load", "run")


def table(rows, repo_of, title):
    by_repo = collections.defaultdict(list)
    for kid, r in rows.items():
        by_repo[repo_of.get(kid, "?")].append(r)
    out = ["### " + title, "",
           "| repository | kernels | compile ok | rate | run ok | rate | failures by class |",
           "|---|---:|---:|---:|---:|---:|---|"]
    total = []
    for repo in sorted(by_repo):
        rs = by_repo[repo]
        total += rs
        out.append(line(repo, rs))
    out.append(line("**all**", total))
    # Results that name a target (kernels written for another accelerator, kernel_target.h):
    # the rates over the kernels meant for this GPU, and over the others, apart.
    other = [r for r in total if r.get("target")]
    if other:
        out.append(line("all written for CUDA", [r for r in total if not r.get("target")]))
        targets = collections.Counter(r["target"] for r in other)
        out.append(line("all written for other accelerators (%s)" % ", ".join(
            "%s %d" % kv for kv in sorted(targets.items())), other))
    return "\n".join(out)


def line(name, rs):
    n = len(rs)
    c = sum(compiled(r) for r in rs)
    ok = sum(r["status"] == "ok" for r in rs)
    classes = collections.Counter(r.get("error_class") for r in rs if r["status"] != "ok")
    cls = ", ".join("%s %d" % (k, v) for k, v in classes.most_common())
    return "| %s | %d | %d | %.1f%% | %d | %.1f%% | %s |" % (name, n, c, 100.0 * c / max(n, 1), ok, 100.0 * ok / max(n, 1), cls)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--db", required=True)
    ap.add_argument("--baseline")
    ap.add_argument("--baseline-db")
    a = ap.parse_args()

    def repos(path):
        db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        return {kid: repo.rstrip("/").split("/")[-2] if repo.endswith("/repo") else repo
                for kid, repo in db.execute("SELECT id, repo FROM kernels")}
    repo_of = repos(a.db)
    rows = load(a.results)
    print(table(rows, repo_of, "this run: " + a.results))
    if a.baseline:
        base = load(a.baseline)
        print()
        print(table(base, repos(a.baseline_db) if a.baseline_db else repo_of, "baseline: " + a.baseline))
    return 0


if __name__ == "__main__":
    sys.exit(main())
