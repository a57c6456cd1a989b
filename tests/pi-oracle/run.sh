#!/usr/bin/env bash
# Differential tests of pi-session against the real pi 0.73.1 (see README.md).
#
# Installs nothing: run `npm ci` in this folder and build the CLI first
# (`cargo build -p pi-session-cli`). The binary is $PI_SESSION_BIN, by default
# <repo>/target/debug/pi-session. Extra arguments go to diff.mjs (--verbose, --seeds ...).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export PI_SESSION_BIN="${PI_SESSION_BIN:-$repo/target/debug/pi-session}"
exec node "$here/diff.mjs" "$@"
