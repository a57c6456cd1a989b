#!/usr/bin/env bash
# Back to back, then after the machine idled: the big session's first open, its reopen from the
# snapshot, and a root's first listing, for one or more pi-session binaries run interleaved.
#
# On a virtual machine whose host takes back free memory (free page reporting), fresh memory
# costs more after a pause than right after another process freed some; a benchmark that runs
# its steps back to back only sees the second case (bench/ROUNDS.md, "Round 20").
#
#   bench/idle.sh [--runs N] [--idle-runs M] [--idle SECS] ROOT BIN [BIN...]
#
# ROOT is a sessions folder (its biggest .jsonl is the big session); each BIN is a pi-session
# binary. Prints each binary's median (and quartiles) of wall time per case. Defaults: 11 runs
# back to back, 5 after idle, 10 s of idle before each of those.
set -euo pipefail

runs=11 idle_runs=5 idle=10
while [[ $# -gt 0 && $1 == --* ]]; do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --idle-runs) idle_runs=$2; shift 2 ;;
    --idle) idle=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -ge 2 ]] || { sed -n '9,13p' "$0" >&2; exit 2; }
root=$1; shift
bins=("$@")
for b in "${bins[@]}"; do [[ -x $b ]] || { echo "not an executable: $b" >&2; exit 2; }; done
big=$(find "$root" -name '*.jsonl' -type f -printf '%s %p\n' | sort -n | tail -1 | cut -d' ' -f2-)
[[ -n $big ]] || { echo "no .jsonl under $root" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now_ns() { date +%s%N; }

# One timed run of BIN (index i) for case c; appends its wall time in tenths of a ms.
run_one() {
  local c=$1 i=$2 bin=${bins[$2]} cache="$work/cache$2" start end
  case $c in
    open) rm -rf "$cache"; start=$(now_ns)
      PI_SESSION_CACHE_DIR=$cache PI_SESSION_SKELETON_MIN_BYTES=off "$bin" context "$big" --json > /dev/null ;;
    reopen) start=$(now_ns)
      PI_SESSION_CACHE_DIR=$cache "$bin" context "$big" --json > /dev/null ;;
    list) rm -rf "$cache"; start=$(now_ns)
      PI_SESSION_CACHE_DIR=$cache "$bin" list --sessions-dir "$root" --json > /dev/null ;;
  esac
  end=$(now_ns)
  echo $(( (end - start) / 100000 )) >> "$work/$c-$i"
}

median() {
  sort -n "$1" | awk '{a[NR]=$1} END {printf "%.1f ms (%.1f-%.1f)", a[int((NR+1)/2)]/10, a[int((NR+3)/4)]/10, a[int((3*NR+1)/4)]/10}'
}

echo "big session: $big ($(du -h "$big" | cut -f1)); ${#bins[@]} binaries, interleaved"
for c in open reopen list; do
  for phase in "back to back" "after ${idle}s idle"; do
    rm -f "$work/$c-"*
    if [[ $c == reopen ]]; then
      # Each binary's snapshot saved once, by itself.
      for i in "${!bins[@]}"; do rm -rf "$work/cache$i"; PI_SESSION_CACHE_DIR="$work/cache$i" "${bins[$i]}" context "$big" --json > /dev/null; done
    fi
    n=$runs; [[ $phase == after* ]] && n=$idle_runs
    for _ in $(seq "$n"); do
      for i in "${!bins[@]}"; do
        [[ $phase == after* ]] && sleep "$idle"
        run_one $c "$i"
      done
    done
    for i in "${!bins[@]}"; do
      printf '%-7s %-16s %-40s %s\n' "$c" "$phase" "${bins[$i]}" "$(median "$work/$c-$i")"
    done
  done
done
