#!/usr/bin/env bash
# Clone speed of mine's RepoCloner (libgit2, bare, default branch only) against `git clone
# --bare` of the same repositories from the same loopback git server, in the same run.
# Target: mine within 1.3x of git. Also shows `git clone --bare --single-branch`, which moves
# the same data as mine (plain --bare also fetches every other branch and the tags).
# usage: bench/crawl.sh [BARE_REPO ...]
#   default: $BENCH_REPOS (6) synthetic repositories with a few hundred commits each; the
#   mirrors under /work/.mirror cannot serve as input: some of their objects are absent.
#   env: MINE_TESTS (the mine_tests binary, default build/tests/mine_tests), RUNS (3),
#        TRANSPORT (git = git daemon, or http = git http-backend behind tests/fake_github/git_http_server.py)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
MINE_TESTS=${MINE_TESTS:-$root/build/tests/mine_tests}
[ -x "$MINE_TESTS" ] || { echo "build the tests first (cmake --build build): need $MINE_TESTS"; exit 1; }
runs=${RUNS:-3}
transport=${TRANSPORT:-git}

work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -- -"$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# Synthetic repositories with real-looking history (Python-like files edited over many
# commits), written with git fast-import: deterministic and independent of any network.
make_repos() {  # make_repos DIR COUNT
  python3 - "$1" "$2" <<'PY'
import os, random, subprocess, sys
out, count = sys.argv[1], int(sys.argv[2])
words = ("def import return tl.load tl.store program_id offs mask BLOCK_SIZE x y z acc "
         "torch triton jit constexpr range for if else while pid num_warps stride ptr "
         "sum max exp dot float32 float16 shape grid kernel launch").split()
def line(rng):
    return "    " * rng.randint(0, 3) + " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) + "\n"
for k in range(count):
    rng = random.Random(1000 + k)
    branch = ["main", "master", "trunk"][k % 3]
    bare = os.path.join(out, "repo%02d.git" % k)
    subprocess.run(["git", "init", "-q", "--bare", "-b", branch, bare], check=True)
    contents = {"pkg/mod%04d.py" % f: [line(rng) for _ in range(rng.randint(40, 200))] for f in range(150 + 120 * k)}
    stream = []
    for c in range(150 + 60 * k):
        if c == 0:
            touched = list(contents)
        else:
            touched = rng.sample(sorted(contents), 6)
            for name in touched:
                body = contents[name]
                for _ in range(rng.randint(1, 15)):
                    body[rng.randrange(len(body))] = line(rng)
            if rng.random() < 0.2:
                name = "pkg/new%04d.py" % c
                contents[name] = [line(rng) for _ in range(rng.randint(40, 120))]
                touched.append(name)
        msg = b"change %d\n" % c
        stream.append(b"commit refs/heads/%s\ncommitter Bench <bench@example.invalid> %d +0000\ndata %d\n%s"
                      % (branch.encode(), 1600000000 + c * 60, len(msg), msg))
        for name in touched:
            data = "".join(contents[name]).encode()
            stream.append(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(data), data))
    subprocess.run(["git", "--git-dir=" + bare, "fast-import", "--quiet"], input=b"".join(stream), check=True)
    subprocess.run(["git", "--git-dir=" + bare, "repack", "-adq"], check=True)
PY
}

repos=("$@")
if [ ${#repos[@]} -eq 0 ]; then
  mkdir -p "$work/synthetic"
  echo "generating ${BENCH_REPOS:-6} synthetic repositories..." >&2
  make_repos "$work/synthetic" "${BENCH_REPOS:-6}"
  repos=("$work"/synthetic/*.git)
fi

# Serve every repository under $work/served/<owner>/<name>.git (symlinks: nothing is copied).
mkdir -p "$work/served"
: > "$work/list"
i=0
for r in "${repos[@]}"; do
  r=$(cd "$r" && pwd)
  base=$(basename "$(dirname "$r")")
  [ "$(basename "$r")" = repo ] || base=$(basename "$r" .git)
  owner=bench$i; name=$(printf '%s' "$base" | tr -c 'A-Za-z0-9._-' '_')
  mkdir -p "$work/served/$owner"
  ln -s "$r" "$work/served/$owner/$name.git"
  echo "$owner/$name" >> "$work/names"
  i=$((i + 1))
done

if [ "$transport" = git ]; then
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  setsid git daemon --reuseaddr --export-all --listen=127.0.0.1 --port="$port" --base-path="$work/served" "$work/served" \
    >/dev/null 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.05; done
  url="git://127.0.0.1:$port"
else
  setsid python3 "$root/tests/fake_github/git_http_server.py" "$work/served" > "$work/http.out" 2>/dev/null &
  pids+=($!)
  for _ in $(seq 100); do grep -q PORT "$work/http.out" 2>/dev/null && break; sleep 0.05; done
  url="http://127.0.0.1:$(awk '/PORT/{print $2}' "$work/http.out")"
fi
while read -r n; do echo "$n $url/$n.git"; done < "$work/names" > "$work/list"

now() { date +%s.%N; }
best() { sort -n | head -1; }

# Per run: each tool clones the whole set into an empty directory; order alternates per run
# so neither always gets the warmer page cache.
: > "$work/git.t"; : > "$work/git1.t"; : > "$work/mine.t"
for run in $(seq "$runs"); do
  for tool in $( [ $((run % 2)) -eq 1 ] && echo "git git1 mine" || echo "mine git1 git"); do
    rm -rf "$work/out"; mkdir -p "$work/out"
    case $tool in
      git|git1)
        extra=(); [ "$tool" = git1 ] && extra=(--single-branch)
        t0=$(now)
        while read -r n u; do git clone -q --bare "${extra[@]}" "$u" "$work/out/${n//\//+}.git"; done < "$work/list"
        t1=$(now)
        echo "$t1 - $t0" | bc >> "$work/$tool.t" ;;
      mine)
        MINE_CLONE_BENCH_LIST="$work/list" MINE_CLONE_BENCH_CACHE="$work/out" \
          "$MINE_TESTS" "[.clone-bench]" > "$work/mine.out"
        awk '/^mine-clone-total/{print $2}' "$work/mine.out" >> "$work/mine.t" ;;
    esac
  done
done

# Same commits? mine's HEAD must be git's default-branch head for every repository.
while read -r n u; do
  want=$(git --git-dir="$work/out/../served/$n.git" rev-parse HEAD)
  got=$(awk -v n="$n" '$1=="mine-clone" && $2==n {print $4}' "$work/mine.out")
  [ "$want" = "$got" ] || { echo "MISMATCH $n: mine $got, server $want"; exit 1; }
done < "$work/list"

g=$(best < "$work/git.t"); g1=$(best < "$work/git1.t"); m=$(best < "$work/mine.t")
mb=0; for r in "${repos[@]}"; do mb=$((mb + $(du -smL "$r" | cut -f1))); done
echo "transport: $transport ($url), ${#repos[@]} repositories, ${mb} MiB on the server, best of $runs runs, $(nproc) cores"
awk '/^mine-clone /{printf "  %-40s %7.3f s  %8.1f MiB received\n", $2, $3, $5/1048576}' "$work/mine.out"
awk -v g="$g" -v g1="$g1" -v m="$m" 'BEGIN{
  printf "git clone --bare                 %8.3f s\n", g;
  printf "git clone --bare --single-branch %8.3f s\n", g1;
  printf "mine RepoCloner                  %8.3f s\n", m;
  printf "mine / git --bare                %8.2fx   (target <= 1.3x)\n", m/g;
  printf "mine / git --bare --single-branch %7.2fx\n", m/g1 }'
