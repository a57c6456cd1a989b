#!/usr/bin/env bash
# Slim forks and pruned copies read back by the real pi (run.mjs; see its header).
#
#   tests/steer/run.sh                         # pi 0.73.1 (system node) and pi 1.6.0 (Node 24)
#   tests/steer/run.sh --pi DIR --node NODE    # one pi package dir with one node binary
#
# Installs nothing: `npm ci` in tests/pi-oracle (pi 0.73.1), `scripts/setup` (pi 1.6.0 in
# $PI16_DIR, Node 24 in $NODE24) and `cargo build -p pi-session-cli` first. The binary is
# $PI_SESSION_BIN, by default <repo>/target/debug/pi-session. For pi 0.73.1 the sessions that
# tests/pi-oracle/gen.mjs writes (seeds 1-4) are checked too. Other arguments go to run.mjs.
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
[ -f "$pi073/package.json" ] || { echo "run.sh: pi 0.73.1 is not installed (npm ci in tests/pi-oracle)" >&2; exit 2; }
[ -f "$pi16/package.json" ] || { echo "run.sh: pi 1.6.0 is not installed at $pi16 (scripts/setup, or set PI16_DIR)" >&2; exit 2; }
[ -x "$NODE24" ] || { echo "run.sh: no Node 24 at $NODE24 (scripts/setup, or set NODE24)" >&2; exit 2; }
corpus="$(mktemp -d)"
trap 'rm -rf "$corpus"' EXIT
for seed in 1 2 3 4; do
  node "$repo/tests/pi-oracle/gen.mjs" "$corpus/seed-$seed" --seed "$seed" --sessions 4 >/dev/null
done
status=0
node "$here/run.mjs" --pi "$pi073" --bin "$PI_SESSION_BIN" --dir "$corpus" "${rest[@]}" || status=$?
"$NODE24" "$here/run.mjs" --pi "$pi16" --bin "$PI_SESSION_BIN" "${rest[@]}" || status=$?
exit $status
