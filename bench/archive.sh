#!/usr/bin/env bash
# The Parquet archive: export time and size on a generated corpus, an idle rerun, and the
# DuckDB time of the example queries of docs/archive.md. Prints figures; asserts no timing.
#
#   bench/archive.sh              # medium corpus (≈500 files / 250 MB)
#   bench/archive.sh --small      # ≈50 files (quick)
#   bench/archive.sh --full       # the 10,000-file / 5 GB corpus (long: run only when asked)
# Needs scripts/setup all (.tools/py with duckdb). CORPUS=DIR reuses an existing corpus folder.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
profile=medium
case "${1:-}" in
	--small) profile=small ;;
	--full) profile=large ;;
	"") ;;
	*) echo "usage: bench/archive.sh [--small|--full]"; exit 2 ;;
esac
py="${PY:-.tools/py/bin/python}"
[ -x "$py" ] || { echo "no $py: run scripts/setup all"; exit 1; }

# BENCH_PROFILE=debug checks the script with debug binaries (figures not representative).
if [ "${BENCH_PROFILE:-release}" = debug ]; then
	cargo build -q -p pi-session-cli -p pi-session-bench
	bin="$CARGO_TARGET_DIR/debug"
else
	cargo build -q --release -p pi-session-cli -p pi-session-bench
	bin="$CARGO_TARGET_DIR/release"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export PI_SESSION_CACHE_DIR="$work/cache"

corpus="${CORPUS:-}"
if [ -z "$corpus" ]; then
	corpus="$work/corpus"
	"$bin/pi-corpus" "$corpus" --profile "$profile" --seed 1 >/dev/null
fi
files=$(find "$corpus/sessions" -name '*.jsonl' | wc -l)
bytes=$(du -sb "$corpus/sessions" | cut -f1)
echo "corpus: $files files, $((bytes / 1000000)) MB ($profile)"

t0=$(date +%s.%N)
"$bin/pi-session" export --parquet "$work/archive" --sessions-dir "bench=$corpus/sessions"
t1=$(date +%s.%N)
"$bin/pi-session" export --parquet "$work/archive" --sessions-dir "bench=$corpus/sessions"
t2=$(date +%s.%N)
size=$(du -sb "$work/archive" | cut -f1)
parts=$(find "$work/archive" -name '*.parquet' | wc -l)
echo "export: $(echo "$t1 - $t0" | bc) s; Parquet: $parts files, $((size / 1000)) kB ($(echo "scale=1; 100 * $size / $bytes" | bc)% of the JSONL)"
echo "idle rerun: $(echo "$t2 - $t1" | bc) s"

"$py" - "$work/archive" <<'PY'
import re, sys, time
import duckdb
out = sys.argv[1]
blocks = [b.replace("'archive/", f"'{out}/") for b in re.findall(r"```sql\n(.*?)```", open("docs/archive.md").read(), re.S)]
con = duckdb.connect()
# Views (the usage view only when usage files exist).
for stmt in blocks[0].split(";"):
    if stmt.strip() and ("VIEW usage" not in stmt or __import__("glob").glob(f"{out}/usage/**/*.parquet", recursive=True)):
        con.execute(stmt)
names = ["cost per model per week", "sessions per project", "abandoned-branch token share"]
for name, q in zip(names, [b for b in blocks[1:] if "s3://" not in b]):
    t = time.perf_counter()
    rows = con.execute(q).fetchall()
    print(f"duckdb: {name}: {1000 * (time.perf_counter() - t):.1f} ms, {len(rows)} rows")
n = con.execute("SELECT count(*) FROM entries").fetchone()[0]
print(f"duckdb: {n} entry rows")
PY
