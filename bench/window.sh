#!/usr/bin/env bash
# The window benchmark: the release app under Xvfb, driven through WebDriver, on a generated
# 200,000-entry session (a 100,000-deep chain) and a root of 2,000 sessions with forks. Prints
# click-to-rows, frame times while scrolling 1,000 rows, transcript open time and blank frames,
# first sessions and the fork graph after start, and a live append until visible. Asserts no
# timing; fails only when a step fails. Needs the UI built first (npm --prefix ui run build).
#
#   bench/window.sh
#   BENCH_MANY_FILES=500 bench/window.sh
#   BENCH_MANY_ROOT=corpus/large/sessions bench/window.sh   # an existing root (the 10,000 files)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
# The app built as scripts/start builds it (the .deb step after this one then rebuilds nothing),
# and the corpus generator as bench/ci.sh builds it.
cargo build --release -p pi-session-explorer -p pi-session-cli
cargo build --release -p pi-session-cli -p pi-session-bench
bin="$CARGO_TARGET_DIR/release"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$bin/pi-corpus" "$work/big" --big-file --seed 1 >/dev/null
many="${BENCH_MANY_ROOT:-}"
if [ -z "$many" ]; then
	"$bin/pi-corpus" "$work/many" --profile medium --files "${BENCH_MANY_FILES:-2000}" --mb "${BENCH_MANY_MB:-600}" --seed 3 >/dev/null
	many="$work/many/sessions"
fi
# The generated files reach the disk before anything is timed (writeback shares the cores).
sync
big=$(find "$work/big/sessions" -name '*.jsonl' | head -n 1)
node tests/e2e/bench.mjs --big "$big" --many "$many" --app "$bin/pi-session-explorer"
