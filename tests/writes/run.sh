#!/usr/bin/env bash
# Interop of our writes with the real pi 0.73.1 (interop.mjs; see its header).
#
# Installs nothing: run `npm ci` in tests/pi-oracle and build the CLI first
# (`cargo build -p pi-session-cli`). The binary is $PI_SESSION_BIN, by default
# <repo>/target/debug/pi-session. Extra arguments go to interop.mjs (--verbose, --keep).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export PI_SESSION_BIN="${PI_SESSION_BIN:-$repo/target/debug/pi-session}"
command -v node >/dev/null || { echo "run.sh: node is required" >&2; exit 2; }
exec node "$here/interop.mjs" "$@"
