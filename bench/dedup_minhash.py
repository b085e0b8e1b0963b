#!/usr/bin/env python3
"""The MinHash of core/dedup/min_hasher.cpp in plain Python (standard library only).

Reads the JSON lines bench/dedup_bench writes (a token stream and the C++ signature per line),
recomputes each signature, checks it equals the C++ one bit for bit, and prints the time per
document as JSON. Written the way one would write it for speed in pure Python: the permutation
loop is a list comprehension and the running minimum a map(min, ...).
"""
import json
import sys
import time

M64 = (1 << 64) - 1


def mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def token_hash(token):
    h = 0xCBF29CE484222325
    for c in token.encode("utf-8"):
        h = ((h ^ c) * 0x100000001B3) & M64
    return h


def permutations(perms=256, seed=0x6D696E652D646564):
    state, ab = seed, []
    for _ in range(perms):
        state = (state + 0x9E3779B97F4A7C15) & M64
        a = mix(state) | 1
        state = (state + 0x9E3779B97F4A7C15) & M64
        ab.append((a, mix(state)))
    return ab


def signature(tokens, ab, shingle=5):
    sig = [0xFFFFFFFF] * len(ab)
    th = [token_hash(t) for t in tokens]
    if not th:
        return sig
    k = min(shingle, len(th))
    for start in range(len(th) - k + 1):
        x = 0
        for i in range(k):
            x = (x * 0x9E3779B97F4A7C15 + th[start + i]) & M64
        x = mix(x)
        sig = list(map(min, sig, [(((a * x + b) & M64) >> 32) for a, b in ab]))
    return sig


def main():
    docs = [json.loads(line) for line in open(sys.argv[1])]
    ab = permutations()
    t = time.perf_counter()
    sigs = [signature(d["tokens"], ab) for d in docs]
    elapsed = time.perf_counter() - t
    same = sum(s == d["signature"] for s, d in zip(sigs, docs))
    print(json.dumps({"docs": len(docs), "seconds": elapsed, "identical_signatures": same}))


if __name__ == "__main__":
    main()
