#!/usr/bin/env bash
# Interop of our writes with the real pi (interop.mjs; see its header), against both pinned
# oracles: pi 0.73.1 (tests/pi-oracle, system Node) and pi 1.6.0 (tests/pi-oracle/pi16, Node 24).
#
# Installs nothing: run `scripts/setup all` and build the CLI first (`cargo build -p pi-session-cli`).
# The binary is $PI_SESSION_BIN, by default <repo>/target/debug/pi-session; Node 24 is $NODE24, by
# default <repo>/.tools/bin/node24; pi 1.6.0 is in $PI16_DIR, by default tests/pi-oracle/pi16.
# Extra arguments go to interop.mjs (--verbose, --keep). Exits with the worse of the two statuses.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export PI_SESSION_BIN="${PI_SESSION_BIN:-$repo/target/debug/pi-session}"
NODE24="${NODE24:-$repo/.tools/bin/node24}"
PI16_DIR="${PI16_DIR:-$repo/tests/pi-oracle/pi16}"
command -v node >/dev/null || { echo "run.sh: node is required" >&2; exit 2; }
[ -x "$NODE24" ] || { echo "run.sh: pi 1.x needs Node >= 22.19: run scripts/setup all (or set NODE24)" >&2; exit 2; }
status=0
node "$here/interop.mjs" --pi-dir "$repo/tests/pi-oracle" "$@" || status=$?
rc=0
"$NODE24" "$here/interop.mjs" --pi-dir "$PI16_DIR" "$@" || rc=$?
if [ "$rc" -gt "$status" ]; then status=$rc; fi
exit "$status"
