#!/usr/bin/env bash
# Near-dedup benchmark: 200,000 synthetic kernel-sized Triton documents (families of copies with
# known edits, bench/dedup_bench.cpp) through mine's lexer + MinHash + LSH (NEAR), then through
# everything `mine dedup` does, exact/alpha hashes included (FULL: from tokens, parsing only what the
# token reader declines); and the same
# MinHash in plain Python (bench/dedup_minhash.py) on a sample of the same token streams.
# usage: bench/dedup.sh [DOCS] [THREADS]     (defaults 200000 and every core)
#        CPUS=0,1 bench/dedup.sh 200000 2      (pinned to two cores)
# Needs a build of mine_core: cmake --build ${BUILD:-build-dedup}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
build=${BUILD:-$root/build-dedup}
docs=${1:-200000}
threads=${2:-$(nproc)}
sample=${SAMPLE:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# DEDUP_BENCH_BIN: a driver built earlier (e.g. to run on another machine); else build it now with
# the flags of the CMake Release build of mine_core, tree-sitter and the C++ runtime linked in.
if [ -n "${DEDUP_BENCH_BIN:-}" ]; then
  cp "$DEDUP_BENCH_BIN" "$work/dedup_bench"
else
  [ -f "$build/libmine_core.a" ] || { echo "build mine_core first: cmake --build $build"; exit 1; }
  # The allocator that build links into mine (mimalloc where installed, CMakeLists.txt), so that
  # FULL runs as `mine dedup` does.
  alloc=()
  mi=$(sed -n 's/^MIMALLOC_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
  if [ -f "$mi" ] && grep -q '^MINE_MIMALLOC:BOOL=ON' "$build/CMakeCache.txt"; then
    alloc=(-Wl,--no-as-needed "$mi" -Wl,--as-needed)
  fi
  g++ -std=c++20 -O3 -DNDEBUG -I"$root" "$here/dedup_bench.cpp" -o "$work/dedup_bench" "${alloc[@]}" \
    "$build/libmine_core.a" "$build/libts_python.a" -Wl,-Bstatic -ltree-sitter -Wl,-Bdynamic -lcrypto \
    -static-libstdc++ -static-libgcc -pthread
fi
[ -n "${BUILD_ONLY:-}" ] && { cp "$work/dedup_bench" "$BUILD_ONLY"; echo "built $BUILD_ONLY"; exit 0; }

# CPUS=0,1 pins the run to those cores (the 2-core target on a bigger machine).
pin=()
[ -n "${CPUS:-}" ] && pin=(taskset -c "$CPUS")
/usr/bin/time -f "%e %M" -o "$work/time" \
  "${pin[@]}" "$work/dedup_bench" --docs "$docs" --threads "$threads" --sample "$sample" --sample-out "$work/sample.jsonl" \
  > "$work/cpp.json"
"${pin[@]}" python3 "$here/dedup_minhash.py" "$work/sample.jsonl" > "$work/py.json"

python3 - "$work/cpp.json" "$work/py.json" "$work/time" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); p = json.load(open(sys.argv[2]))
wall, rss_kb = open(sys.argv[3]).read().split()[-2:]
row = "{:<52} {:>16}"
def q(x):
    return f"{x['clusters']} / {x['families_split']} / {x['clusters_mixing_families']}"
print(row.format("near-dedup benchmark", "value"))
print("-" * 69)
print(row.format("documents (avg bytes), threads", f"{c['docs']} ({c['avg_doc_bytes']:.0f}), {c['threads']}"))
print(row.format("generating one document (included below), us", f"{c['generate_s_per_doc']*1e6:.0f}"))
print(row.format("NEAR: signatures docs/s (lex + 5-shingle MinHash 256)", f"{c['sign_docs_per_s']:,.0f}"))
print(row.format("NEAR: signatures s", f"{c['sign_s']:.2f}"))
print(row.format("NEAR: LSH + verify + union-find s", f"{c['cluster_s']:.2f}"))
print(row.format("NEAR: total s (target < 30)", f"{c['total_s']:.2f}"))
print(row.format("NEAR: clusters / families split / mixed", q(c['near_quality'])))
print(row.format("FULL (mine dedup): docs", c['full_docs']))
print(row.format("FULL: docs/s (+ exact/alpha normal forms, sha256)", f"{c['full_sign_docs_per_s']:,.0f}"))
print(row.format("FULL: signatures + hashes s", f"{c['full_sign_s']:.2f}"))
print(row.format("FULL: clustering, 3 levels s", f"{c['full_cluster_s']:.2f}"))
print(row.format("FULL: total s", f"{c['full_total_s']:.2f}"))
print(row.format("FULL: clusters / families split / mixed", q(c['full_quality'])))
print(row.format("families (ground-truth clusters)", c['near_quality']['families']))
print(row.format("peak RSS MB, whole run (target < 1024)", f"{int(rss_kb)/1024:.0f}"))
print(row.format("process wall s (both runs, sample, setup)", wall))
print(row.format("LSH bands x rows", f"{c['bands']} x {c['rows']}"))
print(row.format("NEAR candidate pairs / accepted", f"{c['candidate_pairs']} / {c['accepted_pairs']}"))
print()
n = p["docs"]
cpp_doc = c["cpp_sample_minhash_s"] / n
py_doc = p["seconds"] / n
print(row.format(f"MinHash only, same {n} token streams, 1 thread", "docs/s"))
print("-" * 69)
print(row.format("C++ (mine)", f"{1/cpp_doc:,.0f}"))
print(row.format("python3 stdlib", f"{1/py_doc:,.1f}"))
print(row.format("ratio C++ / python", f"{py_doc/cpp_doc:,.0f}x"))
print(row.format("signatures identical", f"{p['identical_signatures']}/{n}"))
print(row.format("NEAR docs/s (all threads) / python MinHash docs/s", f"{c['sign_docs_per_s']*py_doc:,.0f}x"))
PY
