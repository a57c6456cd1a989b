#!/usr/bin/env bash
# Differential tests of pi-session against the real pi (see README.md): two oracles, each
# pinned exactly: pi 0.73.1 (this folder's node_modules, system Node 20) and pi 1.6.0 (pi16/,
# Node 24 from .tools/). Prints one summary line per oracle; exits non-zero when either run
# finds an unexpected difference (1) or cannot run (2).
#
#   run.sh [diff.mjs options...]            both pinned oracles
#   run.sh --pi VERSION [diff.mjs options]  only that published pi (installed on first use into
#                                           .tools/pi-versions/VERSION with npm: @mariozechner/… up to
#                                           0.73.1, @earendil-works/… after it, on Node 24)
#
# Installs nothing else: `scripts/setup all` installs both pinned pis and Node 24; build the CLI
# first (`cargo build -p pi-session-cli`). The binary is $PI_SESSION_BIN, by default
# <repo>/target/debug/pi-session. Node 24: $NODE24, by default <repo>/.tools/bin/node24; pi 1.6.0:
# $PI16_DIR, by default tests/pi-oracle/pi16.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
export PI_SESSION_BIN="${PI_SESSION_BIN:-$repo/target/debug/pi-session}"
NODE24="${NODE24:-$repo/.tools/bin/node24}"
PI16_DIR="${PI16_DIR:-$here/pi16}"

version=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pi) [ $# -ge 2 ] || { echo "run.sh: --pi needs a version" >&2; exit 2; }; version="$2"; shift 2 ;;
    --pi=*) version="${1#--pi=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done

command -v node >/dev/null || { echo "run.sh: node (20.6 or later) is required" >&2; exit 2; }
need_node24() {
  [ -x "$NODE24" ] || { echo "run.sh: pi 1.x needs Node >= 22.19: run scripts/setup all (or set NODE24)" >&2; exit 2; }
}

summaries=()
status=0
# run_one NODE PI_DIR: one diff.mjs run against the pi installed in PI_DIR.
run_one() {
  local log rc=0
  log="$(mktemp)"
  set +e
  "$1" "$here/diff.mjs" --pi-dir "$2" ${args[@]+"${args[@]}"} | tee "$log"
  rc="${PIPESTATUS[0]}"
  set -e
  summaries+=("$(grep -E '^pi [0-9]' "$log" | tail -n 1 || echo "pi in $2: no result (exit $rc)")")
  rm -f "$log"
  if [ "$rc" -gt "$status" ]; then status="$rc"; fi
}

if [ -n "$version" ]; then
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "run.sh: --pi wants a version like 1.7.0" >&2; exit 2; }
  # 0.73.1 was the last release of @mariozechner/pi-coding-agent; later ones are @earendil-works/…
  if [ "$(printf '%s\n' 0.73.1 "$version" | sort -V | tail -n 1)" = "0.73.1" ]; then
    pkg="@mariozechner/pi-coding-agent"; node_bin="node"
  else pkg="@earendil-works/pi-coding-agent"; node_bin="$NODE24"; need_node24; fi
  dir="$repo/.tools/pi-versions/$version"
  if ! [ -f "$dir/node_modules/$pkg/package.json" ]; then
    echo "== installing $pkg@$version into $dir"
    mkdir -p "$dir"
    printf '{"private":true,"type":"module","dependencies":{"%s":"%s"}}\n' "$pkg" "$version" >"$dir/package.json"
    npm_bin="$(command -v npm)"
    path="$PATH"
    # The Node 24 wheel's own npm is broken: the system npm runs under the node that pi needs.
    if [ "$node_bin" != "node" ]; then path="$(dirname "$(readlink -f "$node_bin")"):$PATH"; fi
    (cd "$dir" && PATH="$path" "$npm_bin" install --no-audit --no-fund --loglevel=error) || { rm -rf "$dir"; echo "run.sh: could not install $pkg@$version" >&2; exit 2; }
  fi
  run_one "$node_bin" "$dir"
else
  [ -f "$here/node_modules/@mariozechner/pi-coding-agent/package.json" ] || { echo "run.sh: pi 0.73.1 is not installed: run scripts/setup all" >&2; exit 2; }
  [ -f "$PI16_DIR/node_modules/@earendil-works/pi-coding-agent/package.json" ] || { echo "run.sh: pi 1.6.0 is not installed in $PI16_DIR: run scripts/setup all" >&2; exit 2; }
  need_node24
  run_one node "$here"
  run_one "$NODE24" "$PI16_DIR"
fi

echo
echo "== differential tests, per oracle"
printf '%s\n' "${summaries[@]}"
exit "$status"
