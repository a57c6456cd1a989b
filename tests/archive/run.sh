#!/usr/bin/env bash
# The Parquet archive read by the real DuckDB: generated sessions in two roots, exported with
# `pi-session export --parquet`, compared with `pi-session list --json`; an append plus a
# rerun adds exactly the new rows; a rerun with nothing new writes nothing.
# Needs `scripts/setup all` (the venv .tools/py with duckdb) and `cargo build` (pi-session, pi-corpus).
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
py="${PY:-$repo/.tools/py/bin/python}"
[ -x "$py" ] || { echo "no $py: run scripts/setup all"; exit 1; }
export PI_SESSION_BIN="${PI_SESSION_BIN:-$repo/target/debug/pi-session}"
export PI_CORPUS_BIN="${PI_CORPUS_BIN:-$repo/target/debug/pi-corpus}"
[ -x "$PI_CORPUS_BIN" ] || cargo build -q -p pi-session-bench --bin pi-corpus
[ -x "$PI_SESSION_BIN" ] || cargo build -q -p pi-session-cli
exec "$py" "$repo/tests/archive/test_archive.py" "$@"
