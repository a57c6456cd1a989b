#!/usr/bin/env bash
# The explorer and a running pi, together (run.mjs; docs/pi-link.md): pi-extension/ type-checked
# against pi 1.6.0's own types, then loaded into the real pi 1.6.0 (Node 24) and pi 0.73.1
# (system Node) in RPC mode and driven by `pi-session followers` / `offer` and `/explore` (the
# URL of /explore opened in Chromium, with tests/serve's playwright-core, once).
#
#   tests/pi-link/run.sh                         # both pis
#   tests/pi-link/run.sh --pi DIR --node NODE    # one pi package dir with one node binary
#
# Installs nothing: `scripts/setup all` first (pi 0.73.1 in tests/pi-oracle, pi 1.6.0 in
# $PI16_DIR, Node 24 in $NODE24, the UI's npm packages for TypeScript, tests/serve's
# playwright-core and Chromium), then `npm --prefix ui run build` and `cargo build -p pi-session-cli`. The binary is $PI_SESSION_BIN, by default
# <repo>/target/debug/pi-session. Other arguments go to run.mjs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export PI_SESSION_BIN="${PI_SESSION_BIN:-$repo/target/debug/pi-session}"
pi=""; node=""; rest=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pi) pi="$2"; shift 2 ;;
    --node) node="$2"; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
if [ -n "$pi" ]; then
  exec "${node:-node}" "$here/run.mjs" --pi "$pi" --bin "$PI_SESSION_BIN" "${rest[@]}"
fi
pi073="$repo/tests/pi-oracle/node_modules/@mariozechner/pi-coding-agent"
PI16_DIR="${PI16_DIR:-$repo/tests/pi-oracle/pi16}"
pi16="$PI16_DIR/node_modules/@earendil-works/pi-coding-agent"
NODE24="${NODE24:-$repo/.tools/bin/node24}"
tsc="$repo/ui/node_modules/.bin/tsc"
[ -f "$pi073/package.json" ] || { echo "run.sh: pi 0.73.1 is not installed (npm ci in tests/pi-oracle)" >&2; exit 2; }
[ -f "$pi16/package.json" ] || { echo "run.sh: pi 1.6.0 is not installed at $pi16 (scripts/setup, or set PI16_DIR)" >&2; exit 2; }
[ -x "$NODE24" ] || { echo "run.sh: no Node 24 at $NODE24 (scripts/setup, or set NODE24)" >&2; exit 2; }
[ -x "$tsc" ] || { echo "run.sh: no TypeScript at $tsc (npm ci in ui)" >&2; exit 2; }
status=0
"$tsc" -p "$here/tsconfig.json" && echo "pi-link: pi-extension type-checks against pi 1.6.0's types" || status=$?
"$NODE24" "$here/run.mjs" --pi "$pi16" --bin "$PI_SESSION_BIN" --browser "${rest[@]}" || status=$?
node "$here/run.mjs" --pi "$pi073" --bin "$PI_SESSION_BIN" "${rest[@]}" || status=$?
exit $status
