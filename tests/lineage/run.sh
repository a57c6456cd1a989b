#!/usr/bin/env bash
# Lineage of sessions the real pi 1.6.0 writes (gen.mjs, test.mjs): forks and spawned sessions
# told apart, the tool call that started each spawn, own and family figures against pi's own
# getSessionStats, and links that survive a copy, a linked root and a move.
#
# Installs nothing: `scripts/setup` (pi 1.6.0 in $PI16_DIR, Node 24 in $NODE24) and
# `cargo build -p pi-session-cli` first. The binary is $PI_SESSION_BIN, by default
# <repo>/target/debug/pi-session.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export PI_SESSION_BIN="${PI_SESSION_BIN:-$repo/target/debug/pi-session}"
export PI16_DIR="${PI16_DIR:-$repo/tests/pi-oracle/pi16}"
NODE24="${NODE24:-$repo/.tools/bin/node24}"
[ -x "$NODE24" ] || { echo "run.sh: no Node 24 at $NODE24 (scripts/setup, or set NODE24)" >&2; exit 2; }
[ -f "$PI16_DIR/node_modules/@earendil-works/pi-coding-agent/package.json" ] || { echo "run.sh: pi 1.6.0 is not installed in $PI16_DIR (scripts/setup)" >&2; exit 2; }
[ -x "$PI_SESSION_BIN" ] || { echo "run.sh: no pi-session at $PI_SESSION_BIN (cargo build -p pi-session-cli)" >&2; exit 2; }
exec "$NODE24" --test --test-reporter=spec "$here/test.mjs"
