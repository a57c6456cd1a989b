#!/usr/bin/env bash
# Fuzzes the core's parsers for a bounded time: each cargo-fuzz (libFuzzer) target in fuzz/ runs
# for FUZZ_SECONDS (default 60), seeded with the damage examples and pi's test vectors (written
# at run time). Prints the executions and the time of each target; fails on any crash, hang
# (an input taking more than 10 s) or memory blow-up (over 2 GB).
#
#   tests/fuzz.sh                 # every target
#   FUZZ_SECONDS=600 tests/fuzz.sh tree context
#
# Only a stable toolchain is needed: RUSTC_BOOTSTRAP=1 lets cargo-fuzz use the sanitizer flags.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(line_parser tree context append)
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR=never

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install cargo-fuzz --locked
fi

echo "fuzz: building the targets ($(cargo fuzz --version))"
build_log=$(mktemp)
if ! cargo fuzz build >"$build_log" 2>&1; then
  cat "$build_log" >&2
  echo "fuzz: build failed" >&2
  exit 1
fi
rm -f "$build_log"

# Seeds: every damage example and every vector as a whole file; each of their lines alone for
# the line parser.
seeds=$(mktemp -d)
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds/files" "$seeds/lines"
find crates/pi-session/tests/damage -name '*.jsonl' -type f -exec cp {} "$seeds/files/" \;
if command -v node >/dev/null 2>&1 && [ -f tests/pi-oracle/vectors.mjs ]; then
  node tests/pi-oracle/vectors.mjs write "$seeds/vectors" >/dev/null 2>&1 && cp "$seeds"/vectors/*.jsonl "$seeds/files/" || true
fi
n=0
for f in "$seeds"/files/*.jsonl; do
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    printf '%s' "$line" >"$seeds/lines/$n"
  done <"$f"
done
echo "fuzz: $(ls "$seeds/files" | wc -l) seed files, $n seed lines, ${seconds} s per target"

declare -A execs times rss status
failed=0
for t in "${targets[@]}"; do
  corpus=fuzz/corpus/$t
  mkdir -p "$corpus" "fuzz/artifacts/$t"
  if [ "$t" = line_parser ]; then seed_dir=$seeds/lines; else seed_dir=$seeds/files; fi
  log=$(mktemp)
  echo
  echo "fuzz: $t"
  start=$(date +%s.%N)
  set +e
  cargo fuzz run "$t" "$corpus" "$seed_dir" -- \
    -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len=32768 \
    -print_final_stats=1 -close_fd_mask=1 >"$log" 2>&1
  rc=$?
  set -e
  end=$(date +%s.%N)
  times[$t]=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
  # libFuzzer's final statistics (-print_final_stats=1), else its last "#N DONE" line.
  execs[$t]=$(awk '/stat::number_of_executed_units:/ { n = $2 } END { print n }' "$log")
  if [ -z "${execs[$t]}" ]; then
    execs[$t]=$(grep -Eo '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | tr -dc '0-9')
  fi
  rss[$t]=$(awk '/stat::peak_rss_mb:/ { n = $2 } END { print n }' "$log")
  grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs' "$log" | tail -2 || true
  if [ $rc -ne 0 ] || grep -qE 'ERROR: libFuzzer|==ERROR|panicked at|deadly signal|SUMMARY: libFuzzer' "$log"; then
    status[$t]=FAILED
    failed=1
    echo "fuzz: $t FAILED (exit $rc); the end of its log:" >&2
    tail -60 "$log" >&2
    find "fuzz/artifacts/$t" -type f -newer "$log" -printf '  artifact: %p\n' >&2
  else
    status[$t]=ok
  fi
  rm -f "$log"
done

echo
printf '%-12s %14s %9s %12s %10s %8s\n' target executions seconds 'exec/s' 'peak MB' result
for t in "${targets[@]}"; do
  e=${execs[$t]:-0}
  s=${times[$t]}
  printf '%-12s %14s %9s %12s %10s %8s\n' "$t" "$e" "$s" "$(awk -v e="$e" -v s="$s" 'BEGIN { if (s > 0) printf "%.0f", e / s; else print 0 }')" "${rss[$t]:-?}" "${status[$t]}"
done
exit $failed
