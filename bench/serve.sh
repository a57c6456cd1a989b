#!/usr/bin/env bash
# The serve benchmark: `pi-session serve` (release) in headless Chromium, on a generated root of
# many sessions and the 200,000-entry session (a 100,000-deep chain). Prints first sessions on
# screen (first start without a list cache, then warm) and click to first rows of the big
# session. Asserts no timing; fails only when a step fails. Needs the UI built first
# (npm --prefix ui run build) and tests/serve's npm packages (scripts/setup).
#
#   bench/serve.sh                          # the full run: 10,000 sessions
#   BENCH_MANY_FILES=500 bench/serve.sh     # reduced
#   BENCH_MANY_ROOT=corpus/large/sessions bench/serve.sh   # an existing root
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release -p pi-session-cli -p pi-session-bench
bin="$CARGO_TARGET_DIR/release"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/pi-corpus" "$work/big" --big-file --seed 1 >/dev/null
many="${BENCH_MANY_ROOT:-}"
if [ -z "$many" ]; then
	files="${BENCH_MANY_FILES:-10000}"
	"$bin/pi-corpus" "$work/many" --profile medium --files "$files" --mb "${BENCH_MANY_MB:-$(( files * 3 / 10 ))}" --seed 3 >/dev/null
	many="$work/many/sessions"
fi
big=$(find "$work/big/sessions" -name '*.jsonl' | head -n 1)
node tests/serve/bench.mjs --many "$many" --big "$big" --bin "$bin/pi-session"
