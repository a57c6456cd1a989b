#!/usr/bin/env bash
# Slim fork benchmark, printed (asserts no timing): on the 200,000-entry file of pi-corpus
# (--big-file, ~165 MB) and on a ~100 MB linear session with compactions (slim-session.mjs),
# the slim fork at the leaf: its size ratio, our time to write it, and pi 0.73.1's and pi 1.6.0's
# open + context time (bench/pi-side.mjs: SessionManager.open, getTree, buildSessionContext) on
# the source and on the slim file, in one run.
#
#   bench/slim.sh            # full size: run it once, on an otherwise idle machine
#   bench/slim.sh --quick    # a 10 MB session only (no big file), to check the script works
#
# Needs pi 0.73.1 (npm ci in tests/pi-oracle) and pi 1.6.0 ($PI16_DIR, Node 24 in $NODE24; see
# scripts/setup); without them that pi's columns say "-".
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
quick=""; [ "${1:-}" = "--quick" ] && quick=1

if [ -n "$quick" ]; then
	cargo build -q -p pi-session-cli
	bin="$CARGO_TARGET_DIR/debug"
else
	cargo build -q --release -p pi-session-cli -p pi-session-bench
	bin="$CARGO_TARGET_DIR/release"
fi
pi073="$repo/tests/pi-oracle/node_modules/@mariozechner/pi-coding-agent"
PI16_DIR="${PI16_DIR:-$repo/tests/pi-oracle/pi16}"
pi16="$PI16_DIR/node_modules/@earendil-works/pi-coding-agent"
NODE24="${NODE24:-$repo/.tools/bin/node24}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/s"
files=()
if [ -z "$quick" ]; then
	"$bin/pi-corpus" "$work/corpus" --big-file --seed 1 >/dev/null
	big="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1])).bigFile.path)' "$work/corpus/corpus.json")"
	cp "$big" "$work/s/big-200k.jsonl"
	files+=("$work/s/big-200k.jsonl")
	node bench/slim-session.mjs "$work/s/linear-100mb.jsonl" --mb 100 >/dev/null
	files+=("$work/s/linear-100mb.jsonl")
else
	node bench/slim-session.mjs "$work/s/linear-10mb.jsonl" --mb 10 >/dev/null
	files+=("$work/s/linear-10mb.jsonl")
fi

# pi's open + getTree + buildSessionContext on one file, in ms (or "-").
pi_ms() { # node package file
	local node="$1" pkg="$2" f="$3"
	[ -f "$pkg/package.json" ] && command -v "$node" >/dev/null 2>&1 || { echo "-"; return; }
	echo "$f" > "$work/list"
	PI_PACKAGE="$pkg" "$node" bench/pi-side.mjs open "$work/list" --tmp "$work" |
		node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const o=JSON.parse(s);console.log(o.complete?`${Math.round(o.ms)} ms (${Math.round(o.maxRssKB/1024)} MB RSS)`:"-")})'
}

printf '%-18s %10s %10s %7s %9s  %-26s %-26s %-26s %-26s\n' file source slim ratio "our fork" "pi 0.73.1 source" "pi 0.73.1 slim" "pi 1.6.0 source" "pi 1.6.0 slim"
for f in "${files[@]}"; do
	leaf="$("$bin/pi-session" tree "$f" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).leafId))')"
	t0=$(date +%s%N)
	out="$("$bin/pi-session" fork "$f" "$leaf" --slim --sessions-dir "$work/s" 2>/dev/null)" || { echo "$(basename "$f"): no compaction on the leaf's path"; continue; }
	t1=$(date +%s%N)
	slim="$(echo "$out" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).file))')"
	before=$(stat -c %s "$f"); after=$(stat -c %s "$slim")
	printf '%-18s %8.1fMB %8.1fKB %6.2f%% %7d ms  %-26s %-26s %-26s %-26s\n' "$(basename "$f" .jsonl)" \
		"$(echo "$before / 1000000" | bc -l)" "$(echo "$after / 1000" | bc -l)" "$(echo "100 * $after / $before" | bc -l)" $(( (t1 - t0) / 1000000 )) \
		"$(pi_ms node "$pi073" "$f")" "$(pi_ms node "$pi073" "$slim")" "$(pi_ms "$NODE24" "$pi16" "$f")" "$(pi_ms "$NODE24" "$pi16" "$slim")"
done
