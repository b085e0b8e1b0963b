#!/usr/bin/env bash
# `mine completion bash` sourced into a real bash and asked to complete, as the shell would;
# `mine man` rendered by groff (when installed) without warnings.
set -euo pipefail
: "${MINE:?set MINE to the mine binary}"
script=$(mktemp); trap 'rm -f "$script"' EXIT
"$MINE" completion bash > "$script"
bash -n "$script"

complete_words() {  # complete_words WORD... : what TAB offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _mine; printf "%s\n" "${COMPREPLY[@]}"' \
    _ "$script" "$@"
}
expect() {  # expect "WANTED" WORD...
  local want=$1; shift
  local got; got=$(complete_words "$@" | sort | tr '\n' ' ' | sed 's/ $//')
  if [ "$got" != "$want" ]; then echo "FAIL: mine $* -> '$got', expected '$want'" >&2; exit 1; fi
}
expect "scan stats" mine s
expect "--format" mine stats --f
expect "--db --format --help -f -h" mine stats -
expect "json table" mine stats --format ""
expect "csv" mine query --db x.db -f c
expect "compile" mine check --run --stage co
expect "bash man" mine completion ""
expect "report" mine help rep
expect "" mine dedup --perms ""
for c in $("$MINE" --help | awk '/^commands:/{on=1; next} on && NF==0{on=0} on{print $1}'); do
  complete_words mine "$c" -- | grep -qx -- "--help" || { echo "FAIL: no options for mine $c" >&2; exit 1; }
done

"$MINE" help stats | grep -q -- "--format" || { echo "FAIL: mine help stats" >&2; exit 1; }
if command -v groff >/dev/null; then
  warnings=$("$MINE" man | groff -man -Tutf8 -ww -z 2>&1)
  [ -z "$warnings" ] || { echo "FAIL: groff warnings: $warnings" >&2; exit 1; }
fi
man_page=$("$MINE" man)  # grep -q would close the pipe early: SIGPIPE fails the pipeline
grep -q '^\.SS "mine report"' <<<"$man_page" || { echo "FAIL: man page lacks mine report" >&2; exit 1; }
echo "completion and man page ok"
