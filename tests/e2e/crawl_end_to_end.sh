#!/usr/bin/env bash
# `mine crawl` end to end on loopback only: the fake GitHub API (tests/fake_github/server.py)
# lists repositories whose clone_url points at a real `git daemon` serving bare repositories
# made here, with default branches named main, master and trunk. Checks: every repository is
# cloned and mined with its metadata; a crawl killed with SIGKILL and re-run ends identical to
# an uninterrupted one; a re-crawl after a push fetches and re-mines only what changed.
set -euo pipefail
: "${MINE:?}" "${MINE_FIXTURES_DIR:?}" "${MINE_SOURCE_DIR:?}"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
gitc() { git -c user.email=t@example.invalid -c user.name=t "$@"; }

served="$work/served"
n_repos=12
fixtures=("$MINE_FIXTURES_DIR"/triton/*.py)
population="["
for i in $(seq 1 $n_repos); do
  branch=$(echo main master trunk | cut -d' ' -f$(( (i % 3) + 1 )))
  src="$work/src/repo$i"
  mkdir -p "$src/pkg"
  cp "${fixtures[$(( i % ${#fixtures[@]} ))]}" "${fixtures[$(( (i + 3) % ${#fixtures[@]} ))]}" "$src/pkg/"
  git -C "$src" init -q -b "$branch"
  gitc -C "$src" add -A && gitc -C "$src" commit -qm "repo $i"
  mkdir -p "$served/owner"
  git clone -q --bare "$src" "$served/owner/repo$i.git"
  [ "$i" -gt 1 ] && population+=","
  population+="{\"id\":$i,\"name\":\"repo$i\",\"full_name\":\"owner/repo$i\",\"owner\":{\"login\":\"owner\"},"
  population+="\"description\":\"triton kernels\",\"stargazers_count\":$((100 + i)),\"fork\":false,\"archived\":false,"
  population+="\"size\":10,\"default_branch\":\"$branch\",\"created_at\":\"2020-01-$(printf %02d "$i")T00:00:00Z\","
  population+="\"pushed_at\":\"2024-01-01T00:00:00Z\",\"license\":{\"spdx_id\":\"MIT\"},"
  population+="\"clone_url\":\"git://127.0.0.1:GITPORT/owner/repo$i.git\"}"
done
population+="]"

git_port=$(free_port)
echo "${population//GITPORT/$git_port}" > "$work/population.json"
git daemon --reuseaddr --listen=127.0.0.1 --port="$git_port" --base-path="$served" --export-all \
  --enable=receive-pack "$served" >"$work/daemon.log" 2>&1 &
pids+=($!)
python3 -u "$MINE_SOURCE_DIR/tests/fake_github/server.py" --population-file "$work/population.json" \
  --fail-502-every 7 >"$work/api.out" 2>"$work/api.err" &
pids+=($!)
for _ in $(seq 100); do grep -q '^PORT ' "$work/api.out" 2>/dev/null && break; sleep 0.1; done
api="http://127.0.0.1:$(awk '/^PORT /{print $2}' "$work/api.out")"
for _ in $(seq 100); do git ls-remote "git://127.0.0.1:$git_port/owner/repo1.git" >/dev/null 2>&1 && break; sleep 0.1; done

crawl() {  # $1 = db, $2 = cache
  env -u GITHUB_TOKEN "$MINE" crawl --api-url "$api" --min-stars 100 --query triton --db "$1" --cache-dir "$2" \
    --jobs 3 --quiet
}
q() { "$MINE" query "$2" --db "$1" --format csv | tail -n +2; }

# Uninterrupted reference crawl.
crawl "$work/ref.db" "$work/ref-cache" > "$work/ref.out" || fail "crawl failed: $(cat "$work/ref.out")"
[ "$(q "$work/ref.db" "SELECT count(*) FROM repos WHERE crawl_state='mined'")" = $n_repos ] \
  || fail "not every repository mined: $(q "$work/ref.db" "SELECT name, crawl_state, crawl_error FROM repos")"
[ "$(q "$work/ref.db" "SELECT count(*) FROM repos WHERE license='MIT' AND stars > 100 AND commit_id IS NOT NULL")" = $n_repos ] \
  || fail "metadata missing"
ref_kernels=$(q "$work/ref.db" "SELECT count(*) FROM kernels")
[ "$ref_kernels" -gt 0 ] || fail "no kernels"
for b in main master trunk; do
  [ "$(q "$work/ref.db" "SELECT count(*) FROM repos WHERE default_branch='$b'")" -gt 0 ] || fail "no $b repo"
done
find "$work/ref-cache" -name '*.git' -maxdepth 3 | while read -r d; do
  [ "$(git --git-dir="$d" rev-parse --is-bare-repository)" = true ] || fail "$d is not bare"
done

# Killed crawls, then a completing run: identical kernels, no duplicates.
RANDOM=7
for attempt in 1 2 3; do
  env -u GITHUB_TOKEN "$MINE" crawl --api-url "$api" --min-stars 100 --query triton --db "$work/k.db" \
    --cache-dir "$work/k-cache" --jobs 3 --quiet >/dev/null 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 9))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done
crawl "$work/k.db" "$work/k-cache" >/dev/null || fail "resumed crawl failed"
sig="SELECT repo || '|' || path || '|' || qualname || '|' || source_sha256 || '|' || standalone_sha256 FROM kernels ORDER BY 1"
[ "$(q "$work/k.db" "$sig")" = "$(q "$work/ref.db" "$sig")" ] || fail "killed-and-resumed corpus differs"
[ "$(sqlite3 "$work/k.db" 'PRAGMA integrity_check')" = ok ] || fail "integrity"

# Push to one repository; the re-crawl fetches it and re-mines only it.
src="$work/src/repo1"
cp "$MINE_FIXTURES_DIR/triton/functional_form.py" "$src/pkg/new_kernel.py"
gitc -C "$src" add -A && gitc -C "$src" commit -qm more
gitc -C "$src" push -q "$served/owner/repo1.git" "HEAD:$(git -C "$src" branch --show-current)"
before=$(q "$work/ref.db" "SELECT group_concat(name || '=' || commit_id, ' ') FROM repos WHERE name != 'owner/repo1'")
"$MINE" crawl --api-url "$api" --min-stars 100 --query triton --db "$work/ref.db" --cache-dir "$work/ref-cache" \
  --jobs 3 --always-ask-remote > "$work/re.out" 2>&1 || fail "re-crawl failed: $(cat "$work/re.out")"
grep -q "1 fetched" "$work/re.out" || fail "expected one fetch: $(tail -3 "$work/re.out")"
grep -q "1 mined" "$work/re.out" || fail "expected one repository re-mined: $(tail -3 "$work/re.out")"
[ "$(q "$work/ref.db" "SELECT commit_id FROM repos WHERE name='owner/repo1'")" = "$(git -C "$src" rev-parse HEAD)" ] \
  || fail "new commit not recorded"
[ "$(q "$work/ref.db" "SELECT count(*) FROM kernels WHERE name='relu_kernel' AND repo='owner/repo1'")" -ge 1 ] || fail "new kernel missing"
after=$(q "$work/ref.db" "SELECT group_concat(name || '=' || commit_id, ' ') FROM repos WHERE name != 'owner/repo1'")
[ "$before" = "$after" ] || fail "other repositories changed"
echo "crawl_end_to_end: ok"
