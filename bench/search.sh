#!/usr/bin/env bash
# The search index benchmark, in one run on two pi-corpus corpora (`large`: long sessions and
# the 200,000-entry file; `short`: tool-heavy entries of about 1.5 kB): index size ÷ corpus,
# the first build ÷ a full `check` of the same root, the query median and p95 (each query a
# whole `pi-session search` process), the medians of grep -rlF and of grep -rliF (case ignored,
# as the search does) on the same words (page cache warm), and how many answers equal a
# brute-force read of every file. Prints figures; asserts no timing; fails only when an
# answer differs from the brute force (or a command fails).
#
#   bench/search.sh              # reduced (bench/ci.sh): small profile + the 200k-entry file; 50 short files
#   bench/search.sh --full       # 5 GB each (10,000 files): one corpus at a time, each deleted after
#   CORPUS=DIR bench/search.sh   # one existing pi-corpus output only
#   WORK=DIR                     # where the corpora and indexes go (default: a temporary folder)
#   BASELINE_QUERIES=N RUNS=N    # grep on the first N queries (default 50); runs of each query (3)
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release -p pi-session-cli -p pi-session-bench
bin="$CARGO_TARGET_DIR/release"
full=0
[ "${1:-}" = "--full" ] && full=1
work="${WORK:-$(mktemp -d)}"
mkdir -p "$work"
bench() {
	echo "== $1"
	"$bin/pi-search-bench" --corpus "$2" --pi-session "$bin/pi-session" --work "$work" \
		--baseline-queries "${BASELINE_QUERIES:-50}" --runs "${RUNS:-3}"
}
if [ -n "${CORPUS:-}" ]; then
	bench "$CORPUS" "$CORPUS"
	exit 0
fi
trap 'rm -rf "$work/large" "$work/short"; [ -n "${WORK:-}" ] || rm -rf "$work"' EXIT
if [ "$full" = 1 ]; then
	"$bin/pi-corpus" "$work/large" --profile large --big-file --seed 1 --force >/dev/null
else
	"$bin/pi-corpus" "$work/large" --profile small --big-file --seed 1 --force >/dev/null
fi
bench "large$([ "$full" = 1 ] || echo ' (reduced: small profile + the 200k-entry file)')" "$work/large"
rm -rf "$work/large"
if [ "$full" = 1 ]; then
	"$bin/pi-corpus" "$work/short" --profile short --seed 1 --force >/dev/null
else
	"$bin/pi-corpus" "$work/short" --profile short --files 50 --mb 25 --seed 1 --force >/dev/null
fi
bench "short$([ "$full" = 1 ] || echo ' (reduced: 50 files)')" "$work/short"
