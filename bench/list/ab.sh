#!/usr/bin/env bash
# A/B of the list bench (bench/RESULTS.md, "Listing charges"): two duepay binaries in turn on the
# same seeded rows of one stack. Run it in a private network namespace; it starts and stops the
# dev stack itself:
#
#   unshare -n env ROWS=200000 DURATION=5 bench/list/ab.sh BASE_BIN NEW_BIN [ROUNDS]
#
# A warm-up run.sh with BASE_BIN seeds the rows, then ROUNDS (default 3) rounds of run.sh with
# SEED=0, NEW_BIN then BASE_BIN. Each run's output and the first answer of each page (for an md5
# comparison of the bodies) go to var/bench/ab/<run>.txt and var/bench/ab/<run>-json/.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
(($# >= 2)) || { echo "usage: $0 BASE_BIN NEW_BIN [ROUNDS]" >&2; exit 2; }
BASE_BIN="$1"; NEW_BIN="$2"; ROUNDS="${3:-3}"
OUT="$ROOT/var/bench/ab"
mkdir -p "$OUT"
ip link set lo up
infra/dev/stack.sh up >"$OUT/stack-up.log" 2>&1 || { tail -20 "$OUT/stack-up.log"; infra/dev/stack.sh down; exit 1; }
trap 'infra/dev/stack.sh down >"$OUT/stack-down.log" 2>&1' EXIT
run() {  # $1: label, $2: binary, $3: SEED
  echo "== $1 $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  SEED="$3" ROWS="${ROWS:-200000}" DURATION="${DURATION:-5}" DUEPAY_BIN="$2" \
    bench/list/run.sh >"$OUT/$1.txt" 2>&1
  echo "rc=$? end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  mkdir -p "$OUT/$1-json"
  cp var/bench/list-*.json "$OUT/$1-json/"
}
run warm-base "$BASE_BIN" 1
for i in $(seq 1 "$ROUNDS"); do
  run "new-$i" "$NEW_BIN" 0
  run "base-$i" "$BASE_BIN" 0
done
