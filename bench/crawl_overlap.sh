#!/usr/bin/env bash
# Does mining overlap cloning? Times `mine crawl` (discover + clone + mine + store) of N
# repositories served by a loopback `git daemon`, listed by the fake GitHub API, against
# `git clone --bare` of the same repositories with the same parallelism, in the same run.
# Target: crawl total within 1.2x of the clone time alone.
# usage: bench/crawl_overlap.sh   env: MINE, REPOS (16), JOBS (2), FILES (60 kernel files per repo)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
MINE=${MINE:-$here/build/mine}
n=${REPOS:-16} jobs=${JOBS:-2} files=${FILES:-60}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
fixtures=("$here"/tests/fixtures/triton/*.py)
pop="["
for i in $(seq "$n"); do
  src="$work/src/r$i"; mkdir -p "$src"
  for f in $(seq "$files"); do
    mkdir -p "$src/pkg$((f % 7))"
    cp "${fixtures[$(( (i + f) % ${#fixtures[@]} ))]}" "$src/pkg$((f % 7))/k$f.py"
    head -c 20000 /dev/urandom | base64 > "$src/pkg$((f % 7))/data$f.txt"  # bulk that is cloned but not mined
  done
  git -C "$src" init -q -b main && git -C "$src" add -A
  git -C "$src" -c user.email=b@example.invalid -c user.name=b commit -qm init
  mkdir -p "$work/served/o" && git clone -q --bare "$src" "$work/served/o/r$i.git"
  [ "$i" -gt 1 ] && pop+=","
  pop+="{\"id\":$i,\"name\":\"r$i\",\"full_name\":\"o/r$i\",\"owner\":{\"login\":\"o\"},\"description\":\"triton\","
  pop+="\"stargazers_count\":$((200 + i)),\"fork\":false,\"archived\":false,\"size\":10,\"default_branch\":\"main\","
  pop+="\"created_at\":\"2021-01-01T00:00:00Z\",\"pushed_at\":\"2024-01-01T00:00:00Z\",\"license\":null,"
  pop+="\"clone_url\":\"git://127.0.0.1:$port/o/r$i.git\"}"
done
echo "$pop]" > "$work/pop.json"
git daemon --reuseaddr --listen=127.0.0.1 --port="$port" --base-path="$work/served" --export-all "$work/served" >/dev/null 2>&1 &
pids+=($!)
python3 -u "$here/tests/fake_github/server.py" --population-file "$work/pop.json" > "$work/api.out" 2>/dev/null &
pids+=($!)
for _ in $(seq 100); do grep -q '^PORT ' "$work/api.out" 2>/dev/null && break; sleep 0.1; done
api="http://127.0.0.1:$(awk '/^PORT /{print $2}' "$work/api.out")"
for _ in $(seq 100); do git ls-remote "git://127.0.0.1:$port/o/r1.git" >/dev/null 2>&1 && break; sleep 0.1; done
size=$(du -sm "$work/served" | cut -f1)

best_git="" best_mine=""
for run in 1 2 3; do
  rm -rf "$work/g"; mkdir -p "$work/g"
  s=$(date +%s.%N)
  seq "$n" | xargs -P "$jobs" -I{} git clone -q --bare "git://127.0.0.1:$port/o/r{}.git" "$work/g/r{}.git"
  t=$(awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN{print a - b}')
  if [ -z "$best_git" ] || awk -v a="$t" -v b="$best_git" 'BEGIN{exit !(a < b)}'; then best_git=$t; fi
  rm -rf "$work/c" "$work/m.db"*
  s=$(date +%s.%N)
  env -u GITHUB_TOKEN "$MINE" crawl --api-url "$api" --min-stars 100 --query triton --db "$work/m.db" \
    --cache-dir "$work/c" --jobs "$jobs" --quiet > "$work/crawl.out"
  t=$(awk -v a="$(date +%s.%N)" -v b="$s" 'BEGIN{print a - b}')
  if [ -z "$best_mine" ] || awk -v a="$t" -v b="$best_mine" 'BEGIN{exit !(a < b)}'; then best_mine=$t; fi
done
kernels=$("$MINE" query "SELECT count(*) FROM kernels" --db "$work/m.db" --format csv | tail -1)
printf "%-8s %-8s %-8s | %-22s | %-28s | %s\n" repos MB jobs "git clone --bare (s)" "mine crawl: clone+mine (s)" ratio
printf "%-8s %-8s %-8s | %-22.2f | %-28.2f | %.2fx\n" "$n" "$size" "$jobs" "$best_git" "$best_mine" "$(awk -v a="$best_mine" -v b="$best_git" 'BEGIN{print a / b}')"
echo "kernels mined: $kernels (best of 3 runs each; target: crawl within 1.2x of clone alone)"
