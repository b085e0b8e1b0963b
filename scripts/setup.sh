#!/usr/bin/env bash
# Installs everything `mine` needs to build and test on a fresh Debian 12 machine.
# Third-party source (the tree-sitter grammars, the SPDX license texts) is unpacked into third_party/ (git-ignored),
# never committed. Re-running is cheap: finished steps are skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

pkgs=(build-essential cmake ninja-build pkg-config git python3 ca-certificates openssl
      libtree-sitter-dev libgit2-dev libcurl4-openssl-dev libssl-dev libre2-dev
      libboost-program-options-dev libsqlite3-dev sqlite3 catch2 nlohmann-json3-dev
      libmimalloc-dev)
# Debian's chromium renders `mine report` in tests/e2e/test_report_browser.py; only machines
# that run the tests need it: ./scripts/setup.sh --with-browser (or MINE_SETUP_BROWSER=1).
for arg in "$@"; do
  case "$arg" in
    --with-browser) MINE_SETUP_BROWSER=1 ;;
    *) echo "usage: $0 [--with-browser]" >&2; exit 2 ;;
  esac
done
if [ "${MINE_SETUP_BROWSER:-0}" = 1 ]; then pkgs+=(chromium); fi
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
# npm fetches the grammars; the image may already ship node+npm outside dpkg.
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi

# Grammars and data: name@version and the npm registry's sha512 integrity of the tarball.
# tree-sitter-python stays on 0.23.x: 0.25 is ABI 15, which Debian's tree-sitter 0.20.7 cannot load.
grammars=(
  "tree-sitter-python@0.23.6 sha512-yIM9z0oxKIxT7bAtPOhgoVl6gTXlmlIhue7liFT4oBPF/lha7Ha4dQBS82Av6hMMRZoVnFJI8M6mL+SwWoLD3A=="
  # tree-sitter-cuda stays on 0.20.4 for the same reason: 0.21.1 is ABI 15.
  "tree-sitter-cuda@0.20.4 sha512-mZiwGJEsPDLA6cweIYtGroSQoLu5+yLFl0I617OoODUL/+X62SrqOR60bxJDUkPBnsRUGi/EEcXfVIfOIJgNQw=="
  # The SPDX license texts `mine scan` matches LICENSE files against (cmake/embed_licenses.cmake).
  "spdx-license-list@6.12.0 sha512-+nUYqm3aZMSHbjsthK+i/HHI2okTElCvqwUd4k8QcSk+FTGgjq+fsdFj2wZOaX6XmR2JdWhf/NeflNnvKOjcnQ=="
)
mkdir -p "$here/third_party"
for entry in "${grammars[@]}"; do
  spec=${entry%% *}; want=${entry#* }
  name=${spec%@*}
  dest="$here/third_party/$name"
  if [ -f "$dest/.installed" ] && [ "$(cat "$dest/.installed")" = "$spec" ]; then continue; fi
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null 2>&1)
  tgz=$(ls "$tmp"/*.tgz)
  got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  if [ "$got" != "$want" ]; then
    echo "setup: integrity mismatch for $spec: expected $want, got $got" >&2; exit 1
  fi
  rm -rf "$dest"; mkdir -p "$dest"
  tar xzf "$tgz" -C "$dest" --strip-components=1
  echo "$spec" > "$dest/.installed"
  rm -rf "$tmp"
  echo "setup: $spec unpacked into third_party/$name"
done
echo "setup: done"
