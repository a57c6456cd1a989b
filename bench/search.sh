#!/usr/bin/env bash
# The indexed search benchmark (issue 14): index build time and size, p50/p95 over 50 mixed
# queries, the same queries by today's scan and by `grep -rF`, and the export of the biggest
# file's path — in one run. Prints figures; asserts nothing.
#
#   bench/search.sh              # reduced: the small profile (50 files, 25 MB) + the 200k-entry file
#   bench/search.sh --full       # the 10,000-file / 5 GB corpus + the 200k-entry file (long; asks a lot of disk)
#   CORPUS=DIR bench/search.sh   # an existing pi-corpus output
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release -p pi-session-bench
bin="$CARGO_TARGET_DIR/release"
profile=small
[ "${1:-}" = "--full" ] && profile=large
if [ -z "${CORPUS:-}" ]; then
	work="$(mktemp -d)"
	trap 'rm -rf "$work"' EXIT
	CORPUS="$work/corpus"
	"$bin/pi-corpus" "$CORPUS" --profile "$profile" --big-file --seed 1 >/dev/null
fi
"$bin/pi-search-bench" --corpus "$CORPUS" ${BASELINE_QUERIES:+--baseline-queries "$BASELINE_QUERIES"}
