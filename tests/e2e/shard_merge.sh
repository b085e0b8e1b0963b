#!/usr/bin/env bash
# Scale-out end to end: 30 inputs scanned whole, and as three --shard runs merged with
# `mine merge`. The shards must be disjoint and cover every input, the merge must equal the
# whole run kernel for kernel, and merging again must add nothing.
set -euo pipefail
: "${MINE:?set MINE to the mine binary}" "${MINE_FIXTURES_DIR:?}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { "$MINE" query "$2" --db "$1" --format csv | tail -n +2; }
kernels() { q "$1" "SELECT repo || '|' || path || '|' || qualname || '|' || source_sha256 || '|' || standalone_sha256 FROM kernels ORDER BY 1"; }
counts() {
  q "$1" "SELECT (SELECT count(*) FROM repos) || ' ' || (SELECT count(*) FROM files) || ' ' || (SELECT count(*) FROM kernels)
          || ' ' || (SELECT count(*) FROM kernel_deps) || ' ' || (SELECT count(*) FROM scan_errors) || ' ' || (SELECT count(*) FROM scans)"
}

fixtures=("$MINE_FIXTURES_DIR"/triton/*.py)
inputs=()
for i in $(seq -w 1 30); do
  d="$work/in/proj$i/pkg"
  mkdir -p "$d"
  # Each folder gets a different pair of fixture files, so inputs differ in content.
  cp "${fixtures[$((10#$i % ${#fixtures[@]}))]}" "$d/"
  cp "${fixtures[$(((10#$i * 7 + 3) % ${#fixtures[@]}))]}" "$d/"
  inputs+=("$work/in/proj$i")
done
# Two of them are git repositories: shards carry commit ids through the merge.
for i in 03 17; do
  git -C "$work/in/proj$i" init -q -b main
  git -C "$work/in/proj$i" -c user.email=t@example.invalid -c user.name=t add -A
  git -C "$work/in/proj$i" -c user.email=t@example.invalid -c user.name=t commit -qm one
done

"$MINE" scan "${inputs[@]}" --db "$work/A.db" --quiet
for k in 0 1 2; do
  "$MINE" scan "${inputs[@]}" --db "$work/S$k.db" --shard "$k/3" --quiet
done
# The environment default is the same option.
MINE_SHARD=1/3 "$MINE" scan "${inputs[@]}" --db "$work/E1.db" --quiet
[ "$(q "$work/E1.db" 'SELECT name FROM repos ORDER BY 1')" = "$(q "$work/S1.db" 'SELECT name FROM repos ORDER BY 1')" ] \
  || fail "MINE_SHARD=1/3 chose other inputs than --shard 1/3"

# Each input in exactly one shard.
all=$(for k in 0 1 2; do q "$work/S$k.db" 'SELECT name FROM repos'; done | sort)
[ "$(echo "$all" | wc -l)" = 30 ] || fail "shards hold $(echo "$all" | wc -l) inputs, not 30"
[ -z "$(echo "$all" | uniq -d)" ] || fail "inputs in two shards: $(echo "$all" | uniq -d)"
[ "$all" = "$(q "$work/A.db" 'SELECT name FROM repos ORDER BY 1')" ] || fail "shards do not cover the inputs"
for k in 0 1 2; do
  [ "$(q "$work/S$k.db" 'SELECT count(*) FROM repos')" -gt 0 ] || fail "shard $k/3 got no input (30 inputs)"
done

"$MINE" merge "$work/M.db" "$work/S0.db" "$work/S1.db" "$work/S2.db" --quiet
[ "$(kernels "$work/M.db")" = "$(kernels "$work/A.db")" ] || {
  diff <(kernels "$work/A.db") <(kernels "$work/M.db") >&2 || true
  fail "merged kernels differ from the unsharded scan"
}
[ "$(kernels "$work/A.db" | wc -l)" -ge 30 ] || fail "too few kernels for the test to mean anything"
deps() { q "$1" "SELECT k.repo || '|' || k.path || '|' || k.qualname || '|' || d.name || '|' || d.kind FROM kernel_deps d JOIN kernels k ON k.id = d.kernel_id ORDER BY 1"; }
[ "$(deps "$work/M.db")" = "$(deps "$work/A.db")" ] || fail "kernel_deps differ after the merge"
files() { q "$1" "SELECT r.name || '|' || f.path || '|' || f.blob_id || '|' || f.kernel_count FROM files f JOIN repos r ON r.id = f.repo_id ORDER BY 1"; }
[ "$(files "$work/M.db")" = "$(files "$work/A.db")" ] || fail "files differ after the merge"
repos() { q "$1" "SELECT name || '|' || source_kind || '|' || coalesce(commit_id, '-') FROM repos ORDER BY 1"; }
[ "$(repos "$work/M.db")" = "$(repos "$work/A.db")" ] || fail "repos differ after the merge"
[ "$(q "$work/M.db" "SELECT count(*) FROM kernels k JOIN repos r ON r.id = k.repo_id WHERE r.name <> k.repo")" = 0 ] \
  || fail "kernel rows point at the wrong repository"

# Idempotent: the same inputs again add nothing.
before=$(counts "$work/M.db")
"$MINE" merge "$work/M.db" "$work/S0.db" "$work/S1.db" "$work/S2.db" "$work/S1.db" --quiet
[ "$(counts "$work/M.db")" = "$before" ] || fail "merging again changed counts: $before -> $(counts "$work/M.db")"

# Check signatures and results follow their kernels to the merged ids.
"$MINE" check --emit "$work/bundle" --db "$work/S2.db" --quiet
sid=$(q "$work/S2.db" "SELECT id FROM kernels ORDER BY id DESC LIMIT 1")
printf '{"id": %s, "stage_reached": "compile", "status": "ok", "compile_ms": 12.5, "configs": [{"constexprs": {"BLOCK": 64}, "time_ms": 0.5, "is_best": true}]}\n' "$sid" > "$work/r.jsonl"
"$MINE" check --ingest "$work/r.jsonl" --db "$work/S2.db" --quiet
"$MINE" merge "$work/M.db" "$work/S2.db" --quiet
"$MINE" merge "$work/M.db" "$work/S2.db" --quiet
ident="k.repo || '|' || k.path || '|' || k.qualname || '|' || k.source_sha256"
want=$(q "$work/S2.db" "SELECT $ident || '|' || c.status || '|' || c.compile_ms FROM check_results c JOIN kernels k ON k.id = c.kernel_id")
got=$(q "$work/M.db" "SELECT $ident || '|' || c.status || '|' || c.compile_ms FROM check_results c JOIN kernels k ON k.id = c.kernel_id")
[ -n "$want" ] && [ "$got" = "$want" ] || fail "check result not carried to the merged kernel: want '$want' got '$got'"
[ "$(q "$work/M.db" 'SELECT count(*) FROM kernel_signatures')" = "$(q "$work/S2.db" 'SELECT count(*) FROM kernel_signatures')" ] \
  || fail "kernel_signatures not merged"
cfg="SELECT $ident || '|' || c.config || '|' || c.is_best FROM check_configs c JOIN kernels k ON k.id = c.kernel_id JOIN check_results r ON r.id = c.result_id AND r.kernel_id = c.kernel_id"
[ -n "$(q "$work/S2.db" "$cfg")" ] && [ "$(q "$work/M.db" "$cfg")" = "$(q "$work/S2.db" "$cfg")" ] || fail "check_configs not carried over"

# check --emit shards partition the selected kernels.
n=0
for k in 0 1 2; do
  "$MINE" check --emit "$work/b$k" --db "$work/A.db" --shard "$k/3" --quiet
  n=$((n + $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["kernels"]))' "$work/b$k/bundle.json")))
done
whole=$("$MINE" check --emit "$work/ball" --db "$work/A.db" --quiet; python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["kernels"]))' "$work/ball/bundle.json")
[ "$n" = "$whole" ] || fail "check --emit shards hold $n kernels, the whole emit $whole"

# Bad shard values and bad inputs are refused.
set +e
"$MINE" scan "${inputs[0]}" --db "$work/x.db" --shard 3/2 2>/dev/null; [ $? = 2 ] || fail "--shard 3/2 accepted"
"$MINE" scan "${inputs[0]}" --db "$work/x.db" --shard a/b 2>/dev/null; [ $? = 2 ] || fail "--shard a/b accepted"
MINE_SHARD=7 "$MINE" crawl --db "$work/x.db" --repos-file /dev/null 2>/dev/null; [ $? = 2 ] || fail "MINE_SHARD=7 accepted"
"$MINE" merge "$work/M.db" "$work/M.db" 2>/dev/null; [ $? = 1 ] || fail "merged a corpus into itself"
cp "$work/S0.db" "$work/new.db"
sqlite3 "$work/new.db" 'PRAGMA user_version=999' 2>/dev/null || python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("PRAGMA user_version=999"); c.commit()' "$work/new.db"
msg=$("$MINE" merge "$work/M.db" "$work/new.db" 2>&1); rc=$?
set -e
[ $rc = 1 ] && echo "$msg" | grep -q "newer mine" || fail "a newer-schema input was not refused clearly: $msg"
echo "ok"
