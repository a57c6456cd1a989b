#!/usr/bin/env bash
# The benchmark at a reduced size, so it cannot rot: a small corpus (50 files) plus the
# 200,000-entry big file (a 100,000-deep chain), and a small short-entry corpus (50 files of
# tool-heavy ~1.5 KB entries), then pi-bench on both in one run (ours warm and cold and, when
# Node is present, the pinned pi 0.73.1, and pi 1.6.0 when scripts/setup installed it).
# Prints the figures; asserts no timing. Fails only when a command fails.
#
#   bench/ci.sh                 # from the repository root
#   PI_BENCH_NO_PI=1 bench/ci.sh  # without Node / pi
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"

cargo build --release -p pi-session-cli -p pi-session-bench
bin="$CARGO_TARGET_DIR/release"

pi_args=()
if [ -n "${PI_BENCH_NO_PI:-}" ] || ! command -v node >/dev/null 2>&1; then
	echo "bench/ci.sh: running without pi (PI_BENCH_NO_PI set or no node)"
	pi_args+=(--no-pi)
elif [ ! -f tests/pi-oracle/node_modules/@mariozechner/pi-coding-agent/package.json ]; then
	(cd tests/pi-oracle && npm ci --no-audit --no-fund)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

"$bin/pi-corpus" "$work/corpus" --profile small --big-file --seed 1
"$bin/pi-corpus" "$work/short" --profile short --files 50 --mb 25 --seed 1
"$bin/pi-bench" --corpus "$work/corpus" --corpus "$work/short" --pi-session "$bin/pi-session" --pi-side bench/pi-side.mjs \
	--open-budget 60 --floor-runs 2 --json ${pi_args[@]+"${pi_args[@]}"}

# The Parquet archive on the same corpus (export, idle rerun, DuckDB example queries), when
# scripts/setup made the DuckDB venv.
if [ -x .tools/py/bin/python ]; then
	CORPUS="$work/corpus" bench/archive.sh --small
else
	echo "bench/ci.sh: no .tools/py (scripts/setup all): archive benchmark skipped"
fi

# The search index, reduced (its own small corpora: large with the 200k-entry file, short): size,
# build ÷ check, query median and p95, grep -rlF on 10 of the words, and every answer against a
# brute-force read of every file (the only thing it asserts).
WORK="$work/search" BASELINE_QUERIES=10 RUNS=1 bench/search.sh
